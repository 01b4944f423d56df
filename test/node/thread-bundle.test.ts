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

/** The first message of a worker started from `url` (a failing worker fails the wait at once). */
async function firstMessage(url: URL, workerData?: unknown): Promise<unknown> {
  const w = new Worker(url, { workerData });
  try {
    return await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.once('exit', (code) => reject(new Error(`worker exited (${code}) before its first message`)));
    });
  } finally {
    await w.terminate();
  }
}

/** Runs `fn` with SVC_THREAD_BUNDLE set to `value` (undefined: unset), restoring it after. */
async function withBundleSetting<T>(value: string | undefined, fn: () => T | Promise<T>): Promise<T> {
  const before = process.env.SVC_THREAD_BUNDLE;
  if (value === undefined) delete process.env.SVC_THREAD_BUNDLE;
  else process.env.SVC_THREAD_BUNDLE = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.SVC_THREAD_BUNDLE;
    else process.env.SVC_THREAD_BUNDLE = before;
  }
}

t.test('a bundle is built, used while its sources are unchanged, and dropped when one changes', (t) => withBundleSetting(undefined, async () => {
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
  t.same(await firstMessage(built as URL), { where: pathToFileURL(helper).href, n: 1, self: pathToFileURL(entry).href }, "each module's import.meta.url is its source's");

  await writeFile(helper, 'export const where: string = import.meta.url;\nexport const n: number = 2;\n');
  t.equal(currentBundle('probe', cache), null, 'an edited source makes it stale');
  t.equal(threadEntry('probe', pathToFileURL(entry), fallback, cache).href, fallback.href, 'and the tsx entry runs again');
  const rebuilt = await buildThreadBundle('probe', pathToFileURL(entry), cache);
  t.not(rebuilt?.href, built?.href, 'the rebuilt bundle is a new file');
  t.match(await firstMessage(rebuilt as URL), { n: 2 }, 'with the edit in it');

  await withBundleSetting('0', () => {
    t.equal(threadEntry('probe', pathToFileURL(entry), fallback, cache).href, fallback.href, 'SVC_THREAD_BUNDLE=0 always runs the tsx entry');
  });
}));

t.test('a module-level await or a file of another kind is not bundled', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-thread-bundle-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'tla.ts'), 'export const v: number = await Promise.resolve(1);\n');
  t.equal(await buildThreadBundle('tla', pathToFileURL(join(dir, 'tla.ts')), join(dir, 'cache')), null, 'a module-level await: no bundle (tsx runs it)');
  await writeFile(join(dir, 'lib.cjs'), 'module.exports = 1;\n');
  await writeFile(join(dir, 'uses-cjs.ts'), "import v from './lib.cjs';\nexport const w: number = v;\n");
  t.equal(await buildThreadBundle('cjs', pathToFileURL(join(dir, 'uses-cjs.ts')), join(dir, 'cache')), null, 'a file the manifest would not hash: no bundle');
});

t.test('a bundle cut short is not current', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-thread-bundle-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'entry.ts'), 'export const n: number = 1;\n');
  const built = await buildThreadBundle('whole', pathToFileURL(join(dir, 'entry.ts')), join(dir, 'cache'));
  t.ok(built && currentBundle('whole', join(dir, 'cache')), 'built and current');
  await writeFile(built as URL, '');
  t.equal(currentBundle('whole', join(dir, 'cache')), null, 'an emptied bundle is not used');
});

t.test('the node\'s own worker entries bundle and start', async (t) => {
  // Inside node_modules, as the real cache is, so the bundles' packages resolve.
  await mkdir(dirname(THREAD_BUNDLE_CACHE), { recursive: true });
  const dir = await mkdtemp(`${THREAD_BUNDLE_CACHE}-test-`);
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const auth = authConfig(loadGenesis(devnetGenesis()));
  const signer = await buildThreadBundle('signer-worker', new URL('../../node/signer-worker.ts', import.meta.url), dir);
  t.ok(signer, 'the signer worker bundles');
  t.match(await firstMessage(signer as URL, { auth }), { ready: true }, 'and starts');
  const indexer = await buildThreadBundle('indexer', new URL('../../node/indexer/worker.ts', import.meta.url), dir);
  t.ok(indexer, 'the indexer worker bundles');
  t.match(await firstMessage(indexer as URL), { t: 'thread' }, 'and starts');
  // The command line's own bundle (the one a module-level await once stalled) runs.
  const cli = await buildThreadBundle('cli', new URL('../../cli/index.ts', import.meta.url), dir);
  t.ok(cli, 'the command line bundles');
  const { main } = (await import((cli as URL).href)) as { main: (argv: string[], io: unknown) => Promise<number> };
  const out: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l), env: {}, stdin: async () => '', prompt: async () => null, interrupted: () => new Promise(() => {}) };
  t.equal(await main(['--help'], io), 0, 'and answers --help');
  t.match(out.join('\n'), /devnet/, 'with the usage');
});
