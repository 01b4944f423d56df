// Virtual time: a priority queue of events ordered by (time, insertion). Nothing waits for real time.
export class Scheduler {
  private heap: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;
  now = 0;
  steps = 0;

  at(time: number, fn: () => void): void {
    this.heap.push({ at: Math.max(time, this.now), seq: this.seq++, fn });
    this.up(this.heap.length - 1);
  }

  after(delayMs: number, fn: () => void): void {
    this.at(this.now + delayMs, fn);
  }

  /** Runs one event; false when none is left. */
  step(): boolean {
    const top = this.heap[0];
    if (top === undefined) return false;
    const last = this.heap.pop() as (typeof this.heap)[0];
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    this.now = top.at;
    this.steps++;
    top.fn();
    return true;
  }

  private less(i: number, j: number): boolean {
    const a = this.heap[i] as (typeof this.heap)[0];
    const b = this.heap[j] as (typeof this.heap)[0];
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const t = this.heap[i] as (typeof this.heap)[0];
    this.heap[i] = this.heap[j] as (typeof this.heap)[0];
    this.heap[j] = t;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.heap.length && this.less(l, m)) m = l;
      if (r < this.heap.length && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
