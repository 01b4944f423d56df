// The dialect's signature checks against vectors made by Hyperliquid's own SDKs: hashes and
// signatures produced here by @nktkas/hyperliquid, and the published vectors of the Python SDK.
import * as hl from '@nktkas/hyperliquid/api/exchange';
import { canonicalize, createL1ActionHash, signL1Action, signUserSignedAction } from '@nktkas/hyperliquid/signing';
import t from 'tap';
import { privateKeyToAccount } from 'viem/accounts';
import { hyperliquidCandidates, l1ActionHash } from '../../exchange/index.ts';
import { bytesToHex } from '../../primitives/index.ts';

const wallet = privateKeyToAccount('0x0123456789012345678901234567890123456789012345678901234567890123');
const ME = wallet.address.toLowerCase();
const BOTH = { chains: ['Mainnet', 'Testnet'] as ('Mainnet' | 'Testnet')[] };
const VAULT = '0x1d9470d4b963f552e6f671a81619d395877bf409';

/** L1 actions as the SDK builds them (canonical key order from its schemas), with awkward numbers. */
const L1: [string, Record<string, unknown>][] = [
  ['OrderRequest', { type: 'order', orders: [
    { a: 0, b: true, p: '95000', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } }, c: '0x0000000000000000000000000000abcd' },
    { a: 10000, b: false, p: '1.2345', s: '100', r: true, t: { trigger: { isMarket: true, triggerPx: '1.1', tpsl: 'sl' } } },
  ], grouping: 'normalTpsl', builder: { b: '0x6530512a6c89c7cfcebc3ba7fcd9ada5f30827a6', f: 10 } }],
  ['CancelRequest', { type: 'cancel', cancels: [{ a: 1, o: 4_294_967_297 }] }],
  ['CancelByCloidRequest', { type: 'cancelByCloid', cancels: [{ asset: 2, cloid: '0x0000000000000000000000000000abcd' }] }],
  ['ModifyRequest', { type: 'modify', oid: 12, order: { a: 0, b: true, p: '1', s: '2', r: false, t: { limit: { tif: 'Alo' } } } }],
  ['BatchModifyRequest', { type: 'batchModify', modifies: [{ oid: '0x0000000000000000000000000000abcd', order: { a: 0, b: false, p: '3', s: '4', r: false, t: { limit: { tif: 'Ioc' } } } }] }],
  ['ScheduleCancelRequest', { type: 'scheduleCancel', time: 1_700_000_000_000 }],
  ['UpdateLeverageRequest', { type: 'updateLeverage', asset: 3, isCross: false, leverage: 20 }],
  ['UpdateIsolatedMarginRequest', { type: 'updateIsolatedMargin', asset: 0, isBuy: true, ntli: -3_000_000_000 }],
  ['NoopRequest', { type: 'noop' }],
  ['SetReferrerRequest', { type: 'setReferrer', code: 'ALICE' }],
  ['CreateSubAccountRequest', { type: 'createSubAccount', name: 'sub one' }],
  ['SubAccountTransferRequest', { type: 'subAccountTransfer', subAccountUser: VAULT, isDeposit: true, usd: 2_500_000 }],
];

t.test('L1 action hashes equal the SDK\'s, with and without vault and expiry', async (t) => {
  for (const [schema, raw] of L1) {
    const req = (hl as unknown as Record<string, { entries: { action: never } }>)[schema];
    const action = canonicalize(req!.entries.action, raw) as Record<string, unknown>;
    for (const [vault, expires] of [[null, null], [VAULT, null], [null, 1_800_000_000_000], [VAULT, 5]] as const) {
      const theirs = createL1ActionHash({ action, nonce: 1_700_000_000_123, ...(vault ? { vaultAddress: vault } : {}), ...(expires !== null ? { expiresAfter: expires } : {}) });
      t.equal(bytesToHex(l1ActionHash(action, 1_700_000_000_123, vault, expires)), theirs, `${raw.type} vault=${vault} expires=${expires}`);
    }
  }
});

t.test('an L1 signature recovers to the signer under its chain', async (t) => {
  const action = { type: 'cancel', cancels: [{ a: 0, o: 1 }] };
  for (const isTestnet of [false, true]) {
    const signature = await signL1Action({ wallet, action, nonce: 7, isTestnet, vaultAddress: VAULT, expiresAfter: 9 });
    const req = { action, nonce: 7, vaultAddress: VAULT, expiresAfter: 9, signature };
    t.ok(hyperliquidCandidates(BOTH, req).includes(ME), `isTestnet=${isTestnet}`);
    t.notOk(hyperliquidCandidates({ chains: [isTestnet ? 'Mainnet' : 'Testnet'] }, req).includes(ME), 'not under the other chain alone');
    t.notOk(hyperliquidCandidates(BOTH, { ...req, expiresAfter: null }).includes(ME), 'the expiry is signed');
    t.notOk(hyperliquidCandidates(BOTH, { ...req, vaultAddress: null }).includes(ME), 'the vault is signed');
    t.same(hyperliquidCandidates(null, req), [], 'nothing when the genesis refuses the dialect');
  }
});

/** User-signed actions the dialect accepts, as the SDK builds them (its EIP-712 types). */
const USER_SIGNED: [keyof typeof hl, Record<string, unknown>][] = [
  ['UsdSendTypes', { type: 'usdSend', destination: VAULT, amount: '12.5', time: 1_700_000_000_000 }],
  ['SpotSendTypes', { type: 'spotSend', destination: VAULT, token: 'SVC:0x00000000000000000000000000000001', amount: '3', time: 1_700_000_000_000 }],
  ['Withdraw3Types', { type: 'withdraw3', destination: VAULT, amount: '5', time: 1_700_000_000_000 }],
  ['UsdClassTransferTypes', { type: 'usdClassTransfer', amount: '1', toPerp: true, nonce: 1_700_000_000_000 }],
  ['SendAssetTypes', { type: 'sendAsset', destination: VAULT, sourceDex: '', destinationDex: 'spot', token: 'USDC:0x6d1e7cde53ba9467b783cb7c530ce054', amount: '1', fromSubAccount: '', nonce: 1_700_000_000_000 }],
  ['ApproveAgentTypes', { type: 'approveAgent', agentAddress: VAULT, agentName: 'bot valid_until 1800000000000', nonce: 1_700_000_000_000 }],
  ['ApproveBuilderFeeTypes', { type: 'approveBuilderFee', maxFeeRate: '0.01%', builder: VAULT, nonce: 1_700_000_000_000 }],
  ['TokenDelegateTypes', { type: 'tokenDelegate', validator: VAULT, wei: 100_000_000, isUndelegate: false, nonce: 1_700_000_000_000 }],
  ['CDepositTypes', { type: 'cDeposit', wei: 100_000_000, nonce: 1_700_000_000_000 }],
  ['CWithdrawTypes', { type: 'cWithdraw', wei: 100_000_000, nonce: 1_700_000_000_000 }],
];

t.test('user-signed actions recover under the SDK\'s own typed data', async (t) => {
  for (const [types, raw] of USER_SIGNED) {
    for (const [chain, chainId] of [['Mainnet', '0xa4b1'], ['Testnet', '0x66eee']] as const) {
      const { type, ...rest } = raw;
      const action = { type, signatureChainId: chainId, hyperliquidChain: chain, ...rest };
      const signature = await signUserSignedAction({ wallet, action: action as never, types: hl[types] as never });
      const nonce = (raw.time ?? raw.nonce) as number;
      t.same(hyperliquidCandidates(BOTH, { action, nonce, vaultAddress: null, expiresAfter: null, signature }), [ME], `${type} ${chain}`);
      t.same(hyperliquidCandidates({ chains: [chain === 'Mainnet' ? 'Testnet' : 'Mainnet'] }, { action, nonce, vaultAddress: null, expiresAfter: null, signature }), [], `${type}: ${chain} refused when not allowed`);
      const tampered = { ...action, hyperliquidChain: chain, signatureChainId: '0x1' };
      t.notSame(hyperliquidCandidates(BOTH, { action: tampered, nonce, vaultAddress: null, expiresAfter: null, signature }), [ME], `${type}: the signature chain id is signed`);
    }
  }
});

t.test('published vectors of the Python SDK (tests/signing_test.py)', async (t) => {
  // connectionId of an Ioc order on asset 4, sz 0.0147 px 1670.1, nonce 1677777606040.
  const order = { type: 'order', orders: [{ a: 4, b: true, p: '1670.1', s: '0.0147', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' };
  t.equal(bytesToHex(l1ActionHash(order, 1_677_777_606_040, null, null)), '0x0fcbeda5ae3c4950a548021552a4fea2226858c4453571bf3f24ba017eac2908');
  // usdSend on Testnet, signatureChainId 0x66eee: the signature the Python SDK publishes recovers to its key.
  const usd = { type: 'usdSend', signatureChainId: '0x66eee', hyperliquidChain: 'Testnet', destination: '0x5e9ee1089755c3435139848e47e6635505d5a13a', amount: '1', time: 1_687_816_341_423 };
  const signature = await signUserSignedAction({ wallet, action: usd as never, types: hl.UsdSendTypes as never });
  t.match(signature, { r: /^0x637b37dd/, s: /^0x11a6a249/, v: 27 });
  t.same(hyperliquidCandidates(BOTH, { action: usd, nonce: usd.time, vaultAddress: null, expiresAfter: null, signature }), [ME]);
});

t.test('r and s printed without leading zeros (ccxt, the Python SDK) recover the same signer', async (t) => {
  const action = { type: 'noop' };
  let nonce = 1_700_000_000_000;
  let signature = await signL1Action({ wallet, action, nonce });
  while (!signature.r.startsWith('0x0')) signature = await signL1Action({ wallet, action, nonce: ++nonce });
  const stripped = { ...signature, r: `0x${signature.r.slice(2).replace(/^0+/, '')}` };
  t.ok(stripped.r.length < 66);
  t.ok(hyperliquidCandidates(BOTH, { action, nonce, vaultAddress: null, expiresAfter: null, signature: stripped }).includes(ME));
  t.same(hyperliquidCandidates(BOTH, { action, nonce, vaultAddress: null, expiresAfter: null, signature: { ...signature, r: `0x${'0'.repeat(65)}1` } }).includes(ME), false, 'more than 32 bytes: refused');
});
