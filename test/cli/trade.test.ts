// The client commands of `svc` against a real devnet node, run in this process through `main`
// with the output captured.
import t from 'tap';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../cli/index.ts';
import type { Io } from '../../cli/index.ts';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

const [alice, bob] = DEV_ACCOUNTS as [typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0]];

t.test('svc client commands', async (t) => {
  const { node } = await startNode(t);
  const home = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const env = { SVC_HOME: home, SVC_NODE: node.restUrl, SVC_PASSPHRASE: 'correct horse' };

  /** Runs `svc <argv>`; its exit code and output lines. */
  async function svc(...argv: string[]) {
    return svcWith(() => {}, ...argv);
  }
  async function svcWith(onErr: (line: string) => void, ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = {
      out: (l) => out.push(...l.split('\n')), err: (l) => (err.push(...l.split('\n')), onErr(l)), env,
      stdin: async () => '', prompt: async () => null, interrupted: () => new Promise(() => {}),
    };
    const code = await main(argv, io); // the WebSocket is found through the node (/explorer/config.json)
    return { code, out, err, text: out.join('\n') };
  }

  t.test('keys: import encrypted, new in clear text with a warning, list', async (t) => {
    const imported = await svc('keys', 'import', '--name', 'alice', '--private-key', alice.privateKey);
    t.equal(imported.code, 0, imported.err.join('\n'));
    t.match(imported.text, new RegExp(`address\\s+${alice.address}`));
    const file = JSON.parse(await readFile(join(home, 'keys', 'alice.json'), 'utf8')) as { version?: number; Crypto?: { kdf?: string } };
    t.match(file, { version: 3, Crypto: { kdf: 'scrypt', cipher: 'aes-128-ctr' } }, 'an encrypted V3 keystore');
    t.equal((await stat(join(home, 'keys', 'alice.json'))).mode & 0o777, 0o600);
    t.notMatch(JSON.stringify(file), alice.privateKey.slice(2), 'no clear private key');

    const fresh = await svc('keys', 'new', '--name', 'scratch', '--insecure');
    t.equal(fresh.code, 0);
    t.match(fresh.err.join('\n'), /WARNING: key "scratch" is stored UNENCRYPTED/);
    t.match(fresh.text, /Recovery phrase/);
    const mnemonic = await svc('keys', 'import', '--name', 'dev1', '--mnemonic', 'test test test test test test test test test test test junk', '--index', '1', '--insecure');
    t.match(mnemonic.text, new RegExp(bob.address));

    const list = await svc('keys', 'list');
    t.match(list.out[0], /^NAME\s+ADDRESS\s+STORED$/);
    t.match(list.text, new RegExp(`alice\\s+${alice.address}\\s+encrypted`));
    t.match(list.text, /scratch\s+0x[0-9a-f]{40}\s+CLEAR TEXT \(insecure\)/);
    t.equal((await svc('keys', 'new', '--name', 'alice', '--insecure')).code, 2, 'never overwrites a key');
  });

  t.test('order, orders, book, cancel with a stored key', async (t) => {
    const placed = await svc('order', 'buy', 'BTC', '0.01', '60000', '--key', 'alice');
    t.equal(placed.code, 0, placed.err.join('\n'));
    const oid = /resting\s+oid (\d+)/.exec(placed.text)?.[1];
    t.ok(oid, placed.text);
    const nonce = Number(await readFile(join(home, 'keys', 'nonces', `${alice.address}.nonce`), 'utf8'));
    t.ok(nonce > Date.now() - 60_000, 'the last nonce is kept for the next run');
    const orders = await svc('orders', alice.address);
    t.match(orders.out[0], /^OID\s+COIN\s+SIDE\s+PRICE\s+SIZE/);
    t.match(orders.text, new RegExp(`${oid}\\s+BTC\\s+buy\\s+60000\\s+0.01`));
    await svc('order', 'sell', 'BTC', '0.03', '61000', '--dev', '1');
    const book = await svc('book', 'BTC');
    t.match(book.text, /ask\s+61000\s+0.03\s+0.03\s+1\s+#+/);
    t.match(book.text, /spread 1000/);
    t.match(book.text, /bid\s+60000\s+0.01\s+0.01\s+1\s+#+/);
    const json = await svc('book', 'BTC', '--json');
    t.match(JSON.parse(json.text), { coin: 'BTC', levels: [[{ px: '60000' }], [{ px: '61000' }]] });
    const cancelled = await svc('cancel', 'BTC', oid as string, '--dev', '0'); // alice is development account 0
    t.match(cancelled.text, new RegExp(`${oid}\\s+cancelled`));
    t.match((await svc('orders', alice.address)).text, /no open orders/);
  });

  t.test('errors in plain words with the spec message', async (t) => {
    const bad = await svc('order', 'buy', 'BTC', '0.01', '60000.123', '--dev', '0');
    t.equal(bad.code, 1, 'a refused order is a failure');
    t.match(bad.text, /^error\s+Invalid price: 60000.123 has more than 5 significant figures/);
    const small = await svc('order', 'buy', 'BTC', '0.00001', '60000', '--dev', '0');
    t.equal(small.code, 1);
    t.match(small.err.join('\n'), /^svc order: .*\(field action.orders\[0\].s\) \[bad request\]/);
    const broke = await svc('transfer', bob.address, '99999999', '--dev', '2');
    t.match(broke.err.join('\n'), 'svc transfer: refused: Insufficient balance');
    const usage = await svc('order', 'hold', 'BTC', '1');
    t.equal(usage.code, 2);
    t.match(usage.err.join('\n'), /order takes buy or sell first/);
    const lines: string[] = [];
    const down = await main(['balance', alice.address, '--node', 'http://127.0.0.1:4'], {
      out: () => {}, err: (l) => void lines.push(l), env: {}, stdin: async () => '', prompt: async () => null, interrupted: () => new Promise(() => {}),
    });
    t.match(lines.join('\n'), /cannot reach http:\/\/127.0.0.1:4: ECONNREFUSED. Is a node running there\?/);
    t.equal(down, 1);
  });

  t.test('positions, balance, transfer, leverage, agents, deploy, tail', async (t) => {
    // tail says "watching …" on stderr once subscribed; the trade is made after that.
    let watching: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => (watching = resolve));
    const [tail] = await Promise.all([
      svcWith((l) => void (l.startsWith('watching') && watching()), 'tail', 'ETH', '--count', '2', '--dev', '1'), // bob's fills
      (async () => {
        await subscribed;
        await svc('order', 'sell', 'ETH', '1', '3000', '--dev', '0');
        await svc('order', 'buy', 'ETH', '0.5', '--dev', '1');
      })(),
    ]);
    t.match(tail.text, /trade\s+ETH\s+buy\s+0.5 @ 3000/);
    t.match(tail.text, /fill\s+ETH\s+buy\s+0.5 @ 3000\s+Open Long/);
    const positions = await svc('positions', bob.address);
    t.match(positions.text, /ETH\s+0.5\s+3000\s+\d+\s+-?\d+\s+20x cross/);
    t.equal((await svc('leverage', 'ETH', '10', '--dev', '1')).code, 0);
    t.match((await svc('positions', bob.address, '--json')).text, /"value": 10/);
    t.equal((await svc('transfer', alice.address, '25.5', '--dev', '1')).code, 0);
    const balance = await svc('balance', bob.address);
    t.match(balance.text, /account value\s+\d+/);
    t.match(balance.text, /USDC\s+\d/);
    const agent = '0x000000000000000000000000000000000000beef';
    t.match((await svc('agent', 'approve', agent, '--name', 'bot', '--dev', '1')).text, /may now trade/);
    t.match((await svc('agent', 'revoke', '--name', 'bot', '--dev', '1')).text, /revoked/);
    const token = await svc('deploy', 'token', 'TOOL', '--sz-decimals', '2', '--wei-decimals', '18', '--supply', '500', '--dev', '1');
    t.match(token.text, /token\s+TOOL/);
    const pair = await svc('deploy', 'pair', 'TOOL', 'USDC', '--dev', '1');
    t.match(pair.text, /pair\s+TOOL-USDC/, pair.err.join('\n'));
  });
});
