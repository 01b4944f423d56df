// Requests enter the mempool in the order they reached the node. Signature recovery runs in
// parallel on several workers and may finish out of order; a client streaming orders with rising
// nonces must not see later ones overtake earlier ones (a nonce more than 100 places behind the
// signer's newest is refused), so each admission takes a ticket on arrival and waits for its
// turn before the mempool sees it. A turn waits at most for the recoveries already in flight.

export class ArrivalOrder {
  private issued = 0;
  private next = 0;
  /** Tickets whose recovery finished before their turn, waiting on the ones before them. */
  private readonly waiting = new Map<number, () => void>();

  /** A ticket for a request that just arrived. Every ticket must be `done` exactly once. */
  take(): number {
    return this.issued++;
  }

  /** Resolves once every ticket taken before `ticket` is done. */
  turn(ticket: number): Promise<void> {
    if (ticket === this.next) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(ticket, resolve));
  }

  /** Ends a ticket's turn (it was admitted, refused, or failed): the next one may go. */
  done(ticket: number): void {
    if (ticket !== this.next) throw new Error(`invariant: ticket ${ticket} done before ${this.next}`);
    this.next += 1;
    const wake = this.waiting.get(this.next);
    if (wake !== undefined) {
      this.waiting.delete(this.next);
      wake();
    }
  }
}
