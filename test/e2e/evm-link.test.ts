// A spot token linked to an ERC-20 on the embedded EVM, against a real node: spotSend to the
// token's system address releases it on the EVM, an ERC-20 transfer to the system address credits
// it on the exchange, and a seeded random sequence of moves both ways keeps the supply conserved
// on both sides; a release the EVM cannot make is refunded.
import fc from 'fast-check';
import t from 'tap';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type TransactionReceipt } from 'ethers';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { systemAddress } from '../../exchange/index.ts';
import { startNode, type Client } from '../support/node.ts';
import { compile } from '../support/solc.ts';
import { replaySeed } from '../support/seed.ts';

const SOURCE = `
pragma solidity ^0.8.20;
contract Token {
  mapping(address => uint256) public balanceOf;
  uint256 public totalSupply;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(address holder, uint256 supply) { balanceOf[holder] = supply; totalSupply = supply; emit Transfer(address(0), holder, supply); }
  function decimals() external pure returns (uint8) { return 18; }
  function transfer(address to, uint256 value) external returns (bool) {
    require(balanceOf[msg.sender] >= value, "balance");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}`;

const WEI = 10n ** 18n;
const TOKEN = 10002;
const SYSTEM = systemAddress(TOKEN);

/** A decimal string of `cents` hundredths. */
const dec = (cents: bigint) => `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;

async function exchangeCents(client: Client, user: string, coin = 'LINK'): Promise<bigint> {
  const balances = (await client.info({ type: 'spotClearinghouseState', user })).body.balances as { coin: string; total: string }[];
  const total = balances.find((b) => b.coin === coin)?.total ?? '0';
  const [whole, frac = ''] = total.split('.');
  return BigInt(whole as string) * 100n + BigInt((frac + '00').slice(0, 2));
}

t.test('a linked token moves between the exchange and the EVM with supply conserved', async (t) => {
  const { node, client } = await startNode(t, { emptyBlockIntervalMs: 200 });
  const provider = new JsonRpcProvider(node.rpcUrl as string, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 });
  t.teardown(() => provider.destroy());
  const evmWallets = [0, 1].map((i) => new Wallet(DEV_ACCOUNTS[i]!.privateKey, provider));
  const exWallets = [0, 1].map((i) => new Wallet(DEV_ACCOUNTS[i]!.privateKey));
  const users = exWallets.map((w) => w.address.toLowerCase());

  // The ERC-20's whole supply is minted to the system address: the reserve the exchange releases from.
  const { Token } = compile(SOURCE);
  const deployed = await new ContractFactory(Token!.abi as never, Token!.bytecode, evmWallets[0]).deploy(SYSTEM, 1_000_000n * WEI);
  await deployed.waitForDeployment();
  const address = (await deployed.getAddress()).toLowerCase();
  const erc20 = (i: number) => new Contract(address, Token!.abi as never, evmWallets[i]);
  const onEvm = async (who: string) => (await erc20(0).getFunction('balanceOf')(who)) as bigint;

  const listed = await client.exchange(exWallets[0]!, { type: 'spotDeploy', deployType: 'token', tokenName: 'LINK', szDecimals: 2, weiDecimals: 18, initialSupply: '1000000', evmContract: address });
  t.match(listed.body, { status: 'ok', response: { data: { tokenIndex: TOKEN } } });
  t.match((await client.info({ type: 'spotMeta' })).body.tokens[2], { name: 'LINK', evmContract: { address, evm_extra_wei_decimals: 0 } });

  // Exchange -> EVM: spotSend to the system address; the ERC-20 is in the wallet when the answer comes.
  const sent = await client.exchange(exWallets[0]!, { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: '250.5' });
  t.same(sent.body, { status: 'ok', response: { type: 'default' } });
  t.equal(await exchangeCents(client, users[0]!), 99_974_950n, '1,000,000 - 250.5 on the exchange');
  t.equal(await onEvm(users[0]!), 2505n * WEI / 10n, '250.5 on the EVM');
  t.equal(await onEvm(SYSTEM), 1_000_000n * WEI - 2505n * WEI / 10n, 'out of the reserve');

  // EVM -> exchange: an ERC-20 transfer to the system address is credited after its block.
  const back = await erc20(0).getFunction('transfer')(SYSTEM, 100n * WEI);
  t.equal(((await back.wait()) as TransactionReceipt).status, 1);
  t.equal(await exchangeCents(client, users[0]!), 99_984_950n, '100 back on the exchange');
  t.equal(await onEvm(users[0]!), 1505n * WEI / 10n);

  // Refusals: another token's system address, an unlinked token, more than the free balance.
  t.match((await client.exchange(exWallets[0]!, { type: 'spotSend', destination: systemAddress(10001), token: 'LINK', amount: '1' })).body, { status: 'err', response: /^Invalid destination: .* is the system address of token 10001, not of LINK/ });
  t.match((await client.exchange(exWallets[0]!, { type: 'spotSend', destination: systemAddress(10001), token: 'SVC', amount: '1' })).body, { status: 'err', response: 'Invalid destination: SVC is not linked to an EVM contract' });
  t.match((await client.exchange(exWallets[1]!, { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: '1' })).body, { status: 'err', response: /^Insufficient spot balance/ });

  // Seeded random moves both ways between two users; after each, both sides' supplies hold.
  const seed = replaySeed(t, 20261125);
  const move = fc.record({ user: fc.integer({ min: 0, max: 1 }), kind: fc.constantFrom('toEvm', 'toExchange', 'send'), cents: fc.integer({ min: 1, max: 2_000_000 }) });
  const moves = fc.sample(fc.array(move, { minLength: 8, maxLength: 8 }), { seed, numRuns: 1 })[0]!;
  const total = 100_000_000n; // 1,000,000.00 LINK in cents
  let moved = 0;
  for (const m of moves) {
    const before = await onEvm(SYSTEM);
    const beforeB = await exchangeCents(client, users[1]!);
    const u = users[m.user]!;
    const cents = BigInt(m.cents);
    if (m.kind === 'toEvm') {
      await client.exchange(exWallets[m.user]!, { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: dec(cents) });
    } else if (m.kind === 'send') {
      await client.exchange(exWallets[m.user]!, { type: 'spotSend', destination: users[1 - m.user], token: 'LINK', amount: dec(cents) });
    } else {
      const held = await onEvm(u);
      const wei = cents * WEI / 100n;
      if (held >= wei) await ((await erc20(m.user).getFunction('transfer')(SYSTEM, wei)).wait());
    }
    const exchangeHeld = (await exchangeCents(client, users[0]!)) + (await exchangeCents(client, users[1]!));
    const evmHeld = (await onEvm(users[0]!)) + (await onEvm(users[1]!));
    if (evmHeld % (WEI / 100n) !== 0n) throw new Error('EVM holdings below a cent');
    t.equal(exchangeHeld + evmHeld / (WEI / 100n), total, `${JSON.stringify(m)}: user holdings across both sides are 1,000,000`);
    t.equal(await onEvm(SYSTEM) + evmHeld, 1_000_000n * WEI, 'ERC-20: reserve + holders = total supply');
    if (await onEvm(SYSTEM) !== before || (await exchangeCents(client, users[1]!)) !== beforeB) moved++;
  }
  t.ok(moved >= 3, `${moved} of ${moves.length} moves changed holdings`);
});

t.test('a release the EVM cannot make is refunded in the same block', async (t) => {
  const { client } = await startNode(t);
  const alice = new Wallet(DEV_ACCOUNTS[0]!.privateKey);
  const user = alice.address.toLowerCase();
  // Linked to an address without code: the ERC-20 transfer cannot happen.
  await client.exchange(alice, { type: 'spotDeploy', deployType: 'token', tokenName: 'GHOST', szDecimals: 0, weiDecimals: 18, initialSupply: '50', evmContract: '0x000000000000000000000000000000000000dead' });
  const sent = await client.exchange(alice, { type: 'spotSend', destination: systemAddress(TOKEN), token: 'GHOST', amount: '20' });
  t.same(sent.body, { status: 'ok', response: { type: 'default' } });
  t.equal(await exchangeCents(client, user, 'GHOST'), 5000n, 'all 50 back on the exchange');
  const [, ctxs] = (await client.info({ type: 'spotMetaAndAssetCtxs' })).body;
  t.equal(ctxs.length, 1, 'no pair for GHOST: its supply shows through the balances only');
});
