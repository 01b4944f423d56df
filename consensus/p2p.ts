// Consensus messages and transactions over js-libp2p (TCP, noise, yamux): every node keeps one
// stream per peer on the protocol /svc/<chainId>/consensus/2 and writes length-prefixed frames on
// it, each starting with its channel (0 consensus, 1 transaction, 2 a request for a whole
// proposal, 3 the probable signer of the transaction frame that follows). Proposals go out
// compact: the transactions this node gossiped or was gossiped are named by key, and the
// receiver fills them in from what it was gossiped; one it lacks after the frames already read
// makes it ask the sender for the whole proposal. Validators
// dial the peers of their configuration and redial lost ones; a node that dials in (a full node
// joining) is answered on the stream it opened. Messages lost to a slow or broken stream are
// recovered by the replica's rebroadcast and block sync, so sending never waits. Consensus frames
// written in one synchronous burst (a vote and the next proposal) go out as one write at the end
// of the burst (a microtask); gossiped transactions at the end of the event loop's turn
// (`setImmediate`), so the admissions of a signer batch, each finishing in its own microtask,
// share one: one noise seal and one yamux frame instead of one per message, and no timer.
// libp2p is loaded on start, after the Promise.withResolvers polyfill it needs on Node 20.
import type { Libp2p } from 'libp2p';
import type { Stream } from '@libp2p/interface';
import type { ConsensusTransport } from './bft-engine.ts';
import { count, utf8, utf8Text } from '../primitives/index.ts';
import type { ConsensusMessage } from './replica.ts';
import { TxCache } from './tx-cache.ts';
import { compactMessage, decodeMessage, encodeMessage, expandMessage, isCompactMessage, MAX_MESSAGE_BYTES } from './wire.ts';

function polyfillWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = function withResolvers<T>() {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export interface P2pOptions {
  readonly chainId: number;
  /** 32-byte ed25519 seed of the node's network identity (not its validator key). */
  readonly nodeKeySeed: Uint8Array;
  /** Multiaddr to listen on, e.g. /ip4/127.0.0.1/tcp/26656. */
  readonly listen: string;
  /** Multiaddrs of peers with their /p2p/<peer id>. */
  readonly peers: readonly string[];
  readonly redialMs?: number;
  /** Bytes queued on one stream beyond which messages to that peer are dropped. */
  readonly maxQueuedBytes?: number;
  /** Bytes of gossiped transactions kept for filling in compact proposals (default 64 MiB). */
  readonly txCacheBytes?: number;
  readonly log?: (line: string) => void;
}

/** Reassembles 4-byte big-endian length-prefixed frames from a byte stream. */
export class FrameDecoder {
  private buf = Buffer.alloc(0);

  push(chunk: Uint8Array): Uint8Array[] {
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    const out: Uint8Array[] = [];
    while (this.buf.length >= 4) {
      const len = this.buf.readUInt32BE(0);
      if (len > MAX_MESSAGE_BYTES) throw new Error(`frame of ${len} bytes exceeds the limit`);
      if (this.buf.length < 4 + len) break;
      out.push(this.buf.subarray(4, 4 + len));
      this.buf = this.buf.subarray(4 + len);
    }
    return out;
  }
}

/** First byte of a frame: which channel it belongs to. */
const CONSENSUS = 0;
const TX = 1;
const WANT_PROPOSAL = 2;
/**
 * A 20-byte address: the signer the sender recovered for the transaction frame right after this
 * one on the stream. A hint the receiver checks, never trusts (its signer pool verifies it);
 * peers of earlier versions skip the channel, as every reader skips channels it does not know.
 */
const SIGNER_HINT = 3;
const ADDRESS_RE = /^0x[0-9a-f]{40}$/;
/** Own proposals kept to answer a peer that could not fill one in. */
const OWN_PROPOSALS_KEPT = 16;
const RECEIVED_WHOLE_KEPT = 64;

function channel(id: number, bytes: Uint8Array): Uint8Array {
  return Buffer.concat([Uint8Array.of(id), bytes]);
}

export function frame(bytes: Uint8Array): Uint8Array {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(bytes.length, 0);
  return Buffer.concat([head, bytes]);
}

/** The peer id (base58) of a node key seed, for writing peer lists. */
export async function peerIdOfSeed(seed: Uint8Array): Promise<string> {
  const { generateKeyPairFromSeed } = await import('@libp2p/crypto/keys');
  const { peerIdFromPrivateKey } = await import('@libp2p/peer-id');
  return peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', seed)).toString();
}

export class Libp2pTransport implements ConsensusTransport {
  private handler: ((from: string, msg: ConsensusMessage) => void) | null = null;
  private txHandler: ((from: string, tx: Uint8Array, signer?: string) => void) | null = null;
  /** Open streams per peer (each side may have dialed); writes go to the newest. */
  private readonly streams = new Map<string, Stream[]>();
  private readonly dialing = new Set<string>();
  private readonly peers: string[];
  private redial: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Frames written in the current burst, per stream, in order; sent by `flushWrites`. */
  private readonly outbox = new Map<Stream, { peer: string; frames: Uint8Array[]; bytes: number }>();
  /** A flush is queued for the end of this burst, or of this turn of the event loop. */
  private flushSoon = false;
  private flushLater = false;
  private readonly txCache: TxCache;
  /**
   * Frames of own proposals by signature: whole and compact (null when nothing was compacted), and
   * the streams sent the whole one on request (once each: a stream loses nothing, so a second request
   * would only make a small frame cost us a block's worth of sending).
   */
  private readonly ownProposals = new Map<string, { whole: Uint8Array; compact: Uint8Array | null; sentWhole: Set<Stream> }>();
  /** Signatures of the proposals last received whole. */
  private readonly receivedWhole = new Set<string>();
  /** Compact proposals sent and received, and those received that had to be asked for whole. */
  readonly proposalStats = { compactSent: 0, compactReceived: 0, askedWhole: 0 };

  private constructor(
    private readonly node: Libp2p,
    private readonly opts: P2pOptions,
    private readonly protocol: string,
  ) {
    this.peers = [...opts.peers];
    this.txCache = new TxCache(opts.txCacheBytes ?? 64 << 20);
  }

  /** Adds a peer to dial (and redial) by its multiaddr with /p2p/<peer id>. */
  addPeer(addr: string): void {
    if (!this.peers.includes(addr)) this.peers.push(addr);
    this.dialAll();
  }

  static async start(opts: P2pOptions): Promise<Libp2pTransport> {
    polyfillWithResolvers();
    const [{ createLibp2p }, { tcp }, { noise }, { yamux }, { generateKeyPairFromSeed }] = await Promise.all([
      import('libp2p'), import('@libp2p/tcp'), import('@chainsafe/libp2p-noise'), import('@chainsafe/libp2p-yamux'), import('@libp2p/crypto/keys'),
    ]);
    const node = await createLibp2p({
      privateKey: await generateKeyPairFromSeed('Ed25519', opts.nodeKeySeed),
      addresses: { listen: [opts.listen] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
    });
    const t = new Libp2pTransport(node, opts, `/svc/${opts.chainId}/consensus/2`);
    await node.handle(t.protocol, (stream, connection) => t.attach(connection.remotePeer.toString(), stream), { runOnLimitedConnection: false });
    t.dialAll();
    t.redial = setInterval(() => t.dialAll(), opts.redialMs ?? 1000);
    return t;
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  get addresses(): string[] {
    return this.node.getMultiaddrs().map((a) => a.toString());
  }

  /** Peers with an open consensus stream. */
  get connectedPeers(): string[] {
    return [...this.streams.keys()];
  }

  onMessage(handler: (from: string, msg: ConsensusMessage) => void): void {
    this.handler = handler;
  }

  /** Installs the handler for transactions gossiped by peers, with the signer the peer hinted, if any. */
  onTx(handler: (from: string, tx: Uint8Array, signer?: string) => void): void {
    this.txHandler = handler;
  }

  broadcast(msg: ConsensusMessage): void {
    this.broadcastFrame(this.messageFrame(msg, this.streams.size));
  }

  /**
   * Gossips a transaction admitted here to every peer (validators connect to all validators),
   * after `signer` (a lowercase 0x address: the one this node recovered) as a hint when given.
   */
  broadcastTx(tx: Uint8Array, signer?: string): void {
    this.txCache.add(tx);
    if (signer !== undefined && ADDRESS_RE.test(signer)) this.broadcastFrame(frame(channel(SIGNER_HINT, Buffer.from(signer.slice(2), 'hex'))), false);
    this.broadcastFrame(frame(channel(TX, tx)), false);
  }

  send(peer: string, msg: ConsensusMessage): void {
    const stream = this.streamOf(peer);
    if (stream !== undefined) this.write(peer, stream, this.messageFrame(msg, 1));
  }

  private streamOf(peer: string): Stream | undefined {
    const list = this.streams.get(peer);
    return list === undefined ? undefined : list[list.length - 1];
  }

  /** A message's frame; an own proposal's compact one, made once (a proposal is rebroadcast on every tick). */
  private messageFrame(msg: ConsensusMessage, peers: number): Uint8Array {
    if (msg.kind !== 'proposal') return frame(channel(CONSENSUS, encodeMessage(msg)));
    let own = this.ownProposals.get(msg.proposal.signature);
    if (own === undefined) {
      const whole = encodeMessage(msg);
      const compact = compactMessage(whole, (key) => this.txCache.has(key));
      own = { whole: frame(channel(CONSENSUS, whole)), compact: compact === null ? null : frame(channel(CONSENSUS, compact)), sentWhole: new Set() };
      this.ownProposals.set(msg.proposal.signature, own);
      for (const k of this.ownProposals.keys()) {
        if (this.ownProposals.size <= OWN_PROPOSALS_KEPT) break;
        this.ownProposals.delete(k);
      }
    }
    if (own.compact === null) return own.whole;
    this.proposalStats.compactSent += peers;
    return own.compact;
  }

  private broadcastFrame(bytes: Uint8Array, urgent = true): void {
    for (const [peer, list] of this.streams) this.write(peer, list[list.length - 1] as Stream, bytes, urgent);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.redial !== null) clearInterval(this.redial);
    await this.node.stop();
  }

  /**
   * Queues a frame; dropped when the stream is this far behind. Consensus frames go at the end of
   * this burst (a microtask); gossiped transactions wait for the end of this turn of the event
   * loop (`setImmediate`), so the admissions of one signer batch, each finishing in its own
   * microtask, leave together. Frames keep their order on a stream: a consensus frame takes the
   * transactions queued before it along.
   */
  private write(peer: string, stream: Stream, bytes: Uint8Array, urgent = true): void {
    if (urgent && !this.flushSoon) {
      this.flushSoon = true;
      queueMicrotask(() => {
        this.flushSoon = false;
        this.flushWrites();
      });
    } else if (!urgent && !this.flushSoon && !this.flushLater) {
      this.flushLater = true;
      setImmediate(() => {
        this.flushLater = false;
        this.flushWrites();
      });
    }
    let box = this.outbox.get(stream);
    if (box === undefined) {
      box = { peer, frames: [], bytes: 0 };
      this.outbox.set(stream, box);
    }
    if (stream.writeBufferLength + box.bytes > (this.opts.maxQueuedBytes ?? 16 << 20)) return;
    box.frames.push(bytes);
    box.bytes += bytes.length;
  }

  private flushWrites(): void {
    if (this.outbox.size === 0) return;
    const boxes = [...this.outbox];
    this.outbox.clear();
    for (const [stream, { peer, frames }] of boxes) {
      if (frames.length === 0) continue;
      count('p2p sends');
      try {
        stream.send(frames.length === 1 ? frames[0] as Uint8Array : Buffer.concat(frames));
      } catch (err) {
        this.opts.log?.(`send to ${peer} failed: ${(err as Error).message}`);
        this.drop(peer, stream);
      }
    }
  }

  private dialAll(): void {
    if (this.stopped) return;
    for (const addr of this.peers) {
      const peer = addr.split('/p2p/')[1];
      if (peer === undefined || peer === this.peerId || this.streams.has(peer) || this.dialing.has(peer)) continue;
      this.dialing.add(peer);
      void (async () => {
        try {
          const { multiaddr } = await import('@multiformats/multiaddr');
          const stream = await this.node.dialProtocol(multiaddr(addr), this.protocol, { signal: AbortSignal.timeout(5000) });
          this.attach(peer, stream);
        } catch {
          // Down or not yet started: the next redial tries again.
        } finally {
          this.dialing.delete(peer);
        }
      })();
    }
  }

  private attach(peer: string, stream: Stream): void {
    if (this.stopped) return void stream.abort(new Error('stopping'));
    // Both sides may dial at once; closing one of two streams from each end could close both,
    // so every open stream is kept and read.
    this.streams.set(peer, [...(this.streams.get(peer) ?? []), stream]);
    const decoder = new FrameDecoder();
    /** A signer hint read on this stream, for the next frame if that is a transaction. */
    let hint: string | undefined;
    stream.addEventListener('message', (e) => {
      try {
        for (const bytes of decoder.push(e.data.subarray())) {
          const hinted = hint;
          hint = undefined;
          if (bytes[0] === SIGNER_HINT) {
            if (bytes.length === 21) hint = `0x${Buffer.from(bytes.buffer, bytes.byteOffset + 1, 20).toString('hex')}`;
            continue;
          }
          if (bytes[0] === TX) {
            const tx = new Uint8Array(bytes.subarray(1)); // its own bytes: the cache keeps it
            this.txCache.add(tx);
            this.txHandler?.(peer, tx, hinted);
            continue;
          }
          if (bytes[0] === WANT_PROPOSAL) {
            const own = this.ownProposals.get(utf8Text(bytes.subarray(1)));
            if (own !== undefined && !own.sentWhole.has(stream)) {
              own.sentWhole.add(stream);
              this.write(peer, stream, own.whole);
            }
            continue;
          }
          if (bytes[0] !== CONSENSUS) continue;
          const body = bytes.subarray(1);
          if (isCompactMessage(body)) {
            this.proposalStats.compactReceived++;
            this.receiveCompact(peer, stream, body, false);
            continue;
          }
          const msg = decodeMessage(body);
          if (msg?.kind === 'proposal') this.noteWhole(msg.proposal.signature);
          if (msg !== null) this.handler?.(peer, msg);
        }
      } catch (err) {
        this.opts.log?.(`bad stream from ${peer}: ${(err as Error).message}`);
        stream.abort(err as Error);
      }
    });
    stream.addEventListener('close', () => this.drop(peer, stream));
  }

  /**
   * Fills in a compact proposal from the gossiped transactions. A transaction gossiped by a third
   * node may still be in a frame not yet read, so a miss waits for the frames already received
   * (the check phase, after this poll's reads) before asking the sender for the whole proposal.
   */
  private receiveCompact(peer: string, stream: Stream, body: Uint8Array, retried: boolean): void {
    const whole = expandMessage(body, (key) => this.txCache.get(key));
    if (whole instanceof Uint8Array) {
      const msg = decodeMessage(whole);
      if (msg !== null) this.handler?.(peer, msg);
    } else if (whole !== null && !retried) {
      setImmediate(() => {
        if (this.stopped) return;
        try {
          this.receiveCompact(peer, stream, body, true);
        } catch (err) {
          this.opts.log?.(`bad proposal from ${peer}: ${(err as Error).message}`);
        }
      });
    } else if (whole !== null && !this.receivedWhole.has(whole.signature)) {
      this.proposalStats.askedWhole++;
      count('p2p proposals asked whole');
      this.write(peer, stream, frame(channel(WANT_PROPOSAL, utf8(whole.signature))));
    }
  }

  /** A proposal received whole: its compact rebroadcasts, still missing the same transactions, are not asked for again. */
  private noteWhole(signature: string): void {
    this.receivedWhole.add(signature);
    for (const s of this.receivedWhole) {
      if (this.receivedWhole.size <= RECEIVED_WHOLE_KEPT) break;
      this.receivedWhole.delete(s);
    }
  }

  private drop(peer: string, stream: Stream): void {
    const rest = (this.streams.get(peer) ?? []).filter((s) => s !== stream);
    if (rest.length === 0) this.streams.delete(peer);
    else this.streams.set(peer, rest);
  }
}
