// GET /v1/addresses/:address/subaccountNumber/:n (dYdX v4 indexer's subaccount shape).
// Subaccount 0 is the address itself; n >= 1 is its n-th sub-account in creation order.
import { USDC_TOKEN_INDEX } from '../../exchange/index.ts';
import type { Address } from '../../primitives/index.ts';
import type { NodeApi } from '../api.ts';
import { HttpError } from '../http-errors.ts';
import { addressText, intText } from './query.ts';

/** Largest subaccount number accepted (dYdX's bound); numbers beyond an address's sub-accounts are 404. */
export const SUBACCOUNT_NUMBER_MAX = 128_000;

export function subaccountNumber(raw: string): number {
  return intText(raw, 'subaccountNumber', 0, SUBACCOUNT_NUMBER_MAX);
}

/** The account behind (address, n), or a 404 naming both. */
export function subaccountAddress(api: NodeApi, address: Address, n: number): Address {
  const missing = () => new HttpError('not_found', `No subaccount found with address ${address} and subaccountNumber ${n}`);
  if (!api.hasAccount(address)) throw missing();
  if (n === 0) return address;
  const sub = api.subAccounts(address)[n - 1];
  if (sub === undefined) throw missing();
  return sub.subAccountUser;
}

/** A decimal string with its sign flipped. */
const negate = (s: string) => (s === '0' ? s : s.startsWith('-') ? s.slice(1) : `-${s}`);

export function subaccount(api: NodeApi, rawAddress: string, rawNumber: string) {
  const address = addressText(rawAddress, 'address');
  const n = subaccountNumber(rawNumber);
  const user = subaccountAddress(api, address, n);
  const head = api.head();
  const ch = api.clearinghouseState(user);
  const openPerpetualPositions: Record<string, unknown> = {};
  for (const { position: p } of ch.assetPositions) {
    const ticker = `${p.coin}-USD`;
    openPerpetualPositions[ticker] = {
      market: ticker,
      status: 'OPEN',
      side: p.szi.startsWith('-') ? 'SHORT' : 'LONG',
      size: p.szi,
      entryPrice: p.entryPx,
      exitPrice: null,
      unrealizedPnl: p.unrealizedPnl,
      // dYdX's sign: positive when received (Hyperliquid's cumFunding is positive when paid).
      netFunding: negate(p.cumFunding.sinceOpen),
      closedAt: null,
      subaccountNumber: n,
      marginType: p.leverage.type === 'isolated' ? 'ISOLATED' : 'CROSS',
      leverage: p.leverage.value,
      marginUsed: p.marginUsed,
      liquidationPrice: p.liquidationPx,
    };
  }
  const assetPositions: Record<string, unknown> = {};
  for (const b of api.spotClearinghouseState(user).balances) {
    if (b.total === '0' && b.coin !== 'USDC') continue;
    const short = b.total.startsWith('-');
    assetPositions[b.coin] = {
      symbol: b.coin,
      side: short ? 'SHORT' : 'LONG',
      size: short ? b.total.slice(1) : b.total,
      assetId: String(b.token - USDC_TOKEN_INDEX),
      subaccountNumber: n,
    };
  }
  return {
    subaccount: {
      address,
      subaccountNumber: n,
      // The sub-account's own address (the address itself for subaccount 0).
      subaccountAddress: user,
      equity: ch.marginSummary.accountValue,
      freeCollateral: ch.withdrawable,
      openPerpetualPositions,
      assetPositions,
      marginEnabled: true,
      latestProcessedBlockHeight: String(head.height),
    },
  };
}
