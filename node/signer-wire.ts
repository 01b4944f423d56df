// The signer pool's common jobs in one buffer each way. A request signed under the action binding,
// to be encoded (every order, cancel and batch a client posts), crosses to a worker as its fields'
// text and numbers in one transferred buffer, and its answer (address, transaction bytes, hash)
// comes back the same way: structured clone of a batch's objects cost about 5 µs a job over both
// threads, a third of it on the event loop (docs/performance.md). Other jobs travel as objects.
//
// Layout, little-endian. Jobs: u32 count, then per job: u8 flags (1 vault, 2 hint), f64 nonce,
// f64 v, then the canonical action text's bytes and the strings r, s, [vault], [hint], each u32
// length + UTF-8 bytes.
// Answers: u32 count, then per answer: u8 flags (1 address, 2 transaction, 4 its leaf), [address:
// u32 length + ASCII], [u32 length + transaction bytes, u32 length + ASCII hash, [u32 length + leaf]].
import type { RecoveryJob, RecoveryOut } from './signer-worker.ts';

/** A job of the packed kind, as the pool builds it. */
export interface PackableJob {
  readonly req: { readonly action: undefined; readonly nonce: number; readonly vaultAddress: string | null; readonly signature: { readonly r: string; readonly s: string; readonly v: number } };
  readonly binding: 'action';
  readonly encode: true;
  /** The action's canonical text as UTF-8 (the pool writes it so; a worker reads a view of its batch). */
  readonly canonical: Uint8Array;
  readonly hint?: string;
}

/** Longer r or s texts (a 32-byte scalar is 66 characters) go as objects: no long scans here. */
const MAX_SCALAR_TEXT = 80;

function ascii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Whether a job travels packed: the action binding, encoded, with its canonical text, and a
 * signature of exactly {r, s, v} with ASCII strings (what canonicalize writes for it is then
 * rebuilt exactly on the other side). Anything else, malformed signatures included, goes as an
 * object and is answered as before.
 */
export function isPackable(job: RecoveryJob): job is PackableJob {
  if (!('req' in job) || job.binding !== 'action' || !job.encode || !(job.canonical instanceof Uint8Array) || job.req.dialect !== undefined) return false;
  const sig = job.req.signature as { r?: unknown; s?: unknown; v?: unknown } | null;
  if (typeof sig !== 'object' || sig === null) return false;
  let keys = 0;
  for (const k in sig) if (Object.hasOwn(sig, k) && ++keys > 3) return false;
  const { nonce, vaultAddress } = job.req as { nonce: unknown; vaultAddress: unknown };
  return keys === 3 && typeof sig.r === 'string' && typeof sig.s === 'string' && typeof sig.v === 'number'
    && sig.r.length <= MAX_SCALAR_TEXT && sig.s.length <= MAX_SCALAR_TEXT && ascii(sig.r) && ascii(sig.s)
    && typeof nonce === 'number' && (vaultAddress === null || (typeof vaultAddress === 'string' && ascii(vaultAddress)))
    && (job.hint === undefined || (typeof job.hint === 'string' && ascii(job.hint)));
}

const encoder = new TextEncoder();

class Writer {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  pos = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
  u8(n: number): void {
    this.bytes[this.pos++] = n;
  }
  u32(n: number): void {
    this.view.setUint32(this.pos, n, true);
    this.pos += 4;
  }
  f64(n: number): void {
    this.view.setFloat64(this.pos, n, true);
    this.pos += 8;
  }
  text(s: string): void {
    const at = this.pos;
    this.pos += 4;
    const { written } = encoder.encodeInto(s, this.bytes.subarray(this.pos));
    this.view.setUint32(at, written, true);
    this.pos += written;
  }
  raw(b: Uint8Array): void {
    this.u32(b.length);
    this.bytes.set(b, this.pos);
    this.pos += b.length;
  }
}

class Reader {
  private readonly view: DataView;
  private readonly buf: Buffer;
  pos = 0;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(): number {
    return this.bytes[this.pos++] as number;
  }
  u32(): number {
    const n = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return n;
  }
  f64(): number {
    const n = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return n;
  }
  text(): string {
    const n = this.u32();
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  /** A view of the bytes (valid while they are). */
  bytesView(): Uint8Array {
    const n = this.u32();
    const b = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  /** A copy: the answer's buffer is not kept alive by the transactions cut from it. */
  raw(): Uint8Array {
    const n = this.u32();
    const b = this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}

/** A string's room: its length prefix and its UTF-8 bytes (ASCII: one a character). */
const room = (s: string): number => 4 + Buffer.byteLength(s, 'utf8');
const asciiRoom = (s: string): number => 4 + s.length;

export function packJobs(jobs: readonly PackableJob[]): Uint8Array {
  let size = 4;
  for (const j of jobs) {
    const sig = j.req.signature;
    size += 17 + 4 + j.canonical.length + asciiRoom(sig.r) + asciiRoom(sig.s) + (j.req.vaultAddress === null ? 0 : asciiRoom(j.req.vaultAddress)) + (j.hint === undefined ? 0 : asciiRoom(j.hint));
  }
  const w = new Writer(size);
  w.u32(jobs.length);
  for (const j of jobs) {
    const { nonce, vaultAddress, signature } = j.req;
    w.u8((vaultAddress === null ? 0 : 1) | (j.hint === undefined ? 0 : 2));
    w.f64(nonce);
    w.f64(signature.v);
    w.raw(j.canonical);
    w.text(signature.r);
    w.text(signature.s);
    if (vaultAddress !== null) w.text(vaultAddress);
    if (j.hint !== undefined) w.text(j.hint);
  }
  return w.bytes.subarray(0, w.pos);
}

export function unpackJobs(bytes: Uint8Array): PackableJob[] {
  const r = new Reader(bytes);
  const jobs: PackableJob[] = new Array(r.u32());
  for (let i = 0; i < jobs.length; i++) {
    const flags = r.u8();
    const nonce = r.f64();
    const v = r.f64();
    const canonical = r.bytesView();
    const sr = r.text();
    const ss = r.text();
    const vaultAddress = (flags & 1) !== 0 ? r.text() : null;
    const req = { action: undefined, nonce, vaultAddress, signature: { r: sr, s: ss, v } };
    jobs[i] = (flags & 2) !== 0 ? { req, binding: 'action', encode: true, canonical, hint: r.text() } : { req, binding: 'action', encode: true, canonical };
  }
  return jobs;
}

export function packOuts(outs: readonly RecoveryOut[]): Uint8Array {
  let size = 4;
  for (const o of outs) size += 1 + (o.address === null ? 0 : room(o.address)) + (o.tx === undefined ? 0 : 4 + o.tx.bytes.length + room(o.tx.hash) + (o.tx.leaf === undefined ? 0 : 4 + o.tx.leaf.length));
  const w = new Writer(size);
  w.u32(outs.length);
  for (const o of outs) {
    if (o.candidates !== undefined) throw new Error('invariant: a packed job answered with candidates');
    w.u8((o.address === null ? 0 : 1) | (o.tx === undefined ? 0 : 2) | (o.tx?.leaf === undefined ? 0 : 4));
    if (o.address !== null) w.text(o.address);
    if (o.tx !== undefined) {
      w.raw(o.tx.bytes);
      w.text(o.tx.hash);
      if (o.tx.leaf !== undefined) w.raw(o.tx.leaf);
    }
  }
  return w.bytes.subarray(0, w.pos);
}

export function unpackOuts(bytes: Uint8Array): RecoveryOut[] {
  const r = new Reader(bytes);
  const outs: RecoveryOut[] = new Array(r.u32());
  for (let i = 0; i < outs.length; i++) {
    const flags = r.u8();
    const address = (flags & 1) !== 0 ? r.text() : null;
    if ((flags & 2) === 0) {
      outs[i] = { address };
      continue;
    }
    const txBytes = r.raw();
    const hash = r.text();
    outs[i] = { address, tx: (flags & 4) !== 0 ? { bytes: txBytes, hash, leaf: r.raw() } : { bytes: txBytes, hash } };
  }
  return outs;
}
