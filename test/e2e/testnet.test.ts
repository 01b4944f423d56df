// `svc testnet` and four `svc start` processes on loopback: orders sent to different nodes, the
// same books, balances and blocks everywhere; one validator killed, the chain continues; a second
// killed, it halts; both restarted, it resumes and they catch up.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { headerHash } from '../../consensus/index.ts';
import { ChainStoreForTests } from '../../node/index.ts';
import { freeBasePort } from '../../bench/processes.ts';
import { Client, limit, orderAction, tempDir, wallets } from '../support/node.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    p.stderr.on('data', (c: Buffer) => { out += c.toString(); });
    p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`svc ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

interface Running { proc: ChildProcess; url: string; exited: Promise<unknown> }

function startNode(home: string, timeoutMs = 60_000): Promise<Running> {
  const proc = spawn(process.execPath, [BIN, 'start', '--home', home], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise((r) => proc.once('exit', r));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`no REST URL from ${home}:\n${out}`)); }, timeoutMs);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /REST API\s+(http:\/\/\S+)/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      resolve({ proc, url: m[1] as string, exited });
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${home} exited ${code}:\n${out}`)); });
  });
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The two tests run side by side: the second's four short commands take the time the first spends
// waiting for its network.
t.jobs = 2;

t.test('a four-validator testnet of real processes', async (t) => {
  const dir = await tempDir('svc-testnet-');
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const base = await freeBasePort(4);
  await run(['testnet', '--validators', '4', '--out', dir, '--base-port', String(base)]);
  const homes = [0, 1, 2, 3].map((i) => join(dir, `node${i}`));
  for (const home of homes) {
    const path = join(home, 'config.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    config.emptyBlockIntervalMs = 200;
    config.oracleIntervalMs = 0;
    config.timeouts = { proposeMs: 1000, proposeDeltaMs: 300, prevoteMs: 300, prevoteDeltaMs: 300, precommitMs: 300, precommitDeltaMs: 300 };
    await writeFile(path, JSON.stringify(config));
  }
  const nodes: (Running | null)[] = await Promise.all(homes.map((h) => startNode(h)));
  const kill = async (i: number) => { const n = nodes[i]; nodes[i] = null; n?.proc.kill('SIGKILL'); await n?.exited; };
  t.teardown(async () => { for (let i = 0; i < 4; i++) { const n = nodes[i]; nodes[i] = null; n?.proc.kill('SIGTERM'); await n?.exited; } });
  const height = async (i: number) => Number((await new Client(nodes[i]!.url).raw('/v1/height')).body.height);
  const heights = async () => Promise.all(nodes.map((n, i) => (n === null ? Promise.resolve(-1) : height(i))));
  await until('height 2 everywhere', async () => (await heights()).every((h) => h >= 2));

  const placed = await new Client(nodes[0]!.url).exchange(alice, orderAction(limit(0, false, '100000', '0.5')));
  t.equal(placed.body.status, 'ok', JSON.stringify(placed.body));
  const taken = await new Client(nodes[2]!.url).exchange(bob, orderAction(limit(0, true, '100100', '0.2', 'Ioc')));
  t.equal(taken.body.status, 'ok', JSON.stringify(taken.body));
  const views = async () => Promise.all(nodes.map(async (n) => {
    const c = new Client(n!.url);
    const book = await c.info({ type: 'l2Book', coin: 'BTC' });
    const state = await c.info({ type: 'clearinghouseState', user: bob.address.toLowerCase() });
    return JSON.stringify({ levels: book.body.levels, positions: state.body.assetPositions });
  }));
  await until('the same book and balances everywhere', async () => new Set(await views()).size === 1);
  t.match((await views())[0], /"sz":"0.3"/, 'the ask rests with 0.3 left on every node');

  await kill(3);
  const at = Math.max(...(await heights()));
  await until('three validators continue', async () => (await heights()).filter((h) => h >= 0).every((h) => h >= at + 2));
  t.pass('the network continues with one validator down');
  await kill(2);
  await new Promise((r) => setTimeout(r, 1000));
  const halted = Math.max(...(await heights()));
  await new Promise((r) => setTimeout(r, 2000));
  t.equal(Math.max(...(await heights())), halted, 'with two validators down it halts');

  [nodes[2], nodes[3]] = await Promise.all([startNode(homes[2]!), startNode(homes[3]!)]);
  await until('all resume and catch up', async () => (await heights()).every((h) => h >= halted + 2), 90_000);
  t.pass('restarted validators resume and catch up');
  await until('the same book and balances after the restart', async () => new Set(await views()).size === 1);

  // Block hashes: stop everyone cleanly and read the stores.
  for (let i = 0; i < 4; i++) { const n = nodes[i]; nodes[i] = null; n?.proc.kill('SIGTERM'); await n?.exited; }
  const chains = await Promise.all(homes.map(async (home) => {
    const store = new ChainStoreForTests(join(home, 'db'));
    await store.open();
    const head = (await store.head())!.height;
    const hashes: string[] = [];
    for (let h = 1; h <= halted + 2; h++) hashes.push(headerHash((await store.block(h))!.header));
    await store.close();
    return { head, hashes: hashes.join() };
  }));
  t.equal(new Set(chains.map((c) => c.hashes)).size, 1, `the same block hashes on every node up to ${halted + 2}`);
});

t.test('svc init and svc keys: a home directory for joining a network', async (t) => {
  const dir = await tempDir('svc-init-');
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await run(['testnet', '--validators', '2', '--out', join(dir, 'net'), '--base-port', '31000']);
  const out = await run(['init', '--home', join(dir, 'joiner'), '--genesis', join(dir, 'net', 'genesis.json'), '--listen', '/ip4/127.0.0.1/tcp/31099', '--peer', '/ip4/127.0.0.1/tcp/31000/p2p/x']);
  t.match(out, /not in the genesis: a full node/);
  const keys = await run(['keys', '--home', join(dir, 'joiner')]);
  t.match(keys, /validator key\s+[0-9a-f]{64}/);
  t.match(keys, /p2p address\s+\/ip4\/127.0.0.1\/tcp\/31099\/p2p\/12D3Koo\w+/);
  const again = await run(['keys', '--home', join(dir, 'joiner')]);
  t.equal(again, keys, 'keys are kept, not regenerated');
  const config = JSON.parse(await readFile(join(dir, 'joiner', 'config.json'), 'utf8'));
  t.same(config.peers, ['/ip4/127.0.0.1/tcp/31000/p2p/x']);
});
