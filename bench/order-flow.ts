// The signed order flow the node benchmarks send: devnet accounts signing with native secp256k1
// (the action binding), and a market-making mix in cycles of ten actions.
import { createRequire } from 'node:module';
import { actionConnectionId, exchangeDomain } from '../exchange/index.ts';
import { DEV_ACCOUNTS } from '../genesis/index.ts';
import { agentDigest, bytesToHex, domainSeparator, hexToBytes } from '../primitives/index.ts';

export interface FlowAccount {
  readonly key: Uint8Array;
  /** The last nonce used: each request takes max(last + 1, the time it is sent). */
  nonce: number;
}

interface NativeSign {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

/** Devnet accounts `from` .. `from + count - 1`. */
export function flowAccounts(from: number, count: number): FlowAccount[] {
  return DEV_ACCOUNTS.slice(from, from + count).map((a) => ({ key: hexToBytes(a.privateKey), nonce: 0 }));
}

/** Signs an action for the devnet (chain 42069) as an `/exchange` request body. */
export function orderSigner(): (acct: FlowAccount, action: unknown, at?: number) => { action: unknown; nonce: number; signature: { r: string; s: string; v: number } } {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSign;
  const sep = domainSeparator(exchangeDomain(42069));
  // `at`: when the action will be sent (signed ahead of time), so its nonce is near that time.
  return (acct, action, at = Date.now()) => {
    const nonce = (acct.nonce = Math.max(acct.nonce + 1, Math.floor(at)));
    const { signature, recid } = native.ecdsaSign(agentDigest(sep, 'b', actionConnectionId(action, nonce, null)), acct.key);
    return { action, nonce, signature: { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), v: 27 + recid } };
  };
}

/**
 * The account and action of the flow's action `k`, on BTC. Cycles of ten: four quotes (two bids,
 * two asks just off the mid, each with a cloid), four cancels (by cloid) of the previous cycle's
 * quotes, and two takers (an Ioc sell, then an Ioc buy) that trade against this cycle's quotes.
 * So a fifth of the actions trade, the book stays small, and over cycles each account makes and
 * takes on both sides, keeping positions near flat. `cloidBase` keeps concurrent flows' cloids apart.
 */
export function marketMakingAction(k: number, accounts: readonly FlowAccount[], cloidBase: number): { acct: FlowAccount; action: unknown } {
  const n = accounts.length;
  const cycle = Math.floor(k / 10);
  const slot = k % 10;
  const cloid = (c: number, s: number) => `0x${(cloidBase + c * 10 + s).toString(16).padStart(32, '0')}`;
  const order = (isBuy: boolean, px: number, tif: 'Gtc' | 'Ioc', c?: string) => ({
    type: 'order', orders: [{ a: 0, b: isBuy, p: String(px), s: '0.001', r: false, t: { limit: { tif } }, ...(c === undefined ? {} : { c }) }], grouping: 'na',
  });
  if (slot < 4) {
    const isBuy = slot < 2;
    const px = isBuy ? 99990 - (slot % 2) * 10 : 100010 + (slot % 2) * 10;
    return { acct: accounts[cycle % n] as FlowAccount, action: order(isBuy, px, 'Gtc', cloid(cycle, slot)) };
  }
  if (slot < 8) {
    const prev = Math.max(0, cycle - 1); // the first cycle cancels its own quotes
    return { acct: accounts[prev % n] as FlowAccount, action: { type: 'cancelByCloid', cancels: [{ asset: 0, cloid: cloid(prev, slot - 4) }] } };
  }
  const taker = accounts[(cycle + 1) % n] as FlowAccount;
  return { acct: taker, action: slot === 8 ? order(false, 99000, 'Ioc') : order(true, 101000, 'Ioc') };
}
