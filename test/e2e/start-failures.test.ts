// Starts that cannot succeed say why and exit (nothing left running keeps the process alive): a
// validator whose signing state it cannot trust, a devnet whose REST port is taken.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { FileWal, SIGN_STEP, SignGuard, WalGuardStore, validatorKeyFromSeed } from '../../consensus/index.ts';
import { freeBasePort } from '../../bench/processes.ts';
import { tempDir } from '../support/node.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

function svc(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    p.stderr.on('data', (c: Buffer) => { out += c.toString(); });
    const timer = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`svc ${args.join(' ')} still running after ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
    p.once('exit', (code) => { clearTimeout(timer); resolve({ code, out }); });
  });
}

t.test('a WAL whose record after the last signature record is corrupt stops the validator with the reason', async (t) => {
  const dir = await tempDir('svc-validator-start-');
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const base = await freeBasePort(1);
  const made = await svc(['testnet', '--validators', '1', '--out', dir, '--base-port', String(base)]);
  t.equal(made.code, 0, made.out);
  const home = join(dir, 'node0');
  // A log as the node writes it: replaced past its bound, the carried guard record first.
  const walPath = join(home, 'consensus.wal');
  const wal = new FileWal(walPath, 1);
  const guard = new SignGuard(validatorKeyFromSeed(new Uint8Array(32).fill(1)), new WalGuardStore(wal));
  wal.reset(5);
  guard.sign(5, 0, SIGN_STEP.precommit, Uint8Array.of(1));
  wal.reset(6);
  wal.flush();
  wal.close();
  const data = readFileSync(walPath);
  data.writeUInt8(data.readUInt8(20) ^ 0xff, 20); // inside the guard record
  writeFileSync(walPath, data);
  const refused = await svc(['start', '--home', home]);
  t.equal(refused.code, 1, 'exits with an error');
  t.match(refused.out, /svc: cannot tell what this validator's key signed last, so it will not sign: WAL record at byte 0 .* fails its checksum/);
  t.notMatch(refused.out, /REST API/, 'served nothing');
});

t.test('a devnet whose REST port is taken says so and exits', async (t) => {
  const dir = await tempDir('svc-port-taken-');
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  const out = await svc(['devnet', '--data-dir', dir, '--rest-port', String(port), '--ws-port', '0', '--rpc-port', '0']);
  t.equal(out.code, 1, 'exits with an error');
  t.match(out.out, new RegExp(`svc: cannot listen on 127\\.0\\.0\\.1:${port}`));
});
