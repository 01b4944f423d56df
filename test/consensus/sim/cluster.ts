// A seeded in-process cluster: each node runs the real Replica (driver, WAL, double-sign guard)
// against a simulated clock, network, block store and application. Invariants are checked at
// the step where they could break; a violation throws with the seed in the message.
import {
  Replica, SignGuard, MemoryWal, WalGuardStore, ValidatorSet, checkBlock, decodeBlock, encodeBlock, evidenceHash,
  evidenceKey, headerHash, proposalSignBytes, signProposal, signVote, txRoot, validatorKeyFromSeed, voteSignBytes,
  type Block, type BlockHeader, type CommitCertificate, type CommittedHead, type ConsensusMessage, type Decision,
  type Evidence, type ReplicaHost, type Timeout, type TimeoutConfig, type ValidatorKey,
} from '../../../consensus/index.ts';
import { bytesToHex, concatBytes, hexToBytes, keccak256, utf8 } from '../../../primitives/index.ts';
import { SimNetwork, type LinkConfig } from './network.ts';
import { Prng } from './prng.ts';
import { Scheduler } from './scheduler.ts';

export const CHAIN_ID = 9;
export const GENESIS: CommittedHead = { height: 0, hash: `0x${'00'.repeat(32)}`, time: 1_000_000, appHash: `0x${'11'.repeat(32)}` };

export const SIM_TIMEOUTS: TimeoutConfig = {
  proposeMs: 300, proposeDeltaMs: 100, prevoteMs: 150, prevoteDeltaMs: 100, precommitMs: 150, precommitDeltaMs: 100,
};

const keyCache: ValidatorKey[] = [];
function simKey(i: number): ValidatorKey {
  keyCache[i] ??= validatorKeyFromSeed(keccak256(utf8(`sim-validator-${i}`)));
  return keyCache[i] as ValidatorKey;
}

export type Byzantine = 'equivocateProposals' | 'doubleVote';

export class InvariantError extends Error {
  override readonly name = 'InvariantError';
}

interface StoredBlock {
  readonly block: Block;
  readonly payload: Uint8Array;
  readonly certificate: CommitCertificate;
  readonly appHash: string;
}

export interface ClusterOptions {
  /** Validators. */
  readonly n: number;
  /** Full nodes besides the validators: they follow and decide, never sign. */
  readonly fullNodes?: number;
  readonly seed: number;
  readonly link: LinkConfig;
  readonly timeouts?: TimeoutConfig;
  readonly byzantine?: ReadonlyMap<number, Byzantine>;
  /** Per-node clock offsets (ms). */
  readonly skew?: readonly number[];
  readonly tickMs?: number;
  /** A proposer without pending transactions waits this long before proposing an empty block. */
  readonly emptyBlockMs?: number;
  readonly maxClockDriftMs?: number;
  /** Log of what happened, kept only when asked (replay of a failing seed). */
  readonly trace?: boolean;
  /**
   * The validator set of each height by node index (what staking gives a real chain: a function
   * of the chain before the height). Every node then holds a sign guard and signs where the set
   * lists it. Absent: the `n` validators with power 1 at every height.
   */
  readonly setAt?: (height: number) => readonly { readonly node: number; readonly power: number }[];
}

export class SimNode implements ReplicaHost {
  readonly key: ValidatorKey;
  // Durable across crashes.
  readonly wal = new MemoryWal();
  blocks: StoredBlock[] = [];
  // Volatile.
  replica: Replica | null = null;
  up = false;
  incarnation = 0;
  head: CommittedHead = GENESIS;
  private evidencePool = new Map<string, Evidence>();
  private committedEvidence = new Set<string>();
  /** Hook run between a decision and its commit; a scenario may crash the node there. */
  onDecided: ((node: SimNode, d: Decision) => void) | null = null;
  /** Hook run after the node signs a message. */
  onSigned: ((node: SimNode, msg: ConsensusMessage) => void) | null = null;
  /** Hook run after each input is appended (before it is processed). */
  restarts = 0;

  constructor(
    readonly id: number,
    private readonly c: Cluster,
    readonly byzantine: Byzantine | null,
    readonly validator: boolean,
  ) {
    this.key = simKey(id);
  }

  get honest(): boolean {
    return this.byzantine === null;
  }

  get height(): number {
    return this.head.height;
  }

  get now(): number {
    return GENESIS.time + this.c.sched.now + (this.c.opts.skew?.[this.id] ?? 0);
  }

  start(): void {
    this.up = true;
    this.incarnation++;
    this.c.net.resetNode(this.id);
    this.rebuildApp();
    this.replica = new Replica(this, {
      chainId: CHAIN_ID, guard: this.validator || this.c.opts.setAt !== undefined ? new SignGuard(this.key, new WalGuardStore(this.wal)) : null, wal: this.wal, timeouts: this.c.opts.timeouts ?? SIM_TIMEOUTS,
    });
    this.replica.start(this.head.height + 1);
    this.scheduleTick();
  }

  crash(): void {
    if (!this.up) return;
    this.up = false;
    this.replica = null;
    this.wal.crash();
    this.c.log(`node ${this.id} crashed at height ${this.head.height}`);
  }

  restart(): void {
    this.restarts++;
    this.c.log(`node ${this.id} restarts`);
    this.start();
  }

  /**
   * Loses blocks and the WAL's inputs; keeps its key and the guard's last record (an operator who
   * wipes a validator's chain data keeps its sign_state.json, docs/consensus.md).
   */
  wipe(): void {
    this.crash();
    this.blocks = [];
    this.wal.wipe({ keepGuard: true });
  }

  private rebuildApp(): void {
    this.head = GENESIS;
    this.evidencePool = new Map();
    this.committedEvidence = new Set();
    for (const b of this.blocks) this.apply(b.block);
  }

  /** Executes a block: the app hash chains the previous one with the block's hash. */
  private apply(block: Block): string {
    const hash = headerHash(block.header);
    const appHash = bytesToHex(keccak256(concatBytes(hexToBytes(this.head.appHash), hexToBytes(hash))));
    this.head = { height: block.header.height, hash, time: block.header.time, appHash };
    for (const e of block.evidence ?? []) {
      const key = evidenceKey(e);
      this.committedEvidence.add(key);
      this.evidencePool.delete(key);
    }
    return appHash;
  }

  private guarded(fn: () => void): () => void {
    const inc = this.incarnation;
    return () => {
      if (this.up && this.incarnation === inc) fn();
    };
  }

  private scheduleTick(): void {
    this.c.sched.after(this.c.tickMs, this.guarded(() => {
      this.replica?.tick();
      this.scheduleTick();
    }));
  }

  deliver(from: number, msg: ConsensusMessage): void {
    this.replica?.receive(String(from), msg);
  }

  // ReplicaHost

  validatorSet(height: number): ValidatorSet {
    return this.c.validatorsAt(height);
  }

  checkValue(height: number, payload: Uint8Array): { valueId: string; valid: boolean } | null {
    const block = decodeBlock(payload);
    if (block === null) return null;
    const valid = height === this.head.height + 1 && checkBlock(block, {
      chainId: CHAIN_ID, parent: this.head, validators: this.c.validatorsAt(height), now: this.now,
      maxClockDriftMs: this.c.opts.maxClockDriftMs ?? 500, evidenceMaxAge: 100, evidenceCommitted: (k) => this.committedEvidence.has(k),
    }) === null;
    return { valueId: headerHash(block.header), valid };
  }

  requestValue(height: number, round: number): void {
    // Transactions pending half the time: propose at once; otherwise wait the empty-block cadence.
    const delay = this.c.rng.chance(0.5) ? this.c.rng.int(0, 3) : this.c.emptyBlockMs;
    this.c.sched.after(delay, this.guarded(() => {
      if (this.head.height + 1 !== height) return;
      if (this.replica?.proposeValue(height, round, encodeBlock(this.buildBlock(height, 0))) === false) {
        this.c.fail(`node ${this.id}: its own block for height ${height} fails its checks`);
      }
    }));
  }

  buildBlock(height: number, timeBump: number): Block {
    const txs = Array.from({ length: this.c.rng.int(0, 3) }, () => utf8(`tx-${this.c.rng.u32()}`));
    // Evidence of this height waits for the next block: a block commits only the past.
    const evidence = [...this.evidencePool.values()].filter((e) => e.first.message.height < height).slice(0, 8);
    const header: BlockHeader = {
      chainId: CHAIN_ID, height, time: Math.max(this.now, this.head.time + 1) + timeBump, parentHash: this.head.hash,
      txRoot: txRoot(txs), appHash: this.head.appHash, proposer: this.key.publicKey,
      ...(evidence.length > 0 ? { evidenceHash: evidenceHash(evidence) } : {}),
    };
    return { header, txs, ...(evidence.length > 0 ? { evidence } : {}) };
  }

  decided(d: Decision): void {
    this.c.onDecide(this, d);
    this.onDecided?.(this, d);
    this.c.sched.after(this.c.rng.int(0, 2), this.guarded(() => this.commit(d)));
  }

  private commit(d: Decision): void {
    const block = decodeBlock(d.payload);
    if (block === null || block.header.height !== this.head.height + 1) throw new InvariantError(`node ${this.id} decided an unusable block at ${d.height}`);
    const appHash = this.apply(block);
    this.blocks.push({ block, payload: d.payload, certificate: d.certificate, appHash });
    this.c.onCommit(this, block, appHash);
    this.c.sched.after(0, this.guarded(() => this.replica?.startHeight(this.head.height + 1)));
  }

  serveSync(peer: string, from: number, to: number): void {
    for (let h = from; h <= to; h++) {
      const b = this.blocks[h - 1];
      if (b === undefined) return;
      this.send(peer, { kind: 'decided', payload: b.payload, certificate: b.certificate });
    }
  }

  scheduleTimeout(timeout: Timeout, durationMs: number): void {
    this.c.sched.after(durationMs, this.guarded(() => this.replica?.timeoutElapsed(timeout)));
  }

  broadcast(msg: ConsensusMessage): void {
    const own = (msg.kind === 'vote' && msg.vote.message.validator === this.key.publicKey)
      || (msg.kind === 'proposal' && msg.proposal.message.proposer === this.key.publicKey);
    if (own) {
      this.c.onSigned(this, msg);
      this.onSigned?.(this, msg);
      if (!this.up) return; // the hook crashed us: the message is lost
      if (this.byzantine !== null) return this.misbehave(msg);
    }
    this.c.net.broadcast(this.id, msg);
  }

  send(peer: string, msg: ConsensusMessage): void {
    this.c.net.send(this.id, Number(peer), msg);
  }

  evidence(e: Evidence): void {
    const key = evidenceKey(e);
    if (this.committedEvidence.has(key) || this.evidencePool.has(key)) return;
    this.evidencePool.set(key, e);
    this.c.evidenceSeen.add(key);
  }

  /** Sends the real message to half the peers and a conflicting one, signed past the guard, to the others. */
  private misbehave(msg: ConsensusMessage): void {
    let twin: ConsensusMessage | null = null;
    if (msg.kind === 'proposal' && this.byzantine === 'equivocateProposals') {
      const p = msg.proposal.message;
      const other = this.buildBlock(p.height, 1);
      const payload = encodeBlock(other);
      twin = { kind: 'proposal', proposal: signProposal(CHAIN_ID, this.key, { ...p, polRound: -1, valueId: headerHash(other.header) }), payload };
    } else if (msg.kind === 'vote' && this.byzantine === 'doubleVote') {
      const v = msg.vote.message;
      const valueId = v.valueId === null ? `0x${'ab'.repeat(32)}` : null;
      twin = { kind: 'vote', vote: signVote(CHAIN_ID, this.key, { ...v, valueId }) };
    }
    for (let to = 0; to < this.c.nodes.length; to++) {
      if (to === this.id) continue;
      this.c.net.send(this.id, to, twin !== null && to % 2 === 1 ? twin : msg);
    }
  }
}

export class Cluster {
  readonly sched = new Scheduler();
  readonly rng: Prng;
  readonly net: SimNetwork;
  readonly nodes: SimNode[] = [];
  readonly validators: ValidatorSet;
  readonly tickMs: number;
  readonly emptyBlockMs: number;
  /** Height -> the value decided there (the first decision seen). */
  readonly decisions = new Map<number, { valueId: string; round: number; at: number }>();
  readonly appHashes = new Map<number, string>();
  /** (validator, height, round, step) -> sign bytes of what an honest node signed there. */
  private readonly signed = new Map<string, string>();
  readonly evidenceSeen = new Set<string>();
  readonly committedEvidence = new Map<string, number>();
  readonly lines: string[] = [];

  constructor(readonly opts: ClusterOptions) {
    this.rng = new Prng(opts.seed);
    this.net = new SimNetwork(this.sched, this.rng, opts.link);
    this.tickMs = opts.tickMs ?? 200;
    this.emptyBlockMs = opts.emptyBlockMs ?? 100;
    for (let i = 0; i < opts.n + (opts.fullNodes ?? 0); i++) {
      const node = new SimNode(i, this, opts.byzantine?.get(i) ?? null, i < opts.n);
      this.nodes.push(node);
      this.net.attach(node);
    }
    this.validators = new ValidatorSet(this.nodes.filter((n) => n.validator).map((n) => ({ publicKey: n.key.publicKey, power: 1 })));
  }

  get now(): number {
    return this.sched.now;
  }

  private readonly sets = new Map<string, ValidatorSet>();

  /** The set of a height: `opts.setAt`'s, else the fixed one. */
  validatorsAt(height: number): ValidatorSet {
    const setAt = this.opts.setAt;
    if (setAt === undefined) return this.validators;
    const list = setAt(height).map((v) => ({ publicKey: (this.nodes[v.node] as SimNode).key.publicKey, power: v.power }));
    const key = JSON.stringify(list);
    let set = this.sets.get(key);
    if (set === undefined) this.sets.set(key, (set = new ValidatorSet(list)));
    return set;
  }

  log(line: string): void {
    if (this.opts.trace === true) this.lines.push(`${this.sched.now}ms ${line}`);
  }

  fail(message: string): never {
    throw new InvariantError(`${message} (seed ${this.opts.seed}, t=${this.sched.now}ms)`);
  }

  honestNodes(): SimNode[] {
    return this.nodes.filter((n) => n.honest);
  }

  /** Agreement: no two honest nodes decide different values at one height. */
  onDecide(node: SimNode, d: Decision): void {
    this.log(`node ${node.id} decides ${d.height} round ${d.round} ${d.valueId.slice(0, 10)}`);
    if (!node.honest) return;
    const prior = this.decisions.get(d.height);
    if (prior === undefined) this.decisions.set(d.height, { valueId: d.valueId, round: d.round, at: this.sched.now });
    else if (prior.valueId !== d.valueId) this.fail(`agreement: height ${d.height} decided ${prior.valueId} and ${d.valueId} (node ${node.id})`);
  }

  /** Equal app hashes after every committed height. */
  onCommit(node: SimNode, block: Block, appHash: string): void {
    const h = block.header.height;
    const prior = this.appHashes.get(h);
    if (prior === undefined) this.appHashes.set(h, appHash);
    else if (prior !== appHash) this.fail(`app hash: node ${node.id} has ${appHash} at ${h}, others ${prior}`);
    for (const e of block.evidence ?? []) if (!this.committedEvidence.has(evidenceKey(e))) this.committedEvidence.set(evidenceKey(e), h);
  }

  /** No honest double-sign, across restarts: one message per (height, round, step) per honest key. */
  onSigned(node: SimNode, msg: ConsensusMessage): void {
    if (!node.honest) return;
    let slot: string;
    let bytes: Uint8Array;
    if (msg.kind === 'vote') {
      const v = msg.vote.message;
      slot = `${v.validator}/${v.height}/${v.round}/${v.type}`;
      bytes = voteSignBytes(CHAIN_ID, v);
    } else if (msg.kind === 'proposal') {
      const p = msg.proposal.message;
      slot = `${p.proposer}/${p.height}/${p.round}/proposal`;
      bytes = proposalSignBytes(CHAIN_ID, p);
    } else return;
    const hex = bytesToHex(bytes);
    const prior = this.signed.get(slot);
    if (prior === undefined) this.signed.set(slot, hex);
    else if (prior !== hex) this.fail(`double sign by honest node ${node.id} at ${slot}`);
  }

  start(): void {
    for (const n of this.nodes) n.start();
  }

  /** Runs until `done` holds or virtual time passes `deadlineMs`; returns whether `done` held. */
  runUntil(done: () => boolean, deadlineMs: number, maxSteps = 5_000_000): boolean {
    while (this.sched.now <= deadlineMs) {
      if (done()) return true;
      if (this.sched.steps > maxSteps) this.fail('step budget exhausted');
      if (!this.sched.step()) return done();
    }
    return done();
  }

  /** Every honest node that is up has reached `height`. */
  allAt(height: number, nodes: SimNode[] = this.honestNodes().filter((n) => n.up)): boolean {
    return nodes.every((n) => n.height >= height);
  }

  maxDecided(): number {
    let h = 0;
    for (const k of this.decisions.keys()) h = Math.max(h, k);
    return h;
  }
}
