// Worker bundles (node/thread-bundle.js): built from the TypeScript entry into a cache directory,
// used only while every source still hashes as bundled, each module's import.meta.url its own
// source's, and the tsx entry whenever the bundle is not current.
import t from 'tap';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { THREAD_BUNDLE_CACHE, authConfig, buildThreadBundle, currentBundle, threadEntry } from '../../node/index.ts';
import { devnetGenesis, loadGenesis } from '../../genesis/index.ts';

async function runWorker(url: URL): Promise<unknown> {
  const w = new Worker(url);
  try {
    return await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  } finally {
    await w.terminate();
  }
}

t.test('a bundle is built, used while its sources are unchanged, and dropped when one changes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-thread-bundle-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cache = join(dir, 'cache');
  const src = join(dir, 'src');
  const helper = join(src, 'helper.ts');
  const entry = join(src, 'entry.ts');
  const fallback = pathToFileURL(join(src, 'fallback.js'));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  await mkdir(src);
  await writeFile(helper, 'export const where: string = import.meta.url;\nexport const n: number = 1;\n');
  await writeFile(entry, "import { parentPort } from 'node:worker_threads';\nimport { where, n } from './helper.ts';\nparentPort?.postMessage({ where, n, self: import.meta.url });\n");

  t.equal(currentBundle('probe', cache), null, 'nothing is current before a build');
  t.equal(threadEntry('probe', pathToFileURL(entry), fallback, cache).href, fallback.href, 'the tsx entry runs while the bundle is built');
  const built = await buildThreadBundle('probe', pathToFileURL(entry), cache);
  t.ok(built, 'the bundle was built');
  const current = currentBundle('probe', cache);
  t.equal(current?.href, built?.href, 'and is current');
  t.equal(threadEntry('probe', pathToFileURL(entry), fallback, cache).href, built?.href, 'so workers start from it');
  t.same(await runWorker(built as URL), { where: pathToFileURL(helper).href, n: 1, self: pathToFileURL(entry).href }, "each module's import.meta.url is its source's");

  await writeFile(helper, 'export const where: string = import.meta.url;\nexport const n: number = 2;\n');
  t.equal(currentBundle('probe', cache), null, 'an edited source makes it stale');
  t.equal(threadEntry('probe', pathToFileURL(entry), fallback, cache).href, fallback.href, 'and the tsx entry runs again');
  const rebuilt = await buildThreadBundle('probe', pathToFileURL(entry), cache);
  t.not(rebuilt?.href, built?.href, 'the rebuilt bundle is a new file');
  t.match(await runWorker(rebuilt as URL), { n: 2 }, 'with the edit in it');

  process.env.SVC_THREAD_BUNDLE = '0';
  t.teardown(() => void delete process.env.SVC_THREAD_BUNDLE);
  t.equal(threadEntry('probe', pathToFileURL(entry), fallback, cache).href, fallback.href, 'SVC_THREAD_BUNDLE=0 always runs the tsx entry');
});

t.test('the node\'s own worker entries bundle and start', async (t) => {
  // Inside node_modules, as the real cache is, so the bundles' packages resolve.
  await mkdir(dirname(THREAD_BUNDLE_CACHE), { recursive: true });
  const dir = await mkdtemp(`${THREAD_BUNDLE_CACHE}-test-`);
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const auth = authConfig(loadGenesis(devnetGenesis()));
  const signer = await buildThreadBundle('signer-worker', new URL('../../node/signer-worker.ts', import.meta.url), dir);
  t.ok(signer, 'the signer worker bundles');
  const w = new Worker(signer as URL, { workerData: { auth } });
  t.teardown(() => w.terminate());
  t.match(await new Promise((resolve) => w.once('message', resolve)), { ready: true }, 'and starts');
  const indexer = await buildThreadBundle('indexer', new URL('../../node/indexer/worker.ts', import.meta.url), dir);
  t.ok(indexer, 'the indexer worker bundles');
  t.match(await runWorker(indexer as URL), { t: 'thread' }, 'and starts');
});
