// The signed order flow the node benchmarks send: devnet accounts signing through the client
// (client/: the action binding, native secp256k1 through primitives/), and a market-making mix
// in cycles of ten actions.
import { PrivateKeySigner, requestDigest, type Signature } from '../client/index.ts';
import { DEV_ACCOUNTS } from '../genesis/index.ts';

export interface FlowAccount {
  readonly signer: PrivateKeySigner;
  /** The last nonce used: each request takes max(last + 1, the time it is sent). */
  nonce: number;
}

/** Devnet accounts `from` .. `from + count - 1`. */
export function flowAccounts(from: number, count: number): FlowAccount[] {
  return DEV_ACCOUNTS.slice(from, from + count).map((a) => ({ signer: new PrivateKeySigner(a.privateKey), nonce: 0 }));
}

/** Signs an action for the devnet (chain 42069) as an `/exchange` request body, synchronously. */
export function orderSigner(): (acct: FlowAccount, action: unknown, at?: number) => { action: unknown; nonce: number; signature: Signature } {
  // `at`: when the action will be sent (signed ahead of time), so its nonce is near that time.
  return (acct, action, at = Date.now()) => {
    const nonce = (acct.nonce = Math.max(acct.nonce + 1, Math.floor(at)));
    return { action, nonce, signature: acct.signer.signDigest(requestDigest(action, nonce, null)) };
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
