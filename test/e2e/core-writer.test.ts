// Contracts that trade: a Solidity contract (compiled here with solc) sends exchange actions
// through the write system contract at 0x3333…3333 (HyperEVM's CoreWriter layout), signed with
// ethers and sent with eth_sendRawTransaction to a real node; it reads the exchange back through
// every read precompile (HyperEVM's addresses and layouts). Bad payloads, unknown ids and
// versions, sends of funds the contract lacks, and precompile calls of wrong length change
// nothing on the exchange, and never revert the EVM transaction. A replay of the stored blocks from
// the genesis state reaches the same state and app hashes.
import { createHash } from 'node:crypto';
import type { Contract} from 'ethers';
import { AbiCoder, ContractFactory, JsonRpcProvider, NonceManager, Wallet, concat, id, solidityPacked, type InterfaceAbi } from 'ethers';
import t from 'tap';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Exchange, snapshotState, stateHash } from '../../exchange/index.ts';
import { devnetGenesis, loadGenesis } from '../../genesis/index.ts';
import { ChainStoreForTests } from '../../node/index.ts';
import { startNode, tempDir, wallets, type Client } from '../support/node.ts';
import { waitFor } from '../support/network.ts';
import { compile } from '../support/solc.ts';

const SOURCE = `
pragma solidity ^0.8.20;
interface ICoreWriter { function sendRawAction(bytes calldata data) external; }
contract Token {
  mapping(address => uint256) public balanceOf;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(address holder, uint256 supply) { balanceOf[holder] = supply; emit Transfer(address(0), holder, supply); }
  function transfer(address to, uint256 value) external returns (bool) {
    require(balanceOf[msg.sender] >= value, "balance");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}
contract Trader {
  ICoreWriter constant CW = ICoreWriter(0x3333333333333333333333333333333333333333);
  struct Position { int64 szi; uint64 entryNtl; int64 isolatedRawUsd; uint32 leverage; bool isIsolated; }
  struct SpotBalance { uint64 total; uint64 hold; uint64 entryNtl; }
  struct UserVaultEquity { uint64 equity; uint64 lockedUntilTimestamp; }
  struct Delegation { address validator; uint64 amount; uint64 lockedUntilTimestamp; }
  struct DelegatorSummary { uint64 delegated; uint64 undelegated; uint64 totalPendingWithdrawal; uint64 nPendingWithdrawals; }
  struct PerpAssetInfo { string coin; uint32 marginTableId; uint8 szDecimals; uint8 maxLeverage; bool onlyIsolated; }
  struct SpotInfo { string name; uint64[2] tokens; }
  struct TokenInfo { string name; uint64[] spots; uint64 deployerTradingFeeShare; address deployer; address evmContract; uint8 szDecimals; uint8 weiDecimals; int8 evmExtraWeiDecimals; }
  struct Bbo { uint64 bid; uint64 ask; }
  struct AccountMarginSummary { int64 accountValue; uint64 marginUsed; uint64 ntlPos; int64 rawUsd; }

  function act(uint24 id, bytes memory args) internal { CW.sendRawAction(abi.encodePacked(uint8(1), id, args)); }
  function limitOrder(uint32 asset, bool isBuy, uint64 limitPx, uint64 sz, bool reduceOnly, uint8 tif, uint128 cloid) external {
    act(1, abi.encode(asset, isBuy, limitPx, sz, reduceOnly, tif, cloid));
  }
  function tokenDelegate(address validator, uint64 wei_, bool isUndelegate) external { act(3, abi.encode(validator, wei_, isUndelegate)); }
  function stakingDeposit(uint64 wei_) external { act(4, abi.encode(wei_)); }
  function spotSend(address destination, uint64 token, uint64 wei_) external { act(6, abi.encode(destination, token, wei_)); }
  function addApiWallet(address wallet, string calldata name) external { act(9, abi.encode(wallet, name)); }
  function cancelByOid(uint32 asset, uint64 oid) external { act(10, abi.encode(asset, oid)); }
  function cancelByCloid(uint32 asset, uint128 cloid) external { act(11, abi.encode(asset, cloid)); }
  function raw(bytes calldata data) external { CW.sendRawAction(data); }
  function erc20Transfer(address token, address to, uint256 value) external { require(Token(token).transfer(to, value), "transfer"); }
  /** Two orders in one transaction: the exchange runs them in log order. */
  function twoOrders(uint32 asset, uint64 px, uint64 sz) external {
    act(1, abi.encode(asset, true, px, sz, false, uint8(2), uint128(0)));
    act(1, abi.encode(asset, true, px, sz, false, uint8(2), uint128(0)));
  }

  function read(address a, bytes memory args) internal view returns (bytes memory) {
    (bool ok, bytes memory out) = a.staticcall(args);
    require(ok, "precompile failed");
    return out;
  }
  event PositionSeen(int64 szi, uint64 l1Block);
  /** Reads its position in a transaction (the precompiles during block execution) and logs it. */
  function recordPosition(uint16 perp) external {
    Position memory p = this.position(address(this), perp);
    emit PositionSeen(p.szi, this.l1BlockNumber());
  }
  function position(address user, uint16 perp) public view returns (Position memory) { return abi.decode(read(address(0x800), abi.encode(user, perp)), (Position)); }
  function spotBalance(address user, uint64 token) external view returns (SpotBalance memory) { return abi.decode(read(address(0x801), abi.encode(user, token)), (SpotBalance)); }
  function userVaultEquity(address user, address vault) external view returns (UserVaultEquity memory) { return abi.decode(read(address(0x802), abi.encode(user, vault)), (UserVaultEquity)); }
  function withdrawable(address user) external view returns (uint64) { return abi.decode(read(address(0x803), abi.encode(user)), (uint64)); }
  function delegations(address user) external view returns (Delegation[] memory) { return abi.decode(read(address(0x804), abi.encode(user)), (Delegation[])); }
  function delegatorSummary(address user) external view returns (DelegatorSummary memory) { return abi.decode(read(address(0x805), abi.encode(user)), (DelegatorSummary)); }
  function markPx(uint32 i) external view returns (uint64) { return abi.decode(read(address(0x806), abi.encode(i)), (uint64)); }
  function oraclePx(uint32 i) external view returns (uint64) { return abi.decode(read(address(0x807), abi.encode(i)), (uint64)); }
  function spotPx(uint32 i) external view returns (uint64) { return abi.decode(read(address(0x808), abi.encode(i)), (uint64)); }
  function l1BlockNumber() public view returns (uint64) { return abi.decode(read(address(0x809), ""), (uint64)); }
  function perpAssetInfo(uint32 i) external view returns (PerpAssetInfo memory) { return abi.decode(read(address(0x80a), abi.encode(i)), (PerpAssetInfo)); }
  function spotInfo(uint32 i) external view returns (SpotInfo memory) { return abi.decode(read(address(0x80b), abi.encode(i)), (SpotInfo)); }
  function tokenInfo(uint32 i) external view returns (TokenInfo memory) { return abi.decode(read(address(0x80c), abi.encode(i)), (TokenInfo)); }
  function bbo(uint32 asset) external view returns (Bbo memory) { return abi.decode(read(address(0x80e), abi.encode(asset)), (Bbo)); }
  function accountMarginSummary(uint32 dex, address user) external view returns (AccountMarginSummary memory) { return abi.decode(read(address(0x80f), abi.encode(dex, user)), (AccountMarginSummary)); }
  function coreUserExists(address user) external view returns (bool) { return abi.decode(read(address(0x810), abi.encode(user)), (bool)); }
  /** A precompile called with arbitrary input: whether it succeeded (a failed one consumes the gas given). */
  function probe(address a, bytes calldata input) external view returns (bool ok) { (ok, ) = a.staticcall{gas: 100000}(input); }
}`;

const USD = 100_000_000n; // 10^8: exchange USD and token units
const coder = AbiCoder.defaultAbiCoder();
const RAW_ACTION = id('RawAction(address,bytes)');

const HOUR_MS = 3_600_000;

/** An `exchangeStateOf` answer without the figures funding moves: USDC and the account value. */
function withoutUsdc(state: string): string {
  const [margin, spot, ...rest] = JSON.parse(state) as [{ totalMarginUsed: string; totalNtlPos: string }, { balances: { coin: string }[] }, ...unknown[]];
  return JSON.stringify([
    { totalMarginUsed: margin.totalMarginUsed, totalNtlPos: margin.totalNtlPos },
    { ...spot, balances: spot.balances.filter((b) => b.coin !== 'USDC') },
    ...rest,
  ]);
}

async function exchangeStateOf(client: Client, user: string): Promise<string> {
  return JSON.stringify([
    (await client.info({ type: 'clearinghouseState', user })).body.marginSummary,
    (await client.info({ type: 'spotClearinghouseState', user })).body,
    (await client.info({ type: 'openOrders', user })).body,
    (await client.info({ type: 'delegatorSummary', user })).body,
  ]);
}

t.test('a contract trades through the write system contract and reads the exchange back', async (t) => {
  const started = Date.now();
  const dataDir = await tempDir();
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const { node, client } = await startNode(t, { emptyBlockIntervalMs: 100, dataDir });
  const provider = new JsonRpcProvider(node.rpcUrl as string, undefined, { staticNetwork: true, batchMaxCount: 1, pollingInterval: 50 });
  t.teardown(() => provider.destroy());
  const [alice, bob, carol] = wallets as [Wallet, Wallet, Wallet];
  const signer = new NonceManager(alice.connect(provider));
  const { Trader, Token } = compile(SOURCE);
  const abi = Trader!.abi as InterfaceAbi;
  const deployed = await new ContractFactory(abi, Trader!.bytecode, signer).deploy();
  await deployed.waitForDeployment();
  const trader = deployed as Contract;
  const addr = (await trader.getAddress()).toLowerCase();
  const send = async (fn: string, ...args: unknown[]) => {
    const tx = await (trader.getFunction(fn) as (...a: unknown[]) => Promise<{ wait(): Promise<{ status: number; logs: { topics: string[]; address: string; data: string }[]; blockNumber: number; hash: string }> }>)(...args);
    return (await tx.wait());
  };
  const evmActions = async () => (await client.info({ type: 'evmActions', user: addr })).body as { actionId: number; result: { status: string; error?: { message: string } }; evmTxHash: string; block: number }[];
  const openOrders = async (user = addr) => (await client.info({ type: 'openOrders', user })).body as { oid: number; cloid?: string | null; coin: string }[];
  const exchangeState = () => exchangeStateOf(client, addr);

  t.equal(await provider.getCode('0x3333333333333333333333333333333333333333') !== '0x', true, 'the write system contract has code from genesis');
  t.equal(await trader.getFunction('coreUserExists')(addr), false, 'the contract has no exchange account yet');
  // Before its account exists, an action is refused (and the EVM transaction still succeeds).
  const early = await send('limitOrder', 0, true, 100_000n * USD, 1000_000n, false, 2, 0);
  t.equal(early.status, 1);
  const refused = await waitFor('the refused action', async () => (await evmActions())[0]);
  t.match(refused, { actionId: 1, result: { status: 'err', error: { message: 'Account not activated' } } });

  t.same((await client.exchange(alice, { type: 'usdTransfer', destination: addr, amount: '10000' })).body, { status: 'ok', response: { type: 'default' } });
  t.equal(await trader.getFunction('coreUserExists')(addr), true);

  // 1. A limit order from a contract: it rests, shows in openOrders, fills against a REST order.
  const cloid = 0x07n;
  const placed = await send('limitOrder', 0, true, 100_000n * USD, 1_000_000n, false, 2, cloid); // 0.01 BTC at 100,000
  t.equal(placed.status, 1, 'the EVM transaction succeeds');
  const log = placed.logs.find((l) => l.topics[0] === RAW_ACTION);
  t.ok(log, 'the receipt carries the RawAction log');
  t.equal(log?.address.toLowerCase(), '0x3333333333333333333333333333333333333333');
  t.equal(log?.topics[1], `0x${addr.slice(2).padStart(64, '0')}`, 'indexed user = the contract (msg.sender)');
  const resting = await waitFor('the order in openOrders', async () => (await openOrders()).find((o) => o.cloid === `0x${'0'.repeat(31)}7`));
  t.equal(resting.coin, 'BTC', 'the order rests on the book as the contract\'s');
  const record = (await evmActions()).at(-1);
  t.match(record, { actionId: 1, evmTxHash: placed.hash, block: placed.blockNumber, result: { status: 'ok', response: { type: 'order', data: { statuses: [{ resting: { oid: resting.oid } }] } } } });

  const fill = await client.exchange(bob, { type: 'order', orders: [{ a: 0, b: false, p: '100000', s: '0.01', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' });
  t.match(fill.body, { status: 'ok', response: { data: { statuses: [{ filled: { totalSz: '0.01' } }] } } }, 'a REST order fills against it');
  const fills = (await client.info({ type: 'userFills', user: addr })).body as { oid: number; side: string; sz: string }[];
  t.match(fills[0], { side: 'B', sz: '0.01', oid: resting.oid }, 'the contract\'s fill is in its userFills');
  const h = await provider.getBlockNumber();
  await waitFor('a later block', async () => (await provider.getBlockNumber()) > h);
  const pos = await trader.getFunction('position')(addr, 0);
  t.equal(pos.szi, 1000n, 'the contract reads its 0.01 BTC (1000 lots) through 0x…0800 in a later block');
  t.equal(pos.entryNtl, 1000n * USD, 'entry notional 1,000 USD in 10^-8');
  t.equal(pos.leverage, 20n);
  const seen = await send('recordPosition', 0);
  const event = trader.interface.parseLog(seen.logs.find((l) => l.address.toLowerCase() === addr)!);
  t.equal(event?.args.szi, 1000n, 'a transaction in a later block reads the fill through 0x…0800 as it executes');
  t.equal(event?.args.l1Block, BigInt(seen.blockNumber), 'and l1BlockNumber is its own block');

  // Two actions in one transaction run in log order; cancels by oid and by cloid.
  const two = await send('twoOrders', 0, 90_000n * USD, 100_000n);
  await waitFor('both orders', async () => (await evmActions()).filter((r) => r.evmTxHash === two.hash).length === 2);
  const btc = (await openOrders()).filter((o) => o.coin === 'BTC');
  t.equal(btc.length, 2);
  await send('cancelByOid', 0, btc[0]!.oid);
  await send('limitOrder', 0, true, 90_000n * USD, 100_000n, false, 1, 0x99n); // Alo
  await waitFor('the cloid order', async () => (await openOrders()).some((o) => o.cloid === `0x${'0'.repeat(30)}99`));
  await send('cancelByCloid', 0, 0x99n);
  await waitFor('cancels', async () => (await openOrders()).length === 1);
  t.equal((await openOrders())[0]!.oid, btc[1]!.oid, 'the cancel by oid and the cancel by cloid took their orders');

  // Spot send: USDC (token 10000) to another address, and SVC.
  const carolBefore = (await client.info({ type: 'clearinghouseState', user: carol.address.toLowerCase() })).body.marginSummary.accountValue;
  await send('spotSend', carol.address, 10000, 25n * USD);
  await waitFor('the USDC send', async () => (await client.info({ type: 'clearinghouseState', user: carol.address.toLowerCase() })).body.marginSummary.accountValue !== carolBefore);
  t.equal(Number((await client.info({ type: 'clearinghouseState', user: carol.address.toLowerCase() })).body.marginSummary.accountValue) - Number(carolBefore), 25, 'carol got 25 USDC from the contract');

  // Staking: SVC from alice, deposit and delegate to the devnet validator at its CometBFT address.
  t.same((await client.exchange(alice, { type: 'spotSend', destination: addr, token: 'SVC', amount: '50' })).body, { status: 'ok', response: { type: 'default' } });
  const validator = `0x${createHash('sha256').update(Buffer.from(node.validatorKey.publicKey, 'hex')).digest('hex').slice(0, 40)}`;
  await send('stakingDeposit', 20n * USD);
  await send('tokenDelegate', validator, 5n * USD, false);
  await waitFor('the delegation', async () => (await client.info({ type: 'delegatorSummary', user: addr })).body.delegated === '5');
  t.same((await client.info({ type: 'delegatorSummary', user: addr })).body, { delegated: '5', undelegated: '15', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });
  const delegations = await trader.getFunction('delegations')(addr);
  t.equal(delegations.length, 1);
  t.equal(delegations[0].validator.toLowerCase(), validator, 'delegations (0x…0804) names the validator by its address');
  t.equal(delegations[0].amount, 5n * USD);
  t.ok(delegations[0].lockedUntilTimestamp > 0n);
  const summary = await trader.getFunction('delegatorSummary')(addr);
  t.same([summary.delegated, summary.undelegated, summary.totalPendingWithdrawal, summary.nPendingWithdrawals], [5n * USD, 15n * USD, 0n, 0n], 'delegatorSummary (0x…0805)');

  // A linked token (LINK, 10002) between the contract's exchange balance and the EVM: a spot send
  // to its system address releases the ERC-20 to the contract; an ERC-20 transfer back is credited.
  const WEI = 10n ** 18n;
  const system = '0x2000000000000000000000000000000000002712';
  const tokenContract = await new ContractFactory(Token!.abi as InterfaceAbi, Token!.bytecode, signer).deploy(system, 1000n * WEI);
  await tokenContract.waitForDeployment();
  const tokenAddress = (await tokenContract.getAddress()).toLowerCase();
  const erc20 = tokenContract as Contract;
  t.match((await client.exchange(alice, { type: 'spotDeploy', deployType: 'token', tokenName: 'LINK', szDecimals: 2, weiDecimals: 18, initialSupply: '1000', evmContract: tokenAddress })).body, { status: 'ok' });
  t.same((await client.exchange(alice, { type: 'spotSend', destination: addr, token: 'LINK', amount: '100' })).body, { status: 'ok', response: { type: 'default' } });
  const linkOf = async (user: string) => ((await client.info({ type: 'spotClearinghouseState', user })).body.balances as { coin: string; total: string }[]).find((b) => b.coin === 'LINK')?.total;
  const released = await send('spotSend', system, 10002, 40n * USD);
  t.equal(await erc20.getFunction('balanceOf')(addr, { blockTag: released.blockNumber }), 0n, 'the action runs after its EVM block: nothing released in it');
  await waitFor('the release', async () => (await erc20.getFunction('balanceOf')(addr)) === 40n * WEI);
  t.equal(await erc20.getFunction('balanceOf')(addr, { blockTag: released.blockNumber + 1 }), 40n * WEI, 'the ERC-20 reached the contract in the EVM part of the next block');
  t.equal(await linkOf(addr), '60', '60 LINK left on the exchange');
  await send('erc20Transfer', tokenAddress, system, 15n * WEI);
  await waitFor('the credit', async () => (await linkOf(addr)) === '75');
  t.equal(await erc20.getFunction('balanceOf')(addr), 25n * WEI, '15 LINK back: 75 on the exchange, 25 on the EVM');
  t.equal(await erc20.getFunction('balanceOf')(system), (1000n - 25n) * WEI, 'the reserve holds the rest of the supply');

  // An API wallet (agent) added from the contract signs for it on /exchange.
  const agent = Wallet.createRandom();
  await send('addApiWallet', agent.address, 'bot');
  await waitFor('the agent', async () => ((await client.info({ type: 'extraAgents', user: addr })).body as { address: string }[]).some((a) => a.address === agent.address.toLowerCase()));
  t.pass('addApiWallet approved the agent');

  // 2. Every read precompile, against /info.
  const read = (fn: string, ...args: unknown[]) => trader.getFunction(fn)(...args);
  const ch = (await client.info({ type: 'clearinghouseState', user: addr })).body;
  const units = (s: string) => BigInt(Math.round(Number(s) * 1e8));
  t.equal(await read('withdrawable', addr), units(ch.withdrawable), 'withdrawable (0x…0803) = clearinghouseState.withdrawable');
  const ms = await read('accountMarginSummary', 0, addr);
  t.same([ms.accountValue, ms.marginUsed, ms.ntlPos, ms.rawUsd], [ch.marginSummary.accountValue, ch.marginSummary.totalMarginUsed, ch.marginSummary.totalNtlPos, ch.marginSummary.totalRawUsd].map(units), 'accountMarginSummary (0x…080f) = marginSummary');
  const vault = await read('userVaultEquity', addr, carol.address);
  t.same([vault.equity, vault.lockedUntilTimestamp], [0n, 0n], 'userVaultEquity (0x…0802): no vaults here, 0');
  const spotBal = await read('spotBalance', addr, 10001);
  t.equal(spotBal.total, 30n * USD, 'spotBalance (0x…0801): 50 SVC less the 20 staked');
  const ctxs = (await client.info({ type: 'metaAndAssetCtxs' })).body[1][0];
  t.equal(await read('markPx', 0), BigInt(Math.round(Number(ctxs.markPx) * 10)), 'markPx (0x…0806) in 10^-1 USD for BTC');
  t.equal(await read('oraclePx', 0), BigInt(Math.round(Number(ctxs.oraclePx) * 10)), 'oraclePx (0x…0807)');
  const spotCtx = (await client.info({ type: 'spotMetaAndAssetCtxs' })).body[1][0];
  t.equal(await read('spotPx', 0), BigInt(Math.round(Number(spotCtx.markPx) * 1e6)), 'spotPx (0x…0808) of SVC/USDC in 10^-6 (8 - szDecimals 2)');
  const below = BigInt(await provider.getBlockNumber());
  const l1 = await read('l1BlockNumber');
  // Calls at latest read the live exchange, which may be a block or two past the durable height while those are written.
  t.ok(l1 >= below && l1 <= BigInt(node.chain.head().height), 'l1BlockNumber (0x…0809) is the exchange height');
  const perp = await read('perpAssetInfo', 1);
  t.same([perp.coin, perp.marginTableId, perp.szDecimals, perp.maxLeverage, perp.onlyIsolated], ['ETH', 50n, 4n, 50n, false], 'perpAssetInfo (0x…080a)');
  const spot = await read('spotInfo', 0);
  t.same([spot.name, spot.tokens[0], spot.tokens[1]], ['SVC-USDC', 10001n, 10000n], 'spotInfo (0x…080b)');
  const token = await read('tokenInfo', 10001);
  t.same([token.name, [...token.spots], token.szDecimals, token.weiDecimals, token.evmExtraWeiDecimals], ['SVC', [0n], 2n, 18n, 0n], 'tokenInfo (0x…080c)');
  const book = (await client.info({ type: 'l2Book', coin: 'BTC' })).body.levels;
  const bbo = await read('bbo', 0);
  t.same([bbo.bid, bbo.ask], [book[0][0] ? BigInt(Math.round(Number(book[0][0].px) * 10)) : 0n, book[1][0] ? BigInt(Math.round(Number(book[1][0].px) * 10)) : 0n], 'bbo (0x…080e) = the l2Book tops');
  t.equal(bbo.bid, 900_000n, 'the contract\'s own resting bid at 90,000');

  // An older block: market figures from the window; account figures refused with a message.
  const older = (await provider.getBlockNumber()) - 2;
  t.ok(await trader.getFunction('markPx')(0, { blockTag: older }) > 0n, 'markPx at an older block answers from the window');
  const rpcError = async (to: string, data: string, block: number) => {
    const res = await fetch(node.rpcUrl as string, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to, data }, `0x${block.toString(16)}`] }) });
    return ((await res.json()) as { error?: { code: number; message: string } }).error;
  };
  const gone = await rpcError(addr, trader.interface.encodeFunctionData('position', [addr, 0]), older);
  t.match(gone, { code: -32000, message: /account figures of exchange block \d+ are not kept/ }, 'account figures at an older block fail the call with the reason');

  // 6. Bad input changes nothing on the exchange and never reverts the EVM transaction.
  // (Block times trail the clock a little: a funding boundary just before this is counted as crossed.)
  const beforeAt = Date.now() - 5_000;
  const before = await exchangeState();
  const nActions = (await evmActions()).length;
  const order = coder.encode(['uint32', 'bool', 'uint64', 'uint64', 'bool', 'uint8', 'uint128'], [0, true, 90_000n * USD, 100_000n, false, 2, 0]);
  const bad: [string, string, RegExp][] = [
    ['version 2', solidityPacked(['uint8', 'uint24', 'bytes'], [2, 1, order]), /unknown payload version 2/],
    ['unknown action id', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 99, order]), /unknown action id 99/],
    ['too short', '0x0100', /less than the 4/],
    ['truncated arguments', concat([solidityPacked(['uint8', 'uint24'], [1, 1]), order.slice(0, 100)]), /malformed arguments of action 1/],
    ['uint32 out of range', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 10, coder.encode(['uint256', 'uint64'], [1n << 40n, 1])]), /does not fit a uint32/],
    ['bad tif', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 1, coder.encode(['uint32', 'bool', 'uint64', 'uint64', 'bool', 'uint8', 'uint128'], [0, true, 90_000n * USD, 100_000n, false, 7, 0])]), /encodedTif 7/],
    ['more USDC than it has', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 6, coder.encode(['address', 'uint64', 'uint64'], [carol.address, 10000, 1_000_000n * USD])]), /Insufficient balance/i],
    ['more SVC than it has', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 6, coder.encode(['address', 'uint64', 'uint64'], [carol.address, 10001, 1000n * USD])]), /free balance/],
    ['unknown token', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 6, coder.encode(['address', 'uint64', 'uint64'], [carol.address, 10077, 1n])]), /token 10077 is not listed/],
    ['stake more than it has', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 4, coder.encode(['uint64'], [1000n * USD])]), /./],
    ['an order beyond its margin', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 1, coder.encode(['uint32', 'bool', 'uint64', 'uint64', 'bool', 'uint8', 'uint128'], [0, true, 90_000n * USD, 10n * USD, false, 2, 0])]), /Insufficient margin/],
    ['usdClassTransfer', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 7, coder.encode(['uint64', 'bool'], [1_000_000n, true])]), /share one USDC balance/],
    ['vault transfer', solidityPacked(['uint8', 'uint24', 'bytes'], [1, 2, coder.encode(['address', 'bool', 'uint64'], [carol.address, true, 1_000_000n])]), /vaults do not exist/],
  ];
  const receipts = await Promise.all(bad.map(([, payload]) => send('raw', payload)));
  receipts.forEach((r, i) => t.equal(r.status, 1, `${bad[i]![0]}: the EVM transaction succeeds`));
  const all = await waitFor('the refusals', async () => {
    const list = await evmActions();
    return list.length >= nActions + bad.length ? list.slice(nActions) : undefined;
  });
  // In the order the transactions were mined (the log order of the blocks).
  const results = receipts.map((r) => all.find((a) => a.evmTxHash === r.hash));
  bad.forEach(([what, , message], i) => {
    // An order's refusal is its status, as on /exchange; any other action's is the result's error.
    const r = results[i]?.result as { status: string; error?: { message: string }; response?: { data: { statuses: { error?: string }[] } } };
    const error = r.status === 'err' ? r.error?.message : r.response?.data.statuses[0]?.error;
    t.ok(error !== undefined, `${what}: refused`);
    t.match(error, message, `${what}: ${error}`);
  });
  // Precompile calls of wrong length fail (consuming the gas given) and read nothing.
  for (const [a, input] of [['0x0000000000000000000000000000000000000800', '0x1234'], ['0x0000000000000000000000000000000000000803', '0x'], ['0x0000000000000000000000000000000000000809', '0x00'], ['0x000000000000000000000000000000000000080c', coder.encode(['uint256'], [1n << 33n])]] as const) {
    t.equal(await trader.getFunction('probe')(a, input), false, `${a} with ${input.length / 2 - 1} bytes fails`);
  }
  // Value sent to the write system contract, or an unknown selector, reverts there.
  const viaValue = await signer.sendTransaction({ to: '0x3333333333333333333333333333333333333333', value: 1n, data: concat(['0x17938e13', coder.encode(['bytes'], ['0x01000004'])]), gasLimit: 100_000 }).then((tx) => tx.wait()).catch((e: { receipt?: { status: number } }) => e.receipt);
  t.equal(viaValue?.status, 0, 'the write system contract is not payable');
  const after = await exchangeState();
  // The hourly funding of the contract's BTC position moves its USDC; nothing else may move.
  if (Math.floor(beforeAt / HOUR_MS) === Math.floor(Date.now() / HOUR_MS)) t.equal(after, before, 'nothing changed on the exchange');
  else t.equal(withoutUsdc(after), withoutUsdc(before), 'nothing changed on the exchange but the funding of the hour that began');

  // Replay: the node restarted from the genesis state re-runs every block from the stored blocks,
  // the actions from the stored EVM receipts, and must reach the recorded app hash of each block.
  const fillsOf = async (c: typeof client) => JSON.stringify((await c.info({ type: 'userFills', user: addr })).body);
  const recorded = [await exchangeState(), await fillsOf(client), JSON.stringify(await evmActions())];
  await node.stop();
  const g = loadGenesis(devnetGenesis());
  const genesisExchange = Exchange.fromGenesis(g.exchange, g.balances, g.file.genesisTime);
  const store = new ChainStoreForTests(join(dataDir, 'db'));
  await store.open();
  await store.putSnapshot({ head: { height: 0, hash: g.hash, time: g.file.genesisTime, appHash: stateHash(genesisExchange.state), fillSeq: 0 }, state: snapshotState(genesisExchange.state) });
  await store.close();
  const again = await startNode(t, { emptyBlockIntervalMs: 100, dataDir });
  const replayed = [await exchangeStateOf(again.client, addr), await fillsOf(again.client), JSON.stringify((await again.client.info({ type: 'evmActions', user: addr })).body)];
  t.equal(replayed[0], recorded[0], 'replayed from genesis: the same exchange state (app hashes checked block by block)');
  t.equal(replayed[1], recorded[1], 'the same fills');
  t.equal(replayed[2], recorded[2], 'and the same action results, rebuilt from the stored receipts');
  t.comment(`core-writer e2e: ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
