// TLS 1.3 in front of a uWS app. The uWS build in use negotiates TLS 1.2 with its default SSLApp
// options and will not build an app whose ssl_ciphers names TLS 1.3 suites only, so TLS is
// terminated here by node:tls (minVersion TLSv1.3) and each connection is piped to the app on a
// loopback port. The first bytes on that pipe are a PROXY protocol v2 header with the client's
// address, which this uWS build parses (getProxiedRemoteAddress): rate limits keep seeing the
// real client. Bytes are piped untouched, so WebSocket upgrades pass through.
import { connect, isIPv4, isIPv6, type Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type uWS from '@trufflesuite/uws-js-unofficial';

export interface TlsFrontOptions {
  /** Interface and port clients connect to (0 picks a free port). */
  readonly host: string;
  readonly port: number;
  /** PEM certificate chain and private key. */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /** The plain uWS app, on loopback. */
  readonly targetPort: number;
  readonly targetHost?: string;
  /** A client must finish its handshake within this long (ms); default 10 s. */
  readonly handshakeTimeoutMs?: number;
}

const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** `::ffff:1.2.3.4` (a dual-stack listener's IPv4 client) as `1.2.3.4`. */
function plainIp(addr: string): string {
  return addr.startsWith('::ffff:') && isIPv4(addr.slice(7)) ? addr.slice(7) : addr;
}

function ipBytes(addr: string, family: 4 | 6): Buffer {
  if (family === 4) return Buffer.from(addr.split('.').map(Number));
  // Expand `::` and an embedded IPv4 tail into eight 16-bit groups.
  let text = addr;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = (v4[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head === '' ? [] : head.split(':');
  const tl = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - tl.length).fill('0'), ...tl];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), 2 * i));
  return out;
}

/**
 * A PROXY protocol v2 header (PROXY command, TCP over IPv4 or IPv6) for a connection from
 * src:srcPort to dst:dstPort; LOCAL (no address) when the addresses are unknown or mixed.
 */
export function proxyV2Header(src: string | undefined, srcPort: number | undefined, dst: string | undefined, dstPort: number | undefined): Buffer {
  const s = src === undefined ? '' : plainIp(src);
  const d = dst === undefined ? '' : plainIp(dst);
  const family = isIPv4(s) && isIPv4(d) ? 4 : isIPv6(s) && isIPv6(d) ? 6 : 0;
  if (family === 0 || srcPort === undefined || dstPort === undefined) {
    const local = Buffer.alloc(16);
    PROXY_V2_SIGNATURE.copy(local);
    local[12] = 0x20; // v2, LOCAL
    return local;
  }
  const addrLen = family === 4 ? 4 : 16;
  const out = Buffer.alloc(16 + 2 * addrLen + 4);
  PROXY_V2_SIGNATURE.copy(out);
  out[12] = 0x21; // v2, PROXY
  out[13] = family === 4 ? 0x11 : 0x21; // TCP over AF_INET / AF_INET6
  out.writeUInt16BE(2 * addrLen + 4, 14);
  ipBytes(s, family).copy(out, 16);
  ipBytes(d, family).copy(out, 16 + addrLen);
  out.writeUInt16BE(srcPort, 16 + 2 * addrLen);
  out.writeUInt16BE(dstPort, 18 + 2 * addrLen);
  return out;
}

/**
 * The client's address of a uWS request or WebSocket upgrade: from the PROXY header when the app
 * sits behind TlsFront (only then: a client reaching a plain app could send its own header), else
 * the socket's peer.
 */
export function clientIp(res: uWS.HttpResponse, behindProxy: boolean): string {
  if (behindProxy) {
    const proxied = res.getProxiedRemoteAddressAsText();
    if (proxied.byteLength > 0) return Buffer.from(proxied).toString();
  }
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}

export class TlsFront {
  private readonly server: Server;
  /** Open client connections, ended by close(). */
  private readonly sockets = new Set<Socket>();

  constructor(private readonly opts: TlsFrontOptions) {
    this.server = createServer({
      cert: opts.cert,
      key: opts.key,
      minVersion: 'TLSv1.3',
      handshakeTimeout: opts.handshakeTimeoutMs ?? 10_000,
      // HTTP/1.1 (REST, JSON-RPC and the WebSocket upgrade) only: the uWS app speaks nothing else.
      ALPNProtocols: ['http/1.1'],
    });
    // A refused handshake (TLS 1.2, garbage) is the client's problem: the socket is closed.
    this.server.on('tlsClientError', () => {});
    this.server.on('secureConnection', (client) => this.pipe(client));
  }

  /** Listens; resolves with the port. */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr !== null ? addr.port : this.opts.port);
      });
    });
  }

  /** Stops accepting; open connections stay until close(). */
  stopAccepting(): void {
    this.server.close();
  }

  /** Stops accepting and ends open connections. */
  close(): void {
    this.server.close();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  private pipe(client: TLSSocket): void {
    const upstream = connect(this.opts.targetPort, this.opts.targetHost ?? '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // Queued until the connection opens, so it precedes every byte of the client's.
    upstream.write(proxyV2Header(client.remoteAddress, client.remotePort, client.localAddress, client.localPort));
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  }
}
