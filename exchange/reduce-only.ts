// After a position or the owner's orders change: resting reduce-only orders may not add up to
// more than the position they close, position TP/SL orders go with their position, and the
// margin of resting orders follows the new position.
import { closableLots } from './account.ts';
import type { BookOrder } from './engine/book-order.ts';
import type { PerpMarket } from './markets.ts';
import { accountOf, emitTrigger, orderLeft, type TxContext } from './order-context.ts';
import { settleOrderMargins } from './order-margin.ts';

/** `resized`: orders whose size changed or that rested without a reserve (see `settleOrderMargins`). */
export function afterPositionChange(ctx: TxContext, m: PerpMarket, owner: string, resized: readonly BookOrder[] = NO_ORDERS): void {
  const acct = accountOf(ctx.state, owner);
  for (let side = 0; side < 2; side++) {
    const isBuy = side === 0;
    let room = closableLots(acct, m.asset, isBuy);
    if (m.engine.ownerReduceOnlyLots(owner, isBuy) <= room) continue; // they all fit
    // Keep the oldest that fit (by queue sequence: list order is not part of the state), cancel the rest.
    const ro = [];
    for (let o = m.engine.ownerHead(owner); o !== null; o = o.ownerNext) if (o.reduceOnly && o.isBuy === isBuy) ro.push(o);
    ro.sort((a, b) => a.seq - b.seq);
    const excess = [];
    for (const o of ro) {
      if (o.sz <= room) room -= o.sz;
      else excess.push(o.oid);
    }
    for (const oid of excess) {
      const o = m.engine.cancel(owner, oid);
      if (o !== null) orderLeft(ctx, m, o, 'reduceOnlyCanceled');
    }
  }
  const szi = acct.positions.get(m.asset)?.szi ?? 0;
  // Most owners have no trigger orders: no generator and no copy of it then.
  if (m.triggers.count(owner) > 0) for (const t of [...m.triggers.ofOwner(owner)]) {
    // A position TP/SL closes the position: gone when it is, or when it turned the other way.
    if (t.grouping === 'positionTpsl' && (szi === 0 || szi > 0 === t.isBuy)) {
      m.triggers.remove(t.oid);
      emitTrigger(ctx, m, t, 'canceled');
    }
  }
  settleOrderMargins(ctx.state, acct, m, resized);
}

const NO_ORDERS: readonly BookOrder[] = [];
