// A simulated gossip network: per-message random delay (so reordering), loss, duplication,
// partitions as sets of cut links, and a scenario filter. Votes and proposals are relayed by each
// node the first time it sees them, as gossipsub does; status and sync messages go point to point.
import type { ConsensusMessage } from '../../../consensus/index.ts';
import type { Prng } from './prng.ts';
import type { Scheduler } from './scheduler.ts';

export interface LinkConfig {
  minDelayMs: number;
  maxDelayMs: number;
  dropRate: number;
  duplicateRate: number;
}

export type Filter = (from: number, to: number, msg: ConsensusMessage, now: number) => boolean;

export interface Endpoint {
  /** False while crashed: deliveries are lost. */
  readonly up: boolean;
  deliver(from: number, msg: ConsensusMessage): void;
}

function gossipId(msg: ConsensusMessage): string | null {
  if (msg.kind === 'vote') return msg.vote.signature;
  if (msg.kind === 'proposal') return msg.proposal.signature;
  return null;
}

export class SimNetwork {
  readonly endpoints: Endpoint[] = [];
  /** Gossip ids each node has relayed; cleared when the node restarts. */
  private relayed: Set<string>[] = [];
  private cut = new Set<string>();
  filter: Filter | null = null;
  delivered = 0;

  constructor(
    private readonly sched: Scheduler,
    private readonly rng: Prng,
    public link: LinkConfig,
  ) {}

  attach(e: Endpoint): number {
    this.endpoints.push(e);
    this.relayed.push(new Set());
    return this.endpoints.length - 1;
  }

  resetNode(id: number): void {
    this.relayed[id] = new Set();
  }

  /** Cuts every link between the groups (both directions); nodes in no group stay connected to all. */
  partition(groups: number[][]): void {
    this.cut.clear();
    for (let i = 0; i < groups.length; i++) {
      for (let j = 0; j < groups.length; j++) {
        if (i === j) continue;
        for (const a of groups[i] as number[]) for (const b of groups[j] as number[]) this.cut.add(`${a}>${b}`);
      }
    }
  }

  heal(): void {
    this.cut.clear();
  }

  isCut(from: number, to: number): boolean {
    return this.cut.has(`${from}>${to}`);
  }

  broadcast(from: number, msg: ConsensusMessage): void {
    const id = gossipId(msg);
    if (id !== null) (this.relayed[from] as Set<string>).add(id);
    for (let to = 0; to < this.endpoints.length; to++) if (to !== from) this.send(from, to, msg);
  }

  send(from: number, to: number, msg: ConsensusMessage): void {
    if (this.isCut(from, to)) return;
    if (this.filter !== null && !this.filter(from, to, msg, this.sched.now)) return;
    if (this.rng.chance(this.link.dropRate)) return;
    const copies = this.rng.chance(this.link.duplicateRate) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      this.sched.after(this.rng.int(this.link.minDelayMs, this.link.maxDelayMs), () => this.arrive(from, to, msg));
    }
  }

  private arrive(from: number, to: number, msg: ConsensusMessage): void {
    const e = this.endpoints[to] as Endpoint;
    if (!e.up) return;
    this.delivered++;
    e.deliver(from, msg);
    const id = gossipId(msg);
    const relayed = this.relayed[to] as Set<string>;
    if (id !== null && !relayed.has(id) && e.up) {
      relayed.add(id);
      for (let next = 0; next < this.endpoints.length; next++) if (next !== to && next !== from) this.send(to, next, msg);
    }
  }
}
