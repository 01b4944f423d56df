// The vote keeper: weighted thresholds, each reported once; equivocation kept as evidence.
import t from 'tap';
import { ValidatorSet, VoteKeeper, type SignedVote, type VoteType } from '../../consensus/index.ts';

const set = new ValidatorSet([
  { publicKey: 'a', power: 1 }, { publicKey: 'b', power: 1 }, { publicKey: 'c', power: 1 }, { publicKey: 'd', power: 1 },
]);

function vote(type: VoteType, round: number, validator: string, valueId: string | null): SignedVote {
  return { message: { type, height: 1, round, validator, valueId }, signature: `${type}${round}${validator}${valueId}` };
}

t.test('quorum is strictly more than 2/3 of the power', async (t) => {
  t.notOk(set.isQuorum(2));
  t.ok(set.isQuorum(3));
  t.notOk(set.isOneThird(1));
  t.ok(set.isOneThird(2));
  const weighted = new ValidatorSet([{ publicKey: 'a', power: 5 }, { publicKey: 'b', power: 1 }, { publicKey: 'c', power: 1 }]);
  t.notOk(weighted.isQuorum(4), '4 of 7 is not enough');
  t.ok(weighted.isQuorum(5), '5 of 7 is');
  t.ok(weighted.isOneThird(5), 'one heavy validator alone is more than 1/3');
});

t.test('thresholds are emitted once, in the order they are crossed', async (t) => {
  const k = new VoteKeeper(set);
  t.same(k.addVote(vote('prevote', 0, 'a', 'v')).thresholds, []);
  t.same(k.addVote(vote('prevote', 0, 'b', 'v')).thresholds, [{ kind: 'skipRound', round: 0 }], '+1/3 voted in round 0');
  t.same(k.addVote(vote('prevote', 0, 'c', 'v')).thresholds, [
    { kind: 'polkaValue', round: 0, valueId: 'v' }, { kind: 'polkaAny', round: 0 },
  ]);
  t.same(k.addVote(vote('prevote', 0, 'd', null)).thresholds, [], 'nothing new after the polka');
  t.ok(k.isPolkaFor(0, 'v'));
  t.notOk(k.isPolkaNil(0));
  t.same(k.addVote(vote('precommit', 0, 'a', null)).thresholds, []);
  t.same(k.addVote(vote('precommit', 0, 'b', 'v')).thresholds, []);
  t.same(k.addVote(vote('precommit', 0, 'c', 'w')).thresholds, [{ kind: 'precommitAny', round: 0 }], 'any: split precommits');
  t.same(k.precommitQuorums(), []);
});

t.test('polka nil and precommit value; votes from outside the set do not count', async (t) => {
  const k = new VoteKeeper(set);
  t.equal(k.addVote(vote('prevote', 1, 'x', null)).counted, false);
  for (const v of ['a', 'b']) k.addVote(vote('prevote', 1, v, null));
  const third = k.addVote(vote('prevote', 1, 'c', null)).thresholds;
  t.same(third, [{ kind: 'polkaNil', round: 1 }, { kind: 'polkaAny', round: 1 }]);
  for (const v of ['a', 'b']) k.addVote(vote('precommit', 2, v, 'v'));
  t.same(k.addVote(vote('precommit', 2, 'c', 'v')).thresholds, [{ kind: 'precommitValue', round: 2, valueId: 'v' }, { kind: 'precommitAny', round: 2 }]);
  t.same(k.precommitQuorums(), [{ round: 2, valueId: 'v' }]);
  t.equal(k.precommitsFor(2, 'v').length, 3);
});

t.test('skip round: +1/3 of the power in a higher round, counting each validator once across types', async (t) => {
  const k = new VoteKeeper(set);
  k.addVote(vote('prevote', 5, 'a', 'v'));
  k.addVote(vote('precommit', 5, 'a', 'v'));
  t.equal(k.skipTarget(0), -1, 'one validator twice is still 1/4');
  k.addVote(vote('precommit', 5, 'b', null));
  t.equal(k.skipTarget(0), 5);
  t.equal(k.skipTarget(5), -1, 'only rounds above the current one');
  k.addVote(vote('prevote', 7, 'c', null));
  k.addVote(vote('prevote', 7, 'd', null));
  t.equal(k.skipTarget(0), 7, 'the highest round qualifies');
});

t.test('an equivocating validator: first vote counts, the second is evidence', async (t) => {
  const k = new VoteKeeper(set);
  k.addVote(vote('prevote', 0, 'a', 'v'));
  const dup = k.addVote(vote('prevote', 0, 'a', 'v'));
  t.equal(dup.counted, false);
  t.equal(dup.evidence, null, 'a repeated vote is not an equivocation');
  const eq = k.addVote(vote('prevote', 0, 'a', 'w'));
  t.equal(eq.counted, false);
  t.equal(eq.evidence?.first.message.valueId, 'v');
  t.equal(eq.evidence?.second.message.valueId, 'w');
  k.addVote(vote('prevote', 0, 'b', 'w'));
  k.addVote(vote('prevote', 0, 'c', 'w'));
  t.notOk(k.isPolkaFor(0, 'w'), "a's second vote does not add to w");
});
