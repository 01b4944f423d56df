// Fewer, larger writes under libp2p's noise. js-libp2p sends each piece where it is made: every
// yamux frame (each data frame, and a window update for each data frame received) is sealed as
// its own noise message, and the TCP connection writes a noise message's 2-byte length and its
// ciphertext with two `write` calls. On a validator at saturation that was 10,400 write calls a
// second (a quarter of them 2 bytes long) and the kernel's write path 14% of the event loop.
//
// Here what a tick sends on a connection waits for the end of the tick (a microtask): the yamux
// frames of the tick are sealed as one noise message, and the noise messages of the tick leave in
// one write. Every byte on the wire is as before except how many yamux frames share a noise
// message, which noise leaves to the sender (a message still holds at most 65,535 bytes).
import type { ConnectionEncrypter, MessageStream, SecureConnectionOptions, SecuredConnection } from '@libp2p/interface';
import { count } from '../primitives/index.ts';

/** What a message stream sends: bytes, or a list of byte arrays (uint8arraylist's). */
type Chunk = Parameters<MessageStream['send']>[0];

/**
 * `stream` with its sends of a tick handed on together at the end of the tick, joined by `join`.
 * A send to a stream that is not writable goes through at once (so it throws as it would); a
 * close sends what waits first; an abort drops it. A send that fails at the end of the tick
 * aborts the stream, as the connection would be after a failed write.
 */
export function coalescingStream<S extends MessageStream>(stream: S, join: (chunks: Chunk[], bytes: number) => Chunk, counter: string): S {
  let pending: Chunk[] = [];
  let bytes = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const chunks = pending;
    const n = bytes;
    pending = [];
    bytes = 0;
    count(counter);
    try {
      const only = chunks.length === 1 ? chunks[0] : undefined;
      stream.send(only instanceof Uint8Array ? only : join(chunks, n));
    } catch (err) {
      stream.abort(err as Error);
    }
  };
  // libp2p's streams keep a write status beside the interface's status.
  const writable = (): boolean => {
    const w = (stream as { writeStatus?: string }).writeStatus;
    return w === undefined ? stream.status === 'open' : w === 'writable';
  };
  const send = (data: Chunk): boolean => {
    if (!writable()) {
      flush();
      return stream.send(data);
    }
    if (pending.length === 0) queueMicrotask(flush);
    pending.push(data);
    bytes += data.byteLength;
    return !stream.writableNeedsDrain;
  };
  const close = (options?: Parameters<S['close']>[0]): Promise<void> => {
    flush();
    return stream.close(options);
  };
  const abort = (err: Error): void => {
    pending = [];
    bytes = 0;
    stream.abort(err);
  };
  return new Proxy(stream, {
    get(target, key) {
      if (key === 'send') return send;
      if (key === 'close') return close;
      if (key === 'abort') return abort;
      return passThrough(target, key);
    },
  });
}

/**
 * The target's own property as it is (a logger is a function with properties); a method called on
 * the target itself (libp2p's streams are EventTargets, whose methods refuse another `this`).
 */
function passThrough(target: object, key: string | symbol): unknown {
  const value: unknown = Reflect.get(target, key, target);
  if (typeof value !== 'function' || Object.prototype.hasOwnProperty.call(target, key)) return value;
  return (value as (...args: unknown[]) => unknown).bind(target);
}

/** A tick's chunks as one buffer: noise seals it as one message (up to its size limit), a socket writes it with one call. */
function concat(chunks: Chunk[], bytes: number): Uint8Array {
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const c of chunks) {
    if (c instanceof Uint8Array) {
      out.set(c, at);
      at += c.byteLength;
    } else {
      for (const b of c) {
        out.set(b, at);
        at += b.byteLength;
      }
    }
  }
  return out;
}

/**
 * `encrypter` (noise) with both sides of the secured connection coalesced per tick: the plaintext
 * it is given (yamux frames) and the ciphertext it writes (to the TCP connection).
 */
export function coalescingEncrypter<E>(encrypter: ConnectionEncrypter<E>): ConnectionEncrypter<E> {
  const secured = (s: SecuredConnection<E>): SecuredConnection<E> => ({ ...s, connection: coalescingStream(s.connection, concat, 'p2p sealed sends') });
  return new Proxy(encrypter, {
    get(target, key) {
      if (key === 'secureInbound') {
        return async (connection: MessageStream, options?: SecureConnectionOptions) =>
          secured(await target.secureInbound(coalescingStream(connection, concat, 'p2p socket writes'), options));
      }
      if (key === 'secureOutbound') {
        return async (connection: MessageStream, options?: SecureConnectionOptions) =>
          secured(await target.secureOutbound(coalescingStream(connection, concat, 'p2p socket writes'), options));
      }
      return passThrough(target, key);
    },
  });
}

/** js-yamux's `StreamState.Established` (its stream.js); the other states keep every update. */
const YAMUX_ESTABLISHED = 3;

interface YamuxWindow {
  sendWindowUpdate(): void;
  recvWindow: number;
  recvWindowCapacity: number;
  state: number;
}

/**
 * js-yamux answers every data frame it reads with a window update, so each frame costs a write on
 * each side. A receiver may grant credit when it likes: this stream grants it once less than half
 * of its window is left (as go-yamux does), so a run of small frames costs an update per half
 * window (128 KiB at first). The sender never waits on it: half a window is always granted. A
 * stream that is not js-yamux's is left as it is.
 */
export function lazyWindowUpdates(stream: object): void {
  const s = stream as Partial<YamuxWindow>;
  const update = s.sendWindowUpdate;
  if (typeof update !== 'function' || typeof s.recvWindow !== 'number' || typeof s.recvWindowCapacity !== 'number' || typeof s.state !== 'number') return;
  s.sendWindowUpdate = function (this: YamuxWindow): void {
    if (this.state === YAMUX_ESTABLISHED && this.recvWindowCapacity * 2 > this.recvWindow) return;
    update.call(this);
  };
}
