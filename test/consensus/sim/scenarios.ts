// Named scenarios for the simulator. Each builds a cluster from a seed, injects its faults, runs
// in virtual time and checks liveness at the end; safety invariants are checked by the cluster
// as the run goes. Fault times and parameters are drawn from the seed.
import { verifyCertificate } from '../../../consensus/index.ts';
import { CHAIN_ID, Cluster, type Byzantine, type ClusterOptions } from './cluster.ts';
import type { LinkConfig } from './network.ts';
import { Prng } from './prng.ts';

export interface ScenarioResult {
  readonly heights: number;
  readonly virtualMs: number;
  readonly steps: number;
}

export interface Scenario {
  readonly name: string;
  run(seed: number, trace: boolean): ScenarioResult;
}

function link(rng: Prng, lossy: boolean): LinkConfig {
  return {
    minDelayMs: rng.int(1, 5),
    maxDelayMs: rng.int(10, 60),
    dropRate: lossy ? rng.int(5, 20) / 100 : 0,
    duplicateRate: rng.int(0, 10) / 100,
  };
}

/** A cluster whose link parameters come from the seed (a separate stream from the run's). */
function cluster(seed: number, trace: boolean, extra: Partial<ClusterOptions> & { lossy?: boolean } = {}): Cluster {
  const { lossy = false, ...rest } = extra;
  return new Cluster({ n: 4, seed, link: link(new Prng(seed ^ 0x5eed), lossy), trace, ...rest });
}

function expect(c: Cluster, ok: boolean, what: string): void {
  if (!ok) {
    const heights = c.nodes.map((n) => `${n.id}:${n.height}${n.up ? '' : '(down)'}`).join(' ');
    c.fail(`${what}; heights ${heights}`);
  }
}

function result(c: Cluster): ScenarioResult {
  return { heights: c.maxDecided(), virtualMs: c.now, steps: c.sched.steps };
}

/** All honest nodes that are up reach `height` within `withinMs` of now. */
function progress(c: Cluster, height: number, withinMs: number, what: string): void {
  expect(c, c.runUntil(() => c.allAt(height), c.now + withinMs), what);
}

const happy: Scenario = {
  name: 'n4f0-happy',
  run(seed, trace) {
    const c = cluster(seed, trace);
    c.start();
    progress(c, 10, 20_000, 'no progress');
    // Every height decided in round 0: no timeout should be needed without faults.
    for (const [h, d] of c.decisions) expect(c, d.round === 0, `height ${h} took round ${d.round}`);
    return result(c);
  },
};

const lossy: Scenario = {
  name: 'n4f0-lossy',
  run(seed, trace) {
    const c = cluster(seed, trace, { lossy: true });
    c.start();
    progress(c, 8, 60_000, 'no progress under loss, duplication and reordering');
    return result(c);
  },
};

const oneCrashed: Scenario = {
  name: 'n4f1-crashed',
  run(seed, trace) {
    const c = cluster(seed, trace);
    const down = c.rng.int(0, 3);
    c.start();
    c.nodes[down]?.crash();
    progress(c, 10, 60_000, 'three of four did not progress');
    return result(c);
  },
};

const split22: Scenario = {
  name: 'partition-2-2',
  run(seed, trace) {
    const c = cluster(seed, trace);
    c.start();
    progress(c, 2, 10_000, 'no progress before the partition');
    c.net.partition([[0, 1], [2, 3]]);
    // A height already past its precommits may still finish; nothing after it can.
    const at = c.maxDecided() + 1;
    c.runUntil(() => false, c.now + c.rng.int(2_000, 8_000));
    expect(c, c.maxDecided() <= at, `decided ${c.maxDecided()} while split 2-2 (from ${at})`);
    c.net.heal();
    progress(c, c.maxDecided() + 3, 60_000, 'no progress after healing');
    return result(c);
  },
};

const split31: Scenario = {
  name: 'partition-3-1',
  run(seed, trace) {
    const c = cluster(seed, trace);
    const alone = c.rng.int(0, 3);
    const rest = [0, 1, 2, 3].filter((i) => i !== alone);
    c.start();
    progress(c, 2, 10_000, 'no progress before the partition');
    c.net.partition([[alone], rest]);
    const majority = rest.map((i) => c.nodes[i]!);
    const target = c.maxDecided() + 5;
    expect(c, c.runUntil(() => c.allAt(target, majority), c.now + 60_000), 'majority did not progress');
    c.net.heal();
    progress(c, c.maxDecided() + 1, 60_000, 'isolated node did not catch up');
    return result(c);
  },
};

function byzantineScenario(name: string, kind: Byzantine): Scenario {
  return {
    name,
    run(seed, trace) {
      const bad = new Map([[0, kind]]);
      const c = cluster(seed, trace, { byzantine: bad });
      c.start();
      progress(c, 10, 90_000, 'no progress with a byzantine validator');
      // Evidence: every equivocation an honest node saw is committed within a few heights.
      const seen = c.evidenceSeen.size;
      expect(c, seen > 0, 'the equivocation was never detected');
      progress(c, c.maxDecided() + 3, 60_000, 'no progress while committing evidence');
      expect(c, c.committedEvidence.size > 0, 'no evidence committed');
      return result(c);
    },
  };
}

/**
 * Hidden lock (Quint `hiddenlock`): in round 0 of height 1 one validator L sees the polka for v and
 * locks; the others see only +2/3 prevotes for anything and precommit nil. The round-1 proposer,
 * unaware of the lock, proposes a new value. L must prevote nil (L22), then relock on the new
 * value's polka (L36); the height decides the new value, never v.
 */
const hiddenLock: Scenario = {
  name: 'hidden-lock',
  run(seed, trace) {
    const c = cluster(seed, trace);
    const ids = c.nodes.map((n) => n.key.publicKey);
    const p0 = ids.indexOf(c.validators.proposer(1, 0));
    const p1 = ids.indexOf(c.validators.proposer(1, 1));
    const others = [0, 1, 2, 3].filter((i) => i !== p0 && i !== p1);
    const locker = others[0] as number;
    const late = others[1] as number;
    let lockedValue: string | null = null;
    c.net.filter = (from, to, msg) => {
      if (msg.kind === 'proposal' && msg.proposal.message.height === 1 && msg.proposal.message.round === 0) {
        lockedValue = msg.proposal.message.valueId;
        return to !== late;
      }
      if (msg.kind === 'vote' && msg.vote.message.height === 1 && msg.vote.message.round === 0 && msg.vote.message.type === 'prevote') {
        return to === locker || msg.vote.message.validator !== ids[locker];
      }
      return true;
    };
    let lockerRound1: string | null | undefined;
    c.nodes[locker]!.onSigned = (_n, msg) => {
      if (msg.kind === 'vote' && msg.vote.message.height === 1 && msg.vote.message.round === 1 && msg.vote.message.type === 'prevote') {
        lockerRound1 = msg.vote.message.valueId;
      }
    };
    c.start();
    progress(c, 1, 30_000, 'height 1 not decided');
    const d = c.decisions.get(1)!;
    expect(c, lockerRound1 === null || (d.round > 1 && lockerRound1 === undefined), 'the locked validator did not prevote nil on the new value (L22)');
    expect(c, d.round >= 1, `decided in round ${d.round}, the lock was not hidden`);
    expect(c, d.valueId !== lockedValue, 'decided the value only one validator had locked');
    c.net.filter = null;
    progress(c, 4, 30_000, 'no progress after the hidden lock');
    return result(c);
  },
};

/**
 * A lock protects a decision nobody else saw: in round 0 of height 1, A, B and C lock v and
 * precommit it; only A receives the precommits and decides v. B, C and D (who saw no polka) move
 * to round 1, where D proposes a new value. B and C must refuse it (L22) so it never gathers +2/3;
 * when A's commit certificate reaches them later, all hold v.
 */
const lockedDecision: Scenario = {
  name: 'lock-protects-unseen-decision',
  run(seed, trace) {
    const c = cluster(seed, trace);
    const ids = c.nodes.map((n) => n.key.publicKey);
    const d = ids.indexOf(c.validators.proposer(1, 1));
    const [a, b] = [0, 1, 2, 3].filter((i) => i !== d) as [number, number, number];
    const releaseAt = c.rng.int(3_000, 8_000);
    c.net.filter = (from, to, msg, now) => {
      if (now >= releaseAt) return true;
      if (msg.kind === 'status' || msg.kind === 'decided') return false;
      if (msg.kind === 'proposal') return !(msg.proposal.message.height === 1 && msg.proposal.message.round === 0 && to === d);
      if (msg.kind !== 'vote' || msg.vote.message.height !== 1 || msg.vote.message.round !== 0) return true;
      const v = msg.vote.message;
      if (v.type === 'prevote') return !(to === d && v.validator === ids[a]);
      return v.validator !== ids[a] && (to === a || from !== a);
    };
    c.start();
    expect(c, c.runUntil(() => c.decisions.has(1), releaseAt), 'A did not decide before the release');
    progress(c, 1, 60_000, 'height 1 not decided everywhere');
    expect(c, c.nodes[b]!.height >= 1, 'B caught up');
    progress(c, 4, 60_000, 'no progress after the release');
    return result(c);
  },
};

/** Crashes one node at a chosen point and restarts it; safety holds and it rejoins. */
function crashScenario(name: string, arm: (c: Cluster, victim: number) => void): Scenario {
  return {
    name,
    run(seed, trace) {
      const c = cluster(seed, trace);
      const victim = c.rng.int(0, 3);
      c.start();
      progress(c, 1, 10_000, 'no progress before the crash');
      arm(c, victim);
      const node = c.nodes[victim]!;
      expect(c, c.runUntil(() => !node.up, c.now + 30_000), 'the crash point was never reached');
      c.sched.after(c.rng.int(0, 1_500), () => node.restart());
      expect(c, c.runUntil(() => node.up, c.now + 2_000), 'restarted');
      progress(c, c.maxDecided() + 4, 60_000, 'no progress after the restart');
      return result(c);
    },
  };
}

/** Before the WAL flush: the node has taken in inputs it has not made durable yet. */
const crashBeforeFlush = crashScenario('crash-before-wal-flush', (c, victim) => {
  const node = c.nodes[victim]!;
  const from = c.now + c.rng.int(0, 1_000);
  const poll = (): void => {
    if (!node.up) return;
    if (c.now >= from && node.wal.unflushed > 0) node.crash();
    else c.sched.after(1, poll);
  };
  c.sched.after(1, poll);
});

/** Mid-round: right after signing a prevote or precommit (before anyone receives it). */
const crashMidRound = crashScenario('crash-mid-round', (c, victim) => {
  const node = c.nodes[victim]!;
  const step = c.rng.chance(0.5) ? 'prevote' : 'precommit';
  const height = c.maxDecided() + c.rng.int(1, 3);
  node.onSigned = (n, msg) => {
    if (msg.kind === 'vote' && msg.vote.message.type === step && msg.vote.message.height >= height) {
      n.onSigned = null;
      n.crash();
    }
  };
});

/** During commit: decided, the block not yet executed and stored. */
const crashDuringCommit = crashScenario('crash-during-commit', (c, victim) => {
  const node = c.nodes[victim]!;
  const height = c.maxDecided() + c.rng.int(1, 3);
  node.onDecided = (n, d) => {
    if (d.height >= height) {
      n.onDecided = null;
      n.crash();
    }
  };
});

/** A node loses its blocks and WAL while down; on restart it fetches certified blocks and rejoins. */
const wipedCatchUp: Scenario = {
  name: 'wiped-node-block-sync',
  run(seed, trace) {
    const c = cluster(seed, trace);
    const victim = c.rng.int(0, 3);
    c.start();
    progress(c, 2, 10_000, 'no progress before the wipe');
    const node = c.nodes[victim]!;
    node.wipe();
    progress(c, c.maxDecided() + 6, 60_000, 'three of four did not progress');
    const tip = c.maxDecided();
    node.restart();
    expect(c, node.height === 0, 'wiped');
    progress(c, tip + 2, 60_000, 'the wiped node did not catch up');
    return result(c);
  },
};

/** Full nodes follow the validators (live consensus messages and block sync) without signing. */
const fullNodes: Scenario = {
  name: 'full-nodes-follow',
  run(seed, trace) {
    const c = cluster(seed, trace, { fullNodes: 2, lossy: true });
    c.start();
    progress(c, 6, 60_000, 'validators and full nodes did not progress');
    const full = c.nodes[4]!;
    full.crash();
    progress(c, c.maxDecided() + 3, 60_000, 'no progress without the full node');
    full.restart();
    progress(c, c.maxDecided() + 2, 60_000, 'the full node did not catch up');
    return result(c);
  },
};

const solo: Scenario = {
  name: 'n1-solo',
  run(seed, trace) {
    const c = new Cluster({ n: 1, seed, link: { minDelayMs: 1, maxDelayMs: 1, dropRate: 0, duplicateRate: 0 }, trace });
    c.start();
    progress(c, 20, 10_000, 'a single validator did not progress');
    for (const [h, d] of c.decisions) expect(c, d.round === 0, `height ${h} took round ${d.round}`);
    return result(c);
  },
};

/** Random faults from the seed: loss, a partition that heals, a crash and restart, clock skew. */
const chaos: Scenario = {
  name: 'chaos',
  run(seed, trace) {
    const pr = new Prng(seed ^ 0xc4a05);
    const skew = [0, 1, 2, 3].map(() => pr.int(-200, 200));
    // Slow empty blocks: the run spans seconds of faults, and heights are what cost time.
    const c = cluster(seed, trace, { lossy: pr.chance(0.5), skew, emptyBlockMs: 250 });
    c.start();
    const events = pr.int(1, 4);
    let t = 0;
    for (let i = 0; i < events; i++) {
      t += pr.int(100, 3_000);
      const kind = pr.int(0, 2);
      if (kind === 0) {
        const a = pr.int(0, 3);
        const groups = pr.chance(0.5) ? [[a], [0, 1, 2, 3].filter((x) => x !== a)] : [[0, 1], [2, 3]];
        c.sched.at(t, () => c.net.partition(groups));
        c.sched.at(t + pr.int(100, 3_000), () => c.net.heal());
      } else if (kind === 1) {
        const v = pr.int(0, 3);
        c.sched.at(t, () => c.nodes[v]!.crash());
        c.sched.at(t + pr.int(0, 3_000), () => { if (!c.nodes[v]!.up) c.nodes[v]!.restart(); });
      } else {
        c.sched.at(t, () => { c.net.link = { ...c.net.link, dropRate: 0.3 }; });
        c.sched.at(t + pr.int(100, 2_000), () => { c.net.link = { ...c.net.link, dropRate: 0 }; });
      }
    }
    const healAt = t + 6_000;
    c.sched.at(healAt, () => {
      c.net.heal();
      c.net.link = { ...c.net.link, dropRate: 0 };
      for (const n of c.nodes) if (!n.up) n.restart();
    });
    c.runUntil(() => false, healAt);
    progress(c, c.maxDecided() + 3, 90_000, 'no progress after healing');
    return result(c);
  },
};

/**
 * The validator set changes at a height (staking's epoch boundary): node 4, a full node until
 * then, joins with power 3, node 0 grows to 2, node 3 leaves. Decisions go on through the change
 * under loss; every certificate verifies against its height's set; after the change node 3 never
 * signs and node 4 does. Then quorums follow power: with nodes 1-3 down, nodes 0 and 4 (5 of 7)
 * still decide; and a wiped node catches up by block sync across the change.
 */
const stakeMoves: Scenario = {
  name: 'stake-moves',
  run(seed, trace) {
    const SWITCH = 6;
    const setAt = (h: number) => (h < SWITCH
      ? [0, 1, 2, 3].map((node) => ({ node, power: 1 }))
      : [{ node: 4, power: 3 }, { node: 0, power: 2 }, { node: 1, power: 1 }, { node: 2, power: 1 }]);
    const c = cluster(seed, trace, { fullNodes: 1, lossy: true, setAt });
    c.start();
    progress(c, SWITCH + 4, 60_000, 'no progress through the change');
    const certified = (node: number) => c.nodes[node]!.blocks.map((b) => b.certificate);
    for (const cert of certified(0)) {
      expect(c, verifyCertificate(CHAIN_ID, cert, c.validatorsAt(cert.height)) === null, `height ${cert.height}: certificate does not verify against its set`);
      const signers = new Set(cert.signatures.map((s) => s.validator));
      if (cert.height >= SWITCH) expect(c, !signers.has(c.nodes[3]!.key.publicKey), `height ${cert.height}: node 3 signed after leaving`);
    }
    expect(c, certified(0).some((cert) => cert.height >= SWITCH && cert.signatures.some((s) => s.validator === c.nodes[4]!.key.publicKey)), 'node 4 never signed after joining');
    for (const i of [1, 2, 3]) c.nodes[i]!.crash();
    progress(c, c.maxDecided() + 3, 60_000, 'nodes 0 and 4 (5 of 7 power) did not progress');
    const wiped = c.nodes[2]!;
    wiped.wipe();
    wiped.restart();
    progress(c, c.maxDecided() + 2, 60_000, 'the wiped node did not catch up across the change');
    return result(c);
  },
};

export const SCENARIOS: readonly Scenario[] = [
  happy, lossy, oneCrashed, split22, split31,
  byzantineScenario('equivocating-proposer', 'equivocateProposals'),
  byzantineScenario('double-voting-validator', 'doubleVote'),
  hiddenLock, lockedDecision, crashBeforeFlush, crashMidRound, crashDuringCommit, wipedCatchUp, fullNodes, solo, chaos, stakeMoves,
];
