// The positions open in one perp market, for the loops that visit every holder of a market (the
// ADL ranking, funding, open interest). A dense list with each position's slot kept in the
// position, so a position that opens or closes is added or removed without hashing (a close is
// a swap with the last slot). The order is no order: every reader sorts or sums.
import type { Position } from './account.ts';

export class HolderList {
  private readonly list: Position[] = [];

  /** How many positions are open in the market. */
  get size(): number {
    return this.list.length;
  }

  /** The open positions, in no particular order; not to be changed while iterated. */
  positions(): readonly Position[] {
    return this.list;
  }

  add(pos: Position): void {
    pos.holderSlot = this.list.length;
    this.list.push(pos);
  }

  remove(pos: Position): void {
    const slot = pos.holderSlot;
    if (this.list[slot] !== pos) throw new Error(`position of ${pos.owner.address} in asset ${pos.asset} is not in its holder list`);
    const last = this.list.pop() as Position;
    if (last !== pos) {
      this.list[slot] = last;
      last.holderSlot = slot;
    }
    pos.holderSlot = -1;
  }
}
