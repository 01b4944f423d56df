// The node's small files (node/atomic-file.ts, node/key-files.ts): replaced whole or not at all,
// even under kill -9 in the middle of the write; a key file that does not parse is refused, naming it.
import { spawn } from 'node:child_process';
import { readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import {
  API_KEY_MASTER, ChainStoreForTests, DataDirDamagedError, NODE_KEY, NodeApiKeyStore, VALIDATOR_KEY, loadOrCreateKeyFile, readKeyFile,
  writeFileAtomic, writeFileIfChanged,
} from '../../node/index.ts';
import { tempDir } from '../support/node.ts';

async function dir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const d = await tempDir();
  t.teardown(() => rm(d, { recursive: true, force: true }));
  return d;
}

t.test('writeFileAtomic: the new content whole, the mode asked for, no temporary file left', async (t) => {
  const d = await dir(t);
  const path = join(d, 'key');
  await writeFile(`${path}.tmp`, 'a crash left this', { mode: 0o644 });
  await writeFileAtomic(path, 'one\n', 0o600);
  t.equal(await readFile(path, 'utf8'), 'one\n');
  t.equal((await stat(path)).mode & 0o777, 0o600, 'not the mode of the temporary file a crash left');
  await writeFileAtomic(path, 'two\n', 0o600);
  t.equal(await readFile(path, 'utf8'), 'two\n');
  t.same(await readdir(d), ['key']);
});

t.test('writeFileIfChanged leaves a file that already holds the content alone', async (t) => {
  const path = join(await dir(t), 'genesis.json');
  t.equal(await writeFileIfChanged(path, '{}\n'), true);
  const first = await stat(path);
  t.equal(await writeFileIfChanged(path, '{}\n'), false);
  t.equal((await stat(path)).ino, first.ino, 'the same file, not rewritten');
  t.equal(await writeFileIfChanged(path, '{"a":1}\n'), true);
  t.equal(await readFile(path, 'utf8'), '{"a":1}\n');
});

t.test('kill -9 while a file is rewritten over and over leaves one whole version of it', async (t) => {
  const path = join(await dir(t), 'big.json');
  const size = 4 << 20;
  const module = fileURLToPath(new URL('../../node/atomic-file.ts', import.meta.url));
  // Alternates two 4 MiB contents, printing each completed write.
  const script = `import { writeFileAtomic } from ${JSON.stringify(module)};
    for (let i = 0; ; i++) { await writeFileAtomic(${JSON.stringify(path)}, (i % 2 ? 'b' : 'a').repeat(${size})); process.stdout.write('.'); }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    let writes = 0;
    const timer = setTimeout(() => reject(new Error('the writer did not write 3 times in 30 s')), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      writes += chunk.length;
      if (writes < 3) return;
      clearTimeout(timer);
      child.kill('SIGKILL'); // the 4th write is under way
      resolve();
    });
  });
  await exited;
  const text = await readFile(path, 'utf8');
  t.equal(text.length, size, 'whole');
  t.ok(text === 'a'.repeat(size) || text === 'b'.repeat(size), 'one version, not a mix');
});

t.test('key files: created whole with mode 0600 and read back; one that does not parse is refused, naming it', async (t) => {
  const d = await dir(t);
  const key = await loadOrCreateKeyFile(d, VALIDATOR_KEY);
  t.equal((await stat(join(d, VALIDATOR_KEY.name))).mode & 0o777, 0o600);
  t.equal((await loadOrCreateKeyFile(d, VALIDATOR_KEY)).publicKey, key.publicKey, 'the same key the next time');
  const seed = await loadOrCreateKeyFile(d, NODE_KEY);
  t.equal(seed.length, 32);
  await writeFile(join(d, NODE_KEY.name), Buffer.from(seed).toString('hex')); // as `svc testnet` writes it, no newline
  t.same(await readKeyFile(d, NODE_KEY), seed);

  for (const [file, text, holds] of [
    [VALIDATOR_KEY, '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2Vw', 'an ed25519 private key in PKCS#8 PEM'],
    [NODE_KEY, `${'ab'.repeat(20)}\n`, '64 hex digits'],
    [API_KEY_MASTER, '', '64 hex digits'],
  ] as const) {
    const path = join(d, file.name);
    await writeFile(path, text);
    await t.rejects(readKeyFile(d, file as typeof NODE_KEY), {
      constructor: DataDirDamagedError,
      file: path,
      message: new RegExp(`^${path} must hold ${holds}.* but does not \\(.+\\): restore it from a backup`),
    }, file.name);
  }
  const db = new ChainStoreForTests(join(d, 'db'));
  await db.open();
  t.teardown(() => db.close());
  const refused: unknown = await NodeApiKeyStore.open(db.localStore('apikeys'), d, 60_000, 0).catch((err: unknown) => err);
  t.ok(refused instanceof DataDirDamagedError, 'the API key store refuses its master too');
  t.equal((refused as DataDirDamagedError).file, join(d, API_KEY_MASTER.name));
});
