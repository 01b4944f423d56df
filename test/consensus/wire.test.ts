// Consensus messages on the wire: what encodeMessage writes decodes to the same message; a block
// travels as its own bytes, and a compact proposal expands back to the whole one.
import t from 'tap';
import {
  compactMessage, decodeMessage, encodeBlock, encodeMessage, expandMessage, isCompactMessage, txKey, txRoot, type ConsensusMessage,
} from '../../consensus/index.ts';
import { utf8 } from '../../primitives/index.ts';

const signed = { message: { height: 3, round: 0, polRound: -1, valueId: `0x${'ab'.repeat(32)}`, proposer: 'cd'.repeat(32) }, signature: 'ef'.repeat(64) };
const proposal = (payload: Uint8Array): ConsensusMessage => ({ kind: 'proposal', proposal: signed, payload });

t.test('payloads of every length round-trip', async (t) => {
  for (const n of [0, 1, 2, 3, 4, 5, 100, 70_000]) {
    const payload = Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff);
    const back = decodeMessage(Buffer.from(encodeMessage(proposal(payload)))); // frames arrive as Buffers
    t.same(back, proposal(payload), `${n} bytes`);
    t.equal((back as { payload: Uint8Array }).payload.constructor, Uint8Array, 'a plain Uint8Array');
    t.equal((back as { payload: Uint8Array }).payload.byteLength, (back as { payload: Uint8Array }).payload.buffer.byteLength, 'owning its buffer');
  }
  const decided: ConsensusMessage = { kind: 'decided', certificate: { height: 3, round: 1, valueId: signed.message.valueId, signatures: [{ validator: 'cd'.repeat(32), signature: 'ef'.repeat(64) }] }, payload: Uint8Array.of(1, 2) };
  t.same(decodeMessage(encodeMessage(decided)), decided);
  const vote: ConsensusMessage = { kind: 'vote', vote: { message: { type: 'prevote', height: 3, round: 0, valueId: null, validator: 'cd'.repeat(32) }, signature: 'ef'.repeat(64) } };
  t.same(decodeMessage(encodeMessage(vote)), vote);
});

t.test('broken framing or a malformed head is refused', async (t) => {
  const good = encodeMessage(proposal(Uint8Array.of(1, 2, 3)));
  t.equal(decodeMessage(good.subarray(0, 4)), null, 'shorter than its head length');
  const long = good.slice();
  new DataView(long.buffer).setUint32(1, good.length);
  t.equal(decodeMessage(long), null, 'a head length beyond the message');
  const head = (json: string) => {
    const h = utf8(json);
    const out = new Uint8Array(5 + h.length);
    out[0] = 1;
    new DataView(out.buffer).setUint32(1, h.length);
    out.set(h, 5);
    return out;
  };
  t.not(decodeMessage(head(JSON.stringify({ proposal: signed }))), null, 'the well-formed head');
  t.equal(decodeMessage(head('{')), null, 'not JSON');
  t.equal(decodeMessage(head(JSON.stringify({ proposal: { ...signed, signature: 'ef' } }))), null, 'a short signature');
  t.equal(decodeMessage(head(JSON.stringify({ proposal: { ...signed, message: { ...signed.message, height: 0 } } }))), null, 'height 0');
  t.equal(decodeMessage(Uint8Array.of(9, 0, 0, 0, 0)), null, 'an unknown kind');
});

t.test('a compact proposal names known transactions and expands to the whole message', async (t) => {
  const txs = [utf8('gossiped'), utf8('not gossiped'), utf8('also gossiped')];
  const block = encodeBlock({ header: { chainId: 7, height: 3, time: 5000, parentHash: `0x${'11'.repeat(32)}`, txRoot: txRoot(txs), appHash: `0x${'22'.repeat(32)}`, proposer: 'cd'.repeat(32) }, txs });
  const whole = encodeMessage(proposal(block));
  const cache = new Map([txs[0]!, txs[2]!].map((tx) => [txKey(tx), tx]));
  t.equal(compactMessage(whole, () => false), null, 'nothing known: sent whole');
  t.equal(compactMessage(encodeMessage({ kind: 'status', height: 3 }), () => true), null, 'not a proposal');
  const compact = compactMessage(whole, (k) => cache.has(k)) as Uint8Array;
  t.ok(isCompactMessage(compact));
  t.equal(decodeMessage(compact), null, 'a compact proposal is not decoded as it stands');
  const back = expandMessage(compact, (k) => cache.get(k)) as Uint8Array;
  t.equal(Buffer.compare(back, whole), 0, 'the same bytes');
  t.same(expandMessage(compact, () => undefined), { missing: 2, signature: signed.signature });
  t.equal(expandMessage(whole, () => undefined), null, 'a whole message is not expanded');
});
