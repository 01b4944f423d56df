// The replica around the driver: WAL replay resumes the round and step after a restart, commit
// certificates and evidence verify, blocks decode only from their canonical bytes.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import {
  FileWal, MemoryGuardStore, Replica, SignGuard, ValidatorSet, WalGuardStore, certificateFromVotes, checkBlock, decodeBlock,
  encodeBlock, headerHash, signProposal, signVote, txRoot, validatorKeyFromSeed, verifyCertificate, verifyEvidence,
  DEFAULT_TIMEOUTS, type Block, type CommitCertificate, type ConsensusMessage, type Decision, type ReplicaHost,
} from '../../consensus/index.ts';
import { keccak256, utf8 } from '../../primitives/index.ts';
import { tempDir } from '../support/node.ts';

const CHAIN = 5;
const keys = [0, 1, 2, 3].map((i) => validatorKeyFromSeed(keccak256(utf8(`replica-test-${i}`))));
const set = new ValidatorSet(keys.map((k) => ({ publicKey: k.publicKey, power: 1 })));
const parent = { height: 0, hash: `0x${'00'.repeat(32)}`, time: 1000, appHash: `0x${'22'.repeat(32)}` };

function block(proposer: string, time = 2000): Block {
  const txs = [utf8('a'), utf8('b')];
  return { header: { chainId: CHAIN, height: 1, time, parentHash: parent.hash, txRoot: txRoot(txs), appHash: parent.appHash, proposer }, txs };
}

class Host implements ReplicaHost {
  sent: ConsensusMessage[] = [];
  decisions: Decision[] = [];
  validatorSet(): ValidatorSet { return set; }
  checkValue(_h: number, payload: Uint8Array) {
    const b = decodeBlock(payload);
    return b === null ? null : { valueId: headerHash(b.header), valid: true };
  }
  requestValue(): void {}
  decided(d: Decision): void { this.decisions.push(d); }
  serveSync(): void {}
  scheduleTimeout(): void {}
  broadcast(msg: ConsensusMessage): void { this.sent.push(msg); }
  send(): void {}
  evidence(): void {}
}

t.test('a restart replays the WAL: same round, step and lock, the same signatures, nothing new signed', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const me = keys.findIndex((k) => k.publicKey !== set.proposer(1, 0));
  const proposerKey = keys.find((k) => k.publicKey === set.proposer(1, 0))!;
  const guardStore = new MemoryGuardStore();
  const open = (host: Host) => new Replica(host, { chainId: CHAIN, guard: new SignGuard(keys[me]!, guardStore), wal: new FileWal(join(dir, 'wal')), timeouts: DEFAULT_TIMEOUTS });

  const host = new Host();
  const r = open(host);
  r.start(1);
  const b = block(proposerKey.publicKey);
  const valueId = headerHash(b.header);
  r.receive('p', { kind: 'proposal', payload: encodeBlock(b), proposal: signProposal(CHAIN, proposerKey, { height: 1, round: 0, polRound: -1, valueId, proposer: proposerKey.publicKey }) });
  for (const k of keys.filter((_, i) => i !== me).slice(0, 2)) {
    r.receive('p', { kind: 'vote', vote: signVote(CHAIN, k, { type: 'prevote', height: 1, round: 0, valueId, validator: k.publicKey }) });
  }
  t.match(r.driver.state, { round: 0, step: 'precommit', locked: { valueId, round: 0 } });
  const own = host.sent.filter((m) => m.kind === 'vote');
  t.same(own.map((m) => m.kind === 'vote' && m.vote.message.type), ['prevote', 'precommit']);

  // Crash: the process is gone; the WAL file and the guard's state remain.
  const host2 = new Host();
  const r2 = open(host2);
  r2.start(1);
  t.match(r2.driver.state, { round: 0, step: 'precommit', locked: { valueId, round: 0 } }, 'resumed where it was');
  const again = host2.sent.filter((m) => m.kind === 'vote');
  t.same(again.map((m) => m.kind === 'vote' && m.vote.signature), [own[1]!.kind === 'vote' && own[1]!.vote.signature],
    'the last vote is re-derived with the same signature; the earlier one is not signed again');
  // Finish the height: two more precommits decide.
  for (const k of keys.filter((_, i) => i !== me).slice(0, 2)) {
    r2.receive('p', { kind: 'vote', vote: signVote(CHAIN, k, { type: 'precommit', height: 1, round: 0, valueId, validator: k.publicKey }) });
  }
  t.equal(host2.decisions.length, 1);
  const cert = host2.decisions[0]!.certificate;
  t.equal(verifyCertificate(CHAIN, cert, set), null, 'the decision carries a valid certificate');
});

// A WAL past its size bound is replaced when the next height signs, not when it starts: the
// block of the height just decided may not be durable yet (empty blocks are written without
// sync), and a power loss that takes it must find that height's lock in the log.
for (const compactBytes of [1, 16 << 20]) {
  t.test(`a power loss after the next height starts, the decided block not durable: the lock holds (WAL bound ${compactBytes} bytes)`, async (t) => {
    const dir = await tempDir();
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const p0 = set.proposer(1, 0);
    const p1 = set.proposer(1, 1);
    const me = keys.findIndex((k) => k.publicKey !== p0 && k.publicKey !== p1);
    const others = keys.filter((_, i) => i !== me);
    const k0 = keys.find((k) => k.publicKey === p0)!;
    const k1 = keys.find((k) => k.publicKey === p1)!;
    const open = (host: Host) => {
      const wal = new FileWal(join(dir, 'consensus.wal'), compactBytes);
      return new Replica(host, { chainId: CHAIN, guard: new SignGuard(keys[me]!, new WalGuardStore(wal)), wal, timeouts: DEFAULT_TIMEOUTS });
    };
    const host = new Host();
    const r = open(host);
    r.start(1);
    const v = block(p0);
    const vId = headerHash(v.header);
    r.receive('p', { kind: 'proposal', payload: encodeBlock(v), proposal: signProposal(CHAIN, k0, { height: 1, round: 0, polRound: -1, valueId: vId, proposer: p0 }) });
    for (const k of others.slice(0, 2)) r.receive('p', { kind: 'vote', vote: signVote(CHAIN, k, { type: 'prevote', height: 1, round: 0, valueId: vId, validator: k.publicKey }) });
    t.match(r.driver.state, { locked: { valueId: vId, round: 0 } }, 'precommitted v and locked on it');
    for (const k of others.slice(0, 2)) r.receive('p', { kind: 'vote', vote: signVote(CHAIN, k, { type: 'precommit', height: 1, round: 0, valueId: vId, validator: k.publicKey }) });
    t.equal(host.decisions.length, 1, 'decided v');
    r.startHeight(2); // the host's write of block 1 resolved, not synced
    // Power loss: block 1 is gone, the application's head is 0 again.
    const host2 = new Host();
    const r2 = open(host2);
    r2.start(1);
    t.match(r2.driver.state, { locked: { valueId: vId, round: 0 } }, 'the lock is back');
    const w = block(p1, 2001);
    const wId = headerHash(w.header);
    for (const k of others.filter((k) => k.publicKey !== p1).slice(0, 2)) {
      r2.receive('p', { kind: 'vote', vote: signVote(CHAIN, k, { type: 'prevote', height: 1, round: 1, valueId: null, validator: k.publicKey }) });
    }
    r2.receive('p', { kind: 'proposal', payload: encodeBlock(w), proposal: signProposal(CHAIN, k1, { height: 1, round: 1, polRound: -1, valueId: wId, proposer: p1 }) });
    const prevote = host2.sent.find((m) => m.kind === 'vote' && m.vote.message.type === 'prevote' && m.vote.message.round === 1);
    t.ok(prevote !== undefined && prevote.kind === 'vote' && prevote.vote.message.valueId !== wId, 'no prevote for another value in round 1 (it has no proof of lock)');
  });
}

t.test('commit certificates', async (t) => {
  const valueId = `0x${'ab'.repeat(32)}`;
  const votes = keys.map((k) => signVote(CHAIN, k, { type: 'precommit', height: 9, round: 2, valueId, validator: k.publicKey }));
  const cert = certificateFromVotes(9, 2, valueId, votes.slice(0, 3));
  t.equal(verifyCertificate(CHAIN, cert, set), null);
  t.equal(verifyCertificate(CHAIN, { ...cert, signatures: cert.signatures.slice(0, 2) }, set), 'not enough voting power', '2 of 4 is not +2/3');
  t.equal(verifyCertificate(CHAIN, { ...cert, signatures: [...cert.signatures.slice(0, 2), cert.signatures[0]!] }, set), 'duplicate validator');
  t.equal(verifyCertificate(CHAIN, { ...cert, round: 3 }, set), 'bad signature', 'the round is signed');
  t.equal(verifyCertificate(CHAIN + 1, cert, set), 'bad signature', 'the chain is signed');
  const outsider = validatorKeyFromSeed(new Uint8Array(32).fill(1));
  const extra: CommitCertificate = { ...cert, signatures: [...cert.signatures, { validator: outsider.publicKey, signature: signVote(CHAIN, outsider, { type: 'precommit', height: 9, round: 2, valueId, validator: outsider.publicKey }).signature }] };
  t.equal(verifyCertificate(CHAIN, extra, set), 'unknown validator');
  t.equal(verifyCertificate(CHAIN, { ...cert, signatures: cert.signatures.map((s) => ({ ...s, signature: 'zz' })) }, set), 'bad signature', 'malformed hex never throws');
});

t.test('evidence verifies only real equivocations', async (t) => {
  const k = keys[1]!;
  const a = signVote(CHAIN, k, { type: 'prevote', height: 4, round: 0, valueId: '0x01', validator: k.publicKey });
  const b = signVote(CHAIN, k, { type: 'prevote', height: 4, round: 0, valueId: null, validator: k.publicKey });
  const c = signVote(CHAIN, k, { type: 'prevote', height: 4, round: 1, valueId: null, validator: k.publicKey });
  t.equal(verifyEvidence(CHAIN, { kind: 'duplicateVote', first: a, second: b }, set), null);
  t.equal(verifyEvidence(CHAIN, { kind: 'duplicateVote', first: a, second: a }, set), 'not conflicting');
  t.equal(verifyEvidence(CHAIN, { kind: 'duplicateVote', first: a, second: c }, set), 'not the same vote slot');
  t.equal(verifyEvidence(CHAIN, { kind: 'duplicateVote', first: a, second: { ...b, signature: a.signature } }, set), 'bad signature');
});

t.test('blocks: canonical bytes only; the checks a validator makes before prevoting', async (t) => {
  const proposer = keys[0]!.publicKey;
  const b = block(proposer);
  const bytes = encodeBlock(b);
  t.same(decodeBlock(bytes), b);
  t.equal(decodeBlock(Uint8Array.of(...bytes, 0)), null, 'trailing bytes are refused');
  t.equal(decodeBlock(utf8('{')), null);
  const ctx = { chainId: CHAIN, parent, validators: set, now: 2000, maxClockDriftMs: 500, evidenceMaxAge: 10, evidenceCommitted: () => false };
  t.equal(checkBlock(b, ctx), null);
  t.equal(checkBlock(block(proposer, 1000), ctx), 'time not after the parent');
  t.equal(checkBlock(block(proposer, 2501), ctx), 'time too far ahead of our clock');
  t.equal(checkBlock({ ...b, header: { ...b.header, appHash: `0x${'33'.repeat(32)}` } }, ctx), 'app hash differs from ours after the parent');
  t.equal(checkBlock({ ...b, txs: [utf8('b'), utf8('a')] }, ctx), 'wrong tx root');
  t.equal(checkBlock(block('ff'.repeat(32)), ctx), 'proposer not a validator');
});
