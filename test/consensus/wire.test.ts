// Consensus messages on the wire: what encodeMessage writes decodes to the same message, and a
// payload that is not canonical base64 makes the message malformed.
import t from 'tap';
import { decodeMessage, encodeMessage, type ConsensusMessage } from '../../consensus/index.ts';

const proposal = (payload: Uint8Array): ConsensusMessage => ({
  kind: 'proposal',
  proposal: { message: { height: 3, round: 0, polRound: -1, valueId: `0x${'ab'.repeat(32)}`, proposer: 'cd'.repeat(32) }, signature: 'ef'.repeat(64) },
  payload,
});

t.test('payloads of every length round-trip', async (t) => {
  for (const n of [0, 1, 2, 3, 4, 5, 100, 70_000]) {
    const payload = Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff);
    const back = decodeMessage(encodeMessage(proposal(payload)));
    t.same(back, proposal(payload), `${n} bytes`);
    t.equal((back as { payload: Uint8Array }).payload.constructor, Uint8Array, 'a plain Uint8Array');
    t.equal((back as { payload: Uint8Array }).payload.byteLength, (back as { payload: Uint8Array }).payload.buffer.byteLength, 'owning its buffer');
  }
});

t.test('a payload that is not canonical base64 is refused', async (t) => {
  const text = new TextDecoder().decode(encodeMessage(proposal(Uint8Array.of(1, 2, 3, 4))));
  const good = JSON.parse(text) as { payload: string };
  t.equal(good.payload, 'AQIDBA==');
  for (const bad of ['AQIDBA', 'AQIDBA=', 'AQID BA==', 'AQIDBA==\n', 'AQ!DBA==', 'AQIDBB==', '====', 5, null]) {
    const msg = new TextEncoder().encode(JSON.stringify({ ...good, payload: bad }));
    t.equal(decodeMessage(msg), null, JSON.stringify(bad));
  }
});
