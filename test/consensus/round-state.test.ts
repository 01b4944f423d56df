// The round state machine as step tables (malachite's style): input, expected outputs, new state.
import t from 'tap';
import { applyRound, initialRoundState, type RoundInput, type RoundOutput, type RoundState } from '../../consensus/index.ts';

interface Row {
  readonly name: string;
  readonly input: RoundInput;
  readonly outputs: RoundOutput[] | null;
  readonly state?: Partial<RoundState>;
}

function run(t: TestLike, start: RoundState, rows: Row[]): RoundState {
  let s = start;
  for (const row of rows) {
    const tr = applyRound(s, row.input);
    if (row.outputs === null) {
      t.equal(tr, null, `${row.name}: not applicable`);
      continue;
    }
    t.ok(tr !== null, `${row.name}: applies`);
    if (tr === null) return s;
    t.same(tr.outputs, row.outputs, `${row.name}: outputs`);
    if (row.state !== undefined) t.match(tr.state, row.state, `${row.name}: state`);
    s = tr.state;
  }
  return s;
}

type TestLike = Pick<typeof t, 'ok' | 'equal' | 'same' | 'match'>;

const h = initialRoundState(1);

t.test('proposer decides in one round', async (t) => {
  run(t, h, [
    { name: 'L11 start as proposer, no valid value', input: { kind: 'newRound', round: 0, proposer: true },
      outputs: [{ kind: 'getValue', round: 0 }, { kind: 'scheduleTimeout', step: 'propose', round: 0 }], state: { round: 0, step: 'propose' } },
    { name: 'L18 value arrives', input: { kind: 'proposeValue', round: 0, valueId: 'v' }, outputs: [{ kind: 'propose', round: 0, valueId: 'v', polRound: -1 }] },
    { name: 'L19 only once', input: { kind: 'proposeValue', round: 0, valueId: 'w' }, outputs: null },
    { name: 'L22 own proposal', input: { kind: 'proposal', valueId: 'v', valid: true }, outputs: [{ kind: 'prevote', round: 0, valueId: 'v' }], state: { step: 'prevote' } },
    { name: 'L34', input: { kind: 'polkaAny' }, outputs: [{ kind: 'scheduleTimeout', step: 'prevote', round: 0 }] },
    { name: 'L34 once', input: { kind: 'polkaAny' }, outputs: null },
    { name: 'L36 lock', input: { kind: 'proposalAndPolkaCurrent', valueId: 'v' }, outputs: [{ kind: 'precommit', round: 0, valueId: 'v' }],
      state: { step: 'precommit', locked: { valueId: 'v', round: 0 }, valid: { valueId: 'v', round: 0 } } },
    { name: 'L47', input: { kind: 'precommitAny' }, outputs: [{ kind: 'scheduleTimeout', step: 'precommit', round: 0 }] },
    { name: 'L49', input: { kind: 'proposalAndPrecommitValue', round: 0, valueId: 'v' }, outputs: [{ kind: 'decide', round: 0, valueId: 'v' }],
      state: { step: 'commit', decision: { valueId: 'v', round: 0 } } },
    { name: 'nothing after the decision', input: { kind: 'timeout', step: 'precommit', round: 0 }, outputs: null },
  ]);
});

t.test('timeouts: nil prevote, nil precommit, next round', async (t) => {
  run(t, h, [
    { name: 'L21 not proposer', input: { kind: 'newRound', round: 0, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 0 }] },
    { name: 'stale round timeout', input: { kind: 'timeout', step: 'propose', round: 3 }, outputs: null },
    { name: 'L57', input: { kind: 'timeout', step: 'propose', round: 0 }, outputs: [{ kind: 'prevote', round: 0, valueId: null }] },
    { name: 'late proposal ignored (L22 needs step propose)', input: { kind: 'proposal', valueId: 'v', valid: true }, outputs: null },
    { name: 'L61', input: { kind: 'timeout', step: 'prevote', round: 0 }, outputs: [{ kind: 'precommit', round: 0, valueId: null }], state: { step: 'precommit' } },
    { name: 'L44 needs step prevote', input: { kind: 'polkaNil' }, outputs: null },
    { name: 'L65', input: { kind: 'timeout', step: 'precommit', round: 0 }, outputs: [{ kind: 'newRound', round: 1 }] },
  ]);
});

t.test('polka nil precommits nil; invalid proposals are prevoted nil', async (t) => {
  run(t, h, [
    { name: 'start', input: { kind: 'newRound', round: 0, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 0 }] },
    { name: 'L22 invalid value', input: { kind: 'proposal', valueId: 'v', valid: false }, outputs: [{ kind: 'prevote', round: 0, valueId: null }] },
    { name: 'L44', input: { kind: 'polkaNil' }, outputs: [{ kind: 'precommit', round: 0, valueId: null }] },
  ]);
});

t.test('locked: prevote nil on another value, prevote a re-proposal with a newer polka (L22, L28)', async (t) => {
  const locked: RoundState = { ...h, round: 2, step: 'unstarted', locked: { valueId: 'v', round: 1 }, valid: { valueId: 'v', round: 1 } };
  run(t, locked, [
    { name: 'round 3, not proposer', input: { kind: 'newRound', round: 3, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 3 }] },
    { name: 'L22 locked on v, proposal w', input: { kind: 'proposal', valueId: 'w', valid: true }, outputs: [{ kind: 'prevote', round: 3, valueId: null }] },
  ]);
  run(t, locked, [
    { name: 'round 3', input: { kind: 'newRound', round: 3, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 3 }] },
    { name: 'L28 polka of round 2 >= lockedRound 1 unlocks', input: { kind: 'proposalAndPolkaPrevious', valueId: 'w', polRound: 2, valid: true },
      outputs: [{ kind: 'prevote', round: 3, valueId: 'w' }] },
  ]);
  run(t, locked, [
    { name: 'round 3', input: { kind: 'newRound', round: 3, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 3 }] },
    { name: 'L28 polka of round 0 < lockedRound 1 does not', input: { kind: 'proposalAndPolkaPrevious', valueId: 'w', polRound: 0, valid: true },
      outputs: [{ kind: 'prevote', round: 3, valueId: null }] },
  ]);
  run(t, locked, [
    { name: 'L11-L16 proposer re-proposes the valid value with its round', input: { kind: 'newRound', round: 3, proposer: true },
      outputs: [{ kind: 'propose', round: 3, valueId: 'v', polRound: 1 }, { kind: 'scheduleTimeout', step: 'propose', round: 3 }] },
    { name: 'L28 polRound must be below the round', input: { kind: 'proposalAndPolkaPrevious', valueId: 'v', polRound: 3, valid: true }, outputs: null },
  ]);
});

t.test('L36 after precommitting nil only updates the valid value (L42)', async (t) => {
  run(t, h, [
    { name: 'start', input: { kind: 'newRound', round: 0, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 0 }] },
    { name: 'L57', input: { kind: 'timeout', step: 'propose', round: 0 }, outputs: [{ kind: 'prevote', round: 0, valueId: null }] },
    { name: 'L61', input: { kind: 'timeout', step: 'prevote', round: 0 }, outputs: [{ kind: 'precommit', round: 0, valueId: null }] },
    { name: 'L36 in precommit', input: { kind: 'proposalAndPolkaCurrent', valueId: 'v' }, outputs: [],
      state: { locked: null, valid: { valueId: 'v', round: 0 } } },
    { name: 'L36 once', input: { kind: 'proposalAndPolkaCurrent', valueId: 'v' }, outputs: null },
  ]);
});

t.test('L36 needs step >= prevote; L55 skips forward only', async (t) => {
  run(t, h, [
    { name: 'start', input: { kind: 'newRound', round: 0, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 0 }] },
    { name: 'L36 in propose', input: { kind: 'proposalAndPolkaCurrent', valueId: 'v' }, outputs: null },
    { name: 'L55', input: { kind: 'skipRound', round: 4 }, outputs: [{ kind: 'newRound', round: 4 }] },
    { name: 'L11 round 4', input: { kind: 'newRound', round: 4, proposer: false }, outputs: [{ kind: 'scheduleTimeout', step: 'propose', round: 4 }], state: { round: 4, step: 'propose' } },
    { name: 'L55 not backwards', input: { kind: 'skipRound', round: 2 }, outputs: null },
    { name: 'L11 not backwards', input: { kind: 'newRound', round: 3, proposer: false }, outputs: null },
  ]);
});
