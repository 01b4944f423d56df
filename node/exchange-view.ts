// The exchange as the EVM's read precompiles see it: the live state, which during block
// execution is the state at the end of the block's exchange part (EVM transactions run after it).
import type { ExchangeView } from '../evm/index.ts';
import { USDC_TOKEN_INDEX, type Exchange } from '../exchange/index.ts';
import { normalizeAddress } from '../primitives/index.ts';

export function exchangeView(exchange: Exchange): ExchangeView {
  const perp = (i: number) => exchange.state.perps[i];
  return {
    oraclePx: (i) => {
      const m = perp(i);
      return m === undefined ? null : BigInt(m.engine.oraclePx);
    },
    markPx: (i) => {
      const m = perp(i);
      return m === undefined ? null : BigInt(exchange.state.markPx(m));
    },
    position: (user, i) => {
      const m = perp(i);
      if (m === undefined) return null;
      const acct = exchange.state.accounts.get(normalizeAddress(user) ?? user);
      const p = acct?.positions.get(m.asset);
      return { szi: BigInt(p?.szi ?? 0), entryNtl: p?.entryNtl ?? 0n, leverage: acct === undefined ? m.config.maxLeverage : exchange.state.leverage(acct, m) };
    },
    spotBalance: (user, token) => {
      if (token < USDC_TOKEN_INDEX || token >= USDC_TOKEN_INDEX + exchange.state.spotTokens.length) return null;
      const acct = exchange.state.accounts.get(normalizeAddress(user) ?? user);
      return { total: acct?.balance(token) ?? 0n, hold: acct?.held.get(token) ?? 0n };
    },
  };
}
