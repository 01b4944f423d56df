// The signer pool's packed jobs and answers read back as they were written.
import t from 'tap';
import { isPackable, packJobs, packOuts, unpackJobs, unpackOuts, type PackableJob, type RecoveryOut } from '../../node/index.ts';

const sig = { r: `0x${'1f'.repeat(32)}`, s: `0x${'2e'.repeat(32)}`, v: 27 };
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

t.test('jobs round-trip: canonical bytes of any text, vault and hint present or not, any float', async (t) => {
  const jobs: PackableJob[] = [
    { req: { action: undefined, nonce: 1_767_225_600_000, vaultAddress: null, signature: sig }, binding: 'action', encode: true, canonical: utf8('{"type":"order"}') },
    { req: { action: undefined, nonce: 0.1, vaultAddress: `0x${'ab'.repeat(20)}`, signature: { ...sig, v: -0 } }, binding: 'action', encode: true, canonical: utf8('{"m":"é ☃ 𝄞"}'), hint: `0x${'cd'.repeat(20)}` },
    { req: { action: undefined, nonce: Number.MAX_SAFE_INTEGER, vaultAddress: null, signature: { r: '', s: 'x', v: 1e300 } }, binding: 'action', encode: true, canonical: new Uint8Array(0), hint: '' },
  ];
  const back = unpackJobs(packJobs(jobs));
  t.same(back.map((j) => ({ ...j, canonical: [...j.canonical] })), jobs.map((j) => ({ ...j, canonical: [...j.canonical] })));
  t.ok(Object.is(back[1]!.req.signature.v, -0));
  t.equal(back[0]!.hint, undefined);
  t.notOk('hint' in back[0]!);
  t.same(unpackJobs(packJobs([])), []);
});

t.test('answers round-trip: no address, no transaction, both, with or without a leaf; bytes copied out', async (t) => {
  const outs: RecoveryOut[] = [
    { address: null },
    { address: `0x${'ab'.repeat(20)}`, tx: { bytes: Uint8Array.of(1, 2, 3), hash: `0x${'00'.repeat(32)}` } },
    { address: null, tx: { bytes: new Uint8Array(0), hash: '0x' } },
    { address: `0x${'cd'.repeat(20)}` },
    { address: `0x${'ef'.repeat(20)}`, tx: { bytes: Uint8Array.of(4, 5), hash: `0x${'11'.repeat(32)}`, leaf: new Uint8Array(32).fill(7) } },
  ];
  const plain = (o: RecoveryOut) => ({ ...o, ...(o.tx === undefined ? {} : { tx: { bytes: [...o.tx.bytes], hash: o.tx.hash, leaf: o.tx.leaf === undefined ? undefined : [...o.tx.leaf] } }) });
  const back = unpackOuts(packOuts(outs));
  t.same(back.map(plain), outs.map(plain));
  t.equal(back[1]!.tx!.bytes.buffer.byteLength, 3);
  t.throws(() => packOuts([{ address: null, candidates: [] }]), /candidates/);
});

t.test('only the action binding, encoded, with an exact {r, s, v} of ASCII strings is packed', async (t) => {
  const req = { action: undefined, nonce: 1, vaultAddress: null, signature: sig };
  const c = utf8('{}');
  t.ok(isPackable({ req, binding: 'action', encode: true, canonical: c }));
  t.notOk(isPackable({ req, binding: 'action', encode: true, canonical: '{}' }), 'a canonical text as a string goes as an object');
  t.ok(isPackable({ req: { ...req, vaultAddress: `0x${'ab'.repeat(20)}` }, binding: 'action', encode: true, canonical: c, hint: `0x${'cd'.repeat(20)}` }));
  t.notOk(isPackable({ req, binding: 'literal', encode: false }));
  t.notOk(isPackable({ req, binding: 'action', encode: false, canonical: c }));
  t.notOk(isPackable({ req, binding: 'action', encode: true }));
  t.notOk(isPackable({ req: { ...req, dialect: 'hyperliquid' }, binding: 'action', encode: true, canonical: c }));
  t.notOk(isPackable({ tx: new Uint8Array(1) }));
  for (const signature of [{ ...sig, extra: 1 }, { r: sig.r, s: sig.s }, { ...sig, v: '27' }, { ...sig, r: 1 }, { ...sig, s: 'é' }, { ...sig, r: `0x${'0'.repeat(100)}` }, null, 'sig', [sig.r, sig.s, 27]]) {
    t.notOk(isPackable({ req: { ...req, signature }, binding: 'action', encode: true, canonical: c }), JSON.stringify(signature));
  }
  t.notOk(isPackable({ req: { ...req, vaultAddress: 'é' }, binding: 'action', encode: true, canonical: c }));
  // Fields the types promise but a request's JSON may not keep: such a job goes as an object.
  t.notOk(isPackable({ req: { ...req, nonce: '1' as unknown as number }, binding: 'action', encode: true, canonical: c }));
  t.notOk(isPackable({ req: { ...req, vaultAddress: undefined as unknown as null }, binding: 'action', encode: true, canonical: c }));
  t.notOk(isPackable({ req, binding: 'action', encode: true, canonical: c, hint: 7 as unknown as string }));
  t.notOk(isPackable({ req, binding: 'action', encode: true, canonical: c, hint: '☃' }));
});
