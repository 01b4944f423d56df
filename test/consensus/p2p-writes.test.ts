// How many socket writes the consensus transport makes, over real libp2p on loopback (TCP, noise,
// yamux): a tick's frames leave together, gossip waits for the end of the event loop's turn,
// and a receiver grants window credit per half window, not per frame read. Counted with the
// transport's own counter ('p2p socket writes': both nodes run in this process).
import t, { type Test } from 'tap';
import { Libp2pTransport } from '../../consensus/index.ts';
import { keccak256, stageReport, utf8, utf8Text } from '../../primitives/index.ts';
import { until } from '../support/network.ts';

const writes = (): number => stageReport().counters['p2p socket writes'] ?? 0;

async function pair(t: Test, name: string): Promise<[Libp2pTransport, Libp2pTransport]> {
  const nets = await Promise.all(['a', 'b'].map((n) => Libp2pTransport.start({ chainId: 5, nodeKeySeed: keccak256(utf8(`${name}-${n}`)), listen: '/ip4/127.0.0.1/tcp/0', peers: [], redialMs: 100 })));
  t.teardown(() => Promise.all(nets.map((n) => n.stop())));
  const [a, b] = nets as [Libp2pTransport, Libp2pTransport];
  a.addPeer(b.addresses[0] as string);
  await until('connected', () => a.connectedPeers.length === 1 && b.connectedPeers.length === 1);
  return [a, b];
}

t.test('gossip admitted one microtask at a time leaves in a few writes, in order with consensus frames', async (t) => {
  const [a, b] = await pair(t, 'burst');
  const got: string[] = [];
  b.onTx((_from, tx) => got.push(utf8Text(tx)));
  b.onMessage((_from, msg) => got.push(`status ${msg.kind === 'status' ? msg.height : '?'}`));
  // Let the connection's own start-up traffic (identify) settle before counting.
  await new Promise((r) => setTimeout(r, 300));
  const before = writes();
  const sent: string[] = [];
  // As admissions finish: each transaction from its own microtask, a status frame among them.
  let chain = Promise.resolve();
  for (let i = 0; i < 300; i++) {
    chain = chain.then(() => {
      a.broadcastTx(utf8(`tx ${i}`));
      sent.push(`tx ${i}`);
      if (i === 99) {
        a.broadcast({ kind: 'status', height: 7 });
        sent.push('status 7');
      }
    });
  }
  await chain;
  await until('all delivered', () => got.length === sent.length);
  t.same(got, sent, 'every frame, in the order sent');
  const made = writes() - before;
  t.ok(made <= 10, `${made} socket writes for 301 frames`);
});

t.test('a receiver grants window credit per half window, not per frame', async (t) => {
  const [a, b] = await pair(t, 'window');
  let got = 0;
  b.onTx(() => got++);
  await new Promise((r) => setTimeout(r, 300));
  const before = writes();
  // 2,000 frames of 1 KiB, each in its own turn of the event loop: a yamux frame each, 2 MiB in all.
  const tx = new Uint8Array(1024).fill(7);
  for (let i = 0; i < 2000; i++) {
    a.broadcastTx(tx);
    await new Promise((r) => setImmediate(r));
  }
  await until('all delivered', () => got === 2000);
  const made = writes() - before;
  // The sender's 2,000 writes, and the receiver's updates: about one per 128 KiB (16), not 2,000.
  t.ok(made >= 2000 && made <= 2100, `${made} socket writes for 2,000 frames`);
});
