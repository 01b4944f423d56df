// Referral codes: who may create and use one, the `referral` view, snapshots and state hashes.
import t from 'tap';
import { isActionParseError, parseAction, referral, restoreExchange, snapshotState, stateHash, type TxOutcome } from '../../exchange/index.ts';
import { Harness, USERS, lim } from '../support/exchange.ts';

const [A, B, C, D] = USERS as [string, string, string, string];
const BTC = 0;

function refusal(out: TxOutcome): string {
  if (out.result.status !== 'err') throw new Error('accepted');
  return out.result.error.message;
}

function accepted(out: TxOutcome): unknown {
  if (out.result.status !== 'ok') throw new Error(`refused: ${out.result.error.message}`);
  return out.result.response;
}

/** A trades `lots` of BTC at 100,000 with D (both add the notional to their volume). */
function trade(h: Harness, who: string, size: string) {
  h.order(D, lim(BTC, false, '100000', size));
  h.order(who, lim(BTC, true, '100000', size, 'Ioc'));
}

t.test('parsing: code 1 to 20 letters or digits, upper-cased', async (t) => {
  t.same(parseAction({ type: 'registerReferrer', code: 'alice7' }), { type: 'registerReferrer', code: 'ALICE7' });
  t.same(parseAction({ type: 'setReferrer', code: 'X' }), { type: 'setReferrer', code: 'X' });
  for (const code of ['', 'A'.repeat(21), 'A-B', 'ÀB']) {
    const p = parseAction({ type: 'setReferrer', code });
    t.ok(isActionParseError(p) && p.field === 'action.code', JSON.stringify(code));
  }
  const missing = parseAction({ type: 'registerReferrer' });
  t.ok(isActionParseError(missing) && missing.missing && missing.field === 'action.code');
});

t.test('a code needs 10,000 USD traded; another account joins it once', async (t) => {
  const h = new Harness();
  t.same(referral(h.ex.state, A).referrerState, { stage: 'needToTrade', data: { required: '10000' } });
  t.equal(refusal(h.tx(A, { type: 'registerReferrer', code: 'alice' })), 'Invalid action: creating a referral code needs 10000 USD traded; the account traded 0');
  trade(h, A, '0.1');
  t.same(referral(h.ex.state, A).referrerState, { stage: 'needToCreateCode' });
  t.equal(referral(h.ex.state, A).cumVlm, '10000');
  t.equal(refusal(h.tx(B, { type: 'setReferrer', code: 'ALICE' })), 'Invalid action: unknown referral code ALICE');

  t.same(accepted(h.tx(A, { type: 'registerReferrer', code: 'alice' })), { type: 'default' });
  t.equal(refusal(h.tx(A, { type: 'registerReferrer', code: 'other' })), 'Invalid action: the account already has referral code ALICE');
  t.equal(refusal(h.tx(D, { type: 'registerReferrer', code: 'Alice' })), 'Invalid action: referral code ALICE is taken');
  t.equal(refusal(h.tx(A, { type: 'setReferrer', code: 'ALICE' })), 'Invalid action: an account cannot use its own referral code');
  t.equal(refusal(h.tx(D, { type: 'setReferrer', code: 'ALICE' })), 'Invalid action: a referrer can only be set before the account has traded 10000 USD');

  const joined = h.time + 1;
  t.same(accepted(h.tx(B, { type: 'setReferrer', code: 'alice' })), { type: 'default' });
  t.equal(refusal(h.tx(B, { type: 'setReferrer', code: 'ALICE' })), 'Invalid action: a referrer is already set: code ALICE');
  t.same(referral(h.ex.state, B).referredBy, { referrer: A, code: 'ALICE' });
  trade(h, B, '0.01');
  t.same(referral(h.ex.state, A), {
    referredBy: null,
    cumVlm: '10000',
    unclaimedRewards: '0',
    claimedRewards: '0',
    builderRewards: '0',
    referrerState: {
      stage: 'ready',
      data: { code: 'ALICE', referralStates: [{ cumVlm: '1000', cumRewardedFeesSinceReferred: '0', cumFeesRewardedToReferrer: '0', timeJoined: joined, user: B }] },
    },
    rewardHistory: [],
  });

  // Agents and sub-accounts cannot.
  const agent = '0x' + 'ab'.repeat(20);
  accepted(h.tx(C, { type: 'approveAgent', agentAddress: agent, agentName: '', nonce: h.time + 1 }));
  t.match(refusal(h.tx(agent, { type: 'setReferrer', code: 'ALICE' }, C)), /^Agent not authorized/);
  const sub = (accepted(h.tx(C, { type: 'createSubAccount', name: 's' })) as { data: string }).data;
  t.match(refusal(h.tx(C, { type: 'setReferrer', code: 'ALICE' }, sub)), /^Agent not authorized/);
});

t.test('snapshots carry referrals; an empty state hashes as before', async (t) => {
  const h = new Harness();
  t.notOk('referrals' in (snapshotState(h.ex.state) as object), 'no referrals: no field, so older state hashes hold');
  trade(h, A, '0.1');
  accepted(h.tx(A, { type: 'registerReferrer', code: 'alice' }));
  accepted(h.tx(B, { type: 'setReferrer', code: 'alice' }));
  accepted(h.tx(C, { type: 'setReferrer', code: 'alice' }));
  const snap = snapshotState(h.ex.state);
  const back = restoreExchange(h.ex.state.config, JSON.parse(JSON.stringify(snap)));
  t.equal(stateHash(back.state), stateHash(h.ex.state));
  t.same(referral(back.state, A), referral(h.ex.state, A));
  t.same(referral(back.state, C).referredBy, { referrer: A, code: 'ALICE' });
  t.equal(back.state.referrals.owners.get('ALICE'), A);
});
