// Staking over REST on a devnet node, signed with ethers: deposit, register a validator, delegate,
// the reads (delegatorSummary, delegations, validatorSummaries), the set moving at the epoch
// boundary, withdrawal into the unbonding queue; bad requests answer 400 and move nothing.
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { generateValidatorKey } from '../../consensus/index.ts';
import { registrationBytes } from '../../exchange/index.ts';
import { devnetGenesis } from '../../genesis/index.ts';
import { utf8, verifyEd25519 } from '../../primitives/index.ts';
import { startNode, tempDir, wallets } from '../support/node.ts';

const [alice, bob] = wallets as [typeof wallets[0], typeof wallets[0]];
const A = alice.address.toLowerCase();
const B = bob.address.toLowerCase();
const UNIT = 100_000_000;
const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const svc = async (args: string[]) => promisify(execFile)(process.execPath, [BIN, ...args]);

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('stake, register, delegate and read it back over REST', async (t) => {
  const { node, client } = await startNode(t, { emptyBlockIntervalMs: 50 });
  const own = node.validatorKey.publicKey;
  const ok = { status: 'ok', response: { type: 'default' } };
  t.same((await client.info({ type: 'validatorSummaries' })).body, [
    { validator: own, signer: null, name: '', stake: '1', power: 1, isActive: true, isJailed: false, bridgeSigner: node.bridgeSigner },
  ], 'the devnet key is the genesis validator with 1 SVC and its derived bridge signer');
  t.same((await client.info({ type: 'delegatorSummary', user: A })).body, { delegated: '0', undelegated: '0', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });

  t.same((await client.exchange(alice, { type: 'cDeposit', wei: 20 * UNIT })).body, ok);
  const key = generateValidatorKey();
  const signature = key.sign(registrationBytes(node.genesis.file.chainId, B, key.publicKey));
  t.same((await client.exchange(bob, { type: 'registerValidator', pubKey: key.publicKey, signature, name: 'bob-node' })).body, ok);
  t.same((await client.exchange(alice, { type: 'tokenDelegate', validator: key.publicKey, wei: 12 * UNIT, isUndelegate: false })).body, ok);
  t.same((await client.info({ type: 'delegatorSummary', user: A })).body, { delegated: '12', undelegated: '8', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });
  t.match((await client.info({ type: 'delegations', user: A })).body, [{ validator: key.publicKey, amount: '12', lockedUntilTimestamp: Number }]);

  await until('the epoch boundary', async () => (await client.info({ type: 'validatorSummaries' })).body[0]?.isActive === true && (await client.info({ type: 'validatorSummaries' })).body[0]?.validator === key.publicKey);
  t.same((await client.info({ type: 'validatorSummaries' })).body.map((v: { validator: string; power: number; signer: string | null }) => [v.validator, v.signer, v.power]), [
    [key.publicKey, B, 12],
    [own, null, 1],
  ], 'the registered validator joins with power 12 (the devnet keeps running on its own key)');
  const h = node.height;
  await until('blocks after the change', async () => node.height >= h + 3);

  t.same((await client.exchange(alice, { type: 'cWithdraw', wei: 3 * UNIT })).body, ok);
  t.same((await client.info({ type: 'delegatorSummary', user: A })).body, { delegated: '12', undelegated: '5', totalPendingWithdrawal: '3', nPendingWithdrawals: 1 });

  const spot = async () => JSON.stringify((await client.info({ type: 'spotClearinghouseState', user: A })).body);
  const before = await spot();
  const badWei = await client.exchange(alice, { type: 'cDeposit', wei: '5' });
  t.equal(badWei.status, 400);
  t.match(badWei.body, { message: /action.wei/ });
  const badValidator = await client.exchange(alice, { type: 'tokenDelegate', validator: 'node0', wei: UNIT, isUndelegate: false });
  t.equal(badValidator.status, 400);
  const tooMuch = await client.exchange(alice, { type: 'cWithdraw', wei: 100 * UNIT });
  t.same(tooMuch.body, { status: 'err', response: 'Insufficient balance: the undelegated staking balance is smaller' });
  t.equal(await spot(), before, 'refused requests move nothing');
  t.equal((await client.info({ type: 'delegatorSummary' })).status, 400, 'delegatorSummary needs a user');
});

t.test('svc keys --operator prints a registerValidator action the chain accepts', async (t) => {
  const home = await tempDir();
  t.teardown(() => rm(home, { recursive: true, force: true }));
  const genesis = devnetGenesis();
  await writeFile(join(home, 'genesis.json'), JSON.stringify(genesis));
  const lines = (await svc(['keys', '--home', home, '--operator', bob.address])).stdout.trim().split('\n');
  const action = JSON.parse(lines[lines.length - 1]!) as { type: string; pubKey: string; signature: string };
  t.equal(action.type, 'registerValidator');
  t.match(lines[0], action.pubKey, 'the home\'s validator key');
  t.ok(verifyEd25519(action.pubKey, registrationBytes(genesis.chainId, B, action.pubKey), action.signature), 'signed for the operator and chain');
  t.notOk(verifyEd25519(action.pubKey, registrationBytes(genesis.chainId, A, action.pubKey), action.signature), 'not for another operator');
  t.notOk(verifyEd25519(action.pubKey, utf8('x'), action.signature));
  await t.rejects(svc(['keys', '--home', home, '--operator', 'bob']), /--operator must be a 20-byte hex address/);
});
