// How the consensus transport batches what it sends, over real libp2p on loopback (TCP, noise,
// yamux): transactions admitted one microtask at a time (as a signer batch's admissions finish)
// leave together at the end of the event loop's turn, and a consensus frame takes the ones queued
// before it along, in order. Counted with the transport's own counter ('p2p sends', one per
// stream write; both nodes run in this process, and only A sends).
import t from 'tap';
import { Libp2pTransport } from '../../consensus/index.ts';
import { keccak256, stageReport, utf8, utf8Text } from '../../primitives/index.ts';
import { until } from '../support/network.ts';

const sends = (): number => stageReport().counters['p2p sends'] ?? 0;

t.test('gossip admitted one microtask at a time leaves in a few writes, in order with consensus frames', async (t) => {
  const nets = await Promise.all(['a', 'b'].map((n) => Libp2pTransport.start({ chainId: 5, nodeKeySeed: keccak256(utf8(`burst-${n}`)), listen: '/ip4/127.0.0.1/tcp/0', peers: [], redialMs: 100 })));
  t.teardown(() => Promise.all(nets.map((n) => n.stop())));
  const [a, b] = nets as [Libp2pTransport, Libp2pTransport];
  a.addPeer(b.addresses[0] as string);
  await until('connected', () => a.connectedPeers.length === 1 && b.connectedPeers.length === 1);
  const got: string[] = [];
  b.onTx((_from, tx) => got.push(utf8Text(tx)));
  b.onMessage((_from, msg) => got.push(`status ${msg.kind === 'status' ? msg.height : '?'}`));
  const before = sends();
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
  // The status frame's burst (it and the 100 before it), then the remaining 200 at the turn's end.
  const made = sends() - before;
  t.ok(made <= 3, `${made} writes for 301 frames`);
});
