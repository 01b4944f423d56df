// The worker pool recovers the same signers as the inline path, for good and bad signatures.
import { Wallet, Signature } from 'ethers';
import t from 'tap';
import { exchangeDomain, recoverSigner, type AuthConfig } from '../../exchange/index.ts';
import { BackgroundPoolRecovery, InlineRecovery, WorkerPoolRecovery } from '../../node/index.ts';
import { signRequest } from '../support/signing.ts';

const AUTH: AuthConfig = { domain: exchangeDomain(42069), source: 'b', literalNonceBinding: true, hyperliquid: { chains: ['Mainnet', 'Testnet'] } };

// One pool of two workers for the whole file: each worker loads the sources, which is most of the cost.
let shared: Promise<WorkerPoolRecovery> | undefined;
function sharedPool(): Promise<WorkerPoolRecovery> {
  shared ??= WorkerPoolRecovery.start(AUTH, 2);
  return shared;
}
t.teardown(async () => (await shared)?.close());

t.test('pool and inline recovery agree', async (t) => {
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const action = { type: 'cancel', cancels: [{ a: 0, o: 1 }] };
  const reqs = await Promise.all(
    Array.from({ length: 24 }, (_, i) => signRequest(wallet, action, 1_767_225_600_000 + i, { binding: i % 3 === 0 ? 'literal' : 'action' })),
  );
  const broken = { ...reqs[0]!, signature: { r: '0x01', s: '0xzz', v: 27 } };
  const tampered = { ...reqs[1]!, nonce: reqs[1]!.nonce + 1 };
  // JSON reads 1e999 as Infinity, which canonical JSON refuses: no action binding, but the literal
  // binding reads no action, so it still recovers (the pool sends such a job no action at all).
  const uncanonical = { ...reqs[0]!, action: JSON.parse('{"type":"cancel","x":1e999}') as unknown };
  const all = [...reqs, broken, tampered, uncanonical];
  for (const binding of ['action', 'literal'] as const) {
    const fromPool = await Promise.all(all.map((r) => pool.recover(r, binding)));
    const fromInline = await Promise.all(all.map((r) => inline.recover(r, binding)));
    t.same(fromPool, fromInline, `${binding} binding`);
  }
  const signer = wallet.address.toLowerCase();
  t.equal(await pool.recover(reqs[1]!, 'action'), signer);
  t.equal(await pool.recover(reqs[0]!, 'literal'), signer);
  t.equal(await pool.recover(uncanonical, 'literal'), signer);
  t.equal(await pool.recover(uncanonical, 'action'), null);
  t.same(await pool.recoverAndEncode(uncanonical), { address: null });
  t.equal(await pool.recover(broken, 'action'), null);
  t.not(await pool.recover(tampered, 'action'), signer, 'a changed nonce recovers another address');
  t.ok(Signature.from({ r: reqs[2]!.signature.r, s: reqs[2]!.signature.s, v: reqs[2]!.signature.v }));
});

t.test('recoverAndEncode: the transaction bytes and hash equal the canonical encoding of the request', async (t) => {
  const { canonicalize, utf8, bytesToHex, keccak256 } = await import('../../primitives/index.ts');
  const { txLeaf } = await import('../../consensus/index.ts');
  const pool = await sharedPool();
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const vault = '0x00000000000000000000000000000000000000ab';
  const actions = [
    { type: 'order', orders: [{ a: 0, b: true, p: '100', s: '1', r: false, t: { limit: { tif: 'Gtc' } }, c: '0x' + 'ab'.repeat(16) }], grouping: 'na' },
    { z: 1, type: 'usdTransfer', destination: vault, amount: '1.5', nested: { b: [3, { y: 'é' }], a: null } },
  ];
  for (const [i, action] of actions.entries()) {
    for (const vaultAddress of [null, vault]) {
      const req = { ...(await signRequest(wallet, action, 1_767_225_600_000 + i)), vaultAddress };
      const out = await pool.recoverAndEncode(req);
      const expected = utf8(canonicalize({ action: req.action, nonce: req.nonce, signature: req.signature, vaultAddress }));
      t.same(Buffer.from(out.tx!.bytes), Buffer.from(expected));
      t.equal(out.tx!.hash, bytesToHex(keccak256(expected)));
      t.same(Buffer.from(out.tx!.leaf!), Buffer.from(txLeaf(expected)), 'its transaction-root leaf');
      t.equal(out.address, await new InlineRecovery(AUTH).recover(req, 'action'));
    }
  }
});

t.test('recoverAndEncode: canonical texts larger than a slab, and many across slabs, encode exactly', async (t) => {
  const { canonicalize, utf8 } = await import('../../primitives/index.ts');
  const pool = await sharedPool();
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const big = { type: 'usdTransfer', memo: 'é'.repeat(150_000), amount: '1' }; // 300 KB of UTF-8
  const orders = Array.from({ length: 20 }, (_, i) => ({ a: i % 3, b: i % 2 === 0, p: `${100 + i}.5`, s: '0.001', r: false, t: { limit: { tif: 'Gtc' } }, c: `0x${i.toString(16).padStart(32, '0')}` }));
  const many = Array.from({ length: 300 }, (_, i) => ({ type: 'order', orders, grouping: 'na', i }));
  const reqs = await Promise.all([big, ...many, big].map((a, i) => signRequest(wallet, a, 1_767_225_600_000 + i)));
  const outs = await Promise.all(reqs.map((r) => pool.recoverAndEncode(r)));
  let exact = 0;
  for (const [i, req] of reqs.entries()) {
    const expected = utf8(canonicalize({ action: req.action, nonce: req.nonce, signature: req.signature, vaultAddress: null }));
    if (Buffer.from(outs[i]!.tx!.bytes).equals(Buffer.from(expected)) && outs[i]!.address === wallet.address.toLowerCase()) exact++;
  }
  t.equal(exact, reqs.length, `${reqs.length} requests, two of 300 KB, encoded and recovered`);
});

t.test('a batch of mixed jobs: the packed ones and the rest answer as inline, in order', async (t) => {
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const vault = '0x00000000000000000000000000000000000000ab';
  const base = await signRequest(wallet, { type: 'order', orders: [{ a: 0, b: true, p: '100', s: '1', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' }, 1_767_225_600_000);
  const unicode = await signRequest(wallet, { type: 'usdTransfer', destination: vault, amount: '1.5', memo: 'é ☃ 𝄞 \u2028' }, 1_767_225_600_001);
  const reqs = [
    base,
    unicode,
    { ...base, vaultAddress: vault },
    { ...base, nonce: 0.5 }, // a fractional nonce: recovers to someone else, bytes exact
    { ...base, signature: { ...(base.signature as object), v: 28 } },
    { ...base, signature: { ...(base.signature as object), extra: 1 } }, // not packed: a fourth key
    { ...base, signature: { r: 'é', s: '0x01', v: 27 } }, // not packed: r not ASCII
    { ...base, signature: ['0x01', '0x02', 27] }, // not packed: not an object of r, s, v
    { ...base, signature: null },
  ];
  const fromPool = await Promise.all(reqs.map((r) => pool.recoverAndEncode(r)));
  for (const [i, r] of reqs.entries()) {
    const expected = await inline.recoverAndEncode(r);
    t.equal(fromPool[i]!.address, expected.address, `address of request ${i}`);
    t.same(fromPool[i]!.tx === undefined ? undefined : Buffer.from(fromPool[i]!.tx!.bytes), expected.tx === undefined ? undefined : Buffer.from(expected.tx.bytes), `bytes of request ${i}`);
    t.equal(fromPool[i]!.tx?.hash, expected.tx?.hash, `hash of request ${i}`);
    // The bytes are their own buffer, not a view of the batch's answer.
    if (fromPool[i]!.tx !== undefined) t.equal(fromPool[i]!.tx!.bytes.byteLength, fromPool[i]!.tx!.bytes.buffer.byteLength);
  }
  t.equal(fromPool[0]!.address, wallet.address.toLowerCase());
  t.equal(fromPool[1]!.address, wallet.address.toLowerCase());
});

t.test('block transactions: candidates from the bytes, on the pool as inline', async (t) => {
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const req = await signRequest(wallet, { type: 'cancel', cancels: [{ a: 0, o: 1 }] }, 1_767_225_600_000);
  const bytes = new TextEncoder().encode(JSON.stringify({ ...req, vaultAddress: null }));
  const fromPool = await pool.candidates(bytes);
  t.same(fromPool, await inline.candidates(bytes));
  t.ok(fromPool.includes(wallet.address.toLowerCase()), 'the signer is among them');
  t.same(await pool.candidates(new TextEncoder().encode('not json')), [], 'bytes that do not decode: none');
  // A transaction inside a larger buffer (a decoded block): the same answer (only its bytes travel).
  const slab = new Uint8Array(1 << 20);
  slab.set(bytes, 1000);
  t.same(await pool.candidates(slab.subarray(1000, 1000 + bytes.length)), fromPool, 'a view into a larger buffer');
  const bufferSlab = Buffer.alloc(1 << 20);
  bufferSlab.set(bytes, 1000);
  t.same(await pool.candidates(bufferSlab.subarray(1000, 1000 + bytes.length)), fromPool, 'a view into a larger Buffer');
});

t.test('admission recovers the action binding from the encoded bytes, as execution would', async (t) => {
  const pool = await sharedPool();
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  for (const binding of ['action', 'literal'] as const) {
    const req = await signRequest(wallet, { type: 'cancel', cancels: [{ a: 0, o: 2 }] }, 1_767_225_600_100, { binding });
    const out = await pool.recoverAndEncode({ ...req, vaultAddress: null });
    t.ok(out.tx !== undefined, `${binding}: the transaction's bytes`);
    const fromBytes = await pool.candidates(out.tx!.bytes);
    // Execution takes admission's address as the first candidate: it must be the block path's first.
    t.equal(out.address, fromBytes[0] ?? null, `${binding}: admission's action-binding address is the block's first candidate`);
    t.ok(fromBytes.includes(wallet.address.toLowerCase()), `${binding}: the signer among the candidates`);
  }
});

t.test('EVM signatures: packed batches recover the same keys and addresses as inline, in order, null for none', async (t) => {
  const { hexToBytes, keccak256 } = await import('../../primitives/index.ts');
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const wallets = Array.from({ length: 5 }, () => new Wallet(Wallet.createRandom().privateKey));
  const sigs = Array.from({ length: 300 }, (_, i) => {
    const w = wallets[i % wallets.length]!;
    const digest = keccak256(Uint8Array.of(i, i >> 8));
    const sig = w.signingKey.sign(digest);
    return { wallet: w, sig: { digest, rs: hexToBytes(sig.r + sig.s.slice(2)), recovery: sig.yParity as number } };
  });
  const bad = { digest: sigs[0]!.sig.digest, rs: new Uint8Array(64), recovery: 0 };
  const fromPool = await Promise.all([...sigs.map((s) => pool.recoverEvm(s.sig)), pool.recoverEvm(bad)]);
  const fromInline = await Promise.all([...sigs.map((s) => inline.recoverEvm(s.sig)), inline.recoverEvm(bad)]);
  t.same(fromPool, fromInline);
  t.same(fromPool.slice(0, -1).map((s) => s?.address), sigs.map((s) => s.wallet.address.toLowerCase()));
  t.equal(fromPool[0]?.publicKey, `0x${wallets[0]!.signingKey.publicKey.slice(4)}`);
  t.equal(fromPool.at(-1), null);
});

t.test('a lone job with every worker idle is recovered on the calling thread; a tick of several goes to a worker', async (t) => {
  const { hexToBytes, keccak256, stageReport } = await import('../../primitives/index.ts');
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const reqs = await Promise.all(Array.from({ length: 8 }, (_, i) => signRequest(wallet, { type: 'cancel', cancels: [{ a: 0, o: i }] }, 1_767_225_600_000 + i)));
  const counters = () => {
    const c = stageReport().counters;
    return { inline: c['signer jobs inline'] ?? 0, batches: c['signer batches'] ?? 0 };
  };
  const before = counters();
  t.equal(await pool.recover(reqs[0]!, 'action'), wallet.address.toLowerCase());
  const digest = keccak256(Uint8Array.of(1));
  const sig = wallet.signingKey.sign(digest);
  const evm = { digest, rs: hexToBytes(sig.r + sig.s.slice(2)), recovery: sig.yParity as number };
  t.same(await pool.recoverEvm(evm), await inline.recoverEvm(evm));
  const afterLone = counters();
  t.equal(afterLone.inline - before.inline, 2, 'both lone jobs ran inline');
  t.equal(afterLone.batches, before.batches, 'no batch went to a worker');
  const burst = await Promise.all(reqs.map((r) => pool.recover(r, 'action')));
  t.same(burst, reqs.map(() => wallet.address.toLowerCase()));
  const afterBurst = counters();
  t.equal(afterBurst.inline, afterLone.inline, 'a tick of eight is not run inline');
  t.ok(afterBurst.batches > afterLone.batches, 'it went to a worker');
});

t.test('Hyperliquid-dialect requests: candidates under both chains, the same on the pool, inline and from the bytes', async (t) => {
  const { signL1Action } = await import('@nktkas/hyperliquid/signing');
  const { privateKeyToAccount } = await import('viem/accounts');
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const wallet = privateKeyToAccount(Wallet.createRandom().privateKey as `0x${string}`);
  // Keys in the order the client hashed them, not sorted: the bytes must keep it.
  const action = { type: 'order', orders: [{ a: 0, b: true, p: '100', s: '1', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' };
  for (const isTestnet of [false, true]) {
    const signature = await signL1Action({ wallet, action, nonce: 1_767_225_600_200, isTestnet, expiresAfter: 1_767_225_700_000 });
    const req = { action, nonce: 1_767_225_600_200, signature, vaultAddress: null, dialect: 'hyperliquid' as const, expiresAfter: 1_767_225_700_000 };
    const out = await pool.recoverAndEncode(req);
    t.same(out, await inline.recoverAndEncode(req), `isTestnet=${isTestnet}: pool as inline`);
    t.ok(out.candidates?.includes(wallet.address.toLowerCase()), 'the signer among the candidates');
    t.match(new TextDecoder().decode(out.tx!.bytes), /^\{"action":\{"type":"order","orders":\[\{"a":0,"b":true,"p":"100"/, 'the action as sent');
    t.same(await pool.candidates(out.tx!.bytes), out.candidates, 'the block path finds the same candidates');
    t.equal(recoverSigner(AUTH, req, 'action'), null, "the spec's schemes never recover a dialect request");
  }
});

t.test('a node does not wait for its workers: inline recovery until the pool is ready, then the pool', async (t) => {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const req = await signRequest(wallet, { type: 'cancel', cancels: [{ a: 0, o: 3 }] }, 1_767_225_600_300);
  const failures: Error[] = [];
  const recovery = new BackgroundPoolRecovery(AUTH, 1, (err) => failures.push(err));
  t.teardown(() => recovery.close());
  t.notOk(recovery.pooled, 'the workers are still booting');
  t.equal(await recovery.recover(req, 'action'), wallet.address.toLowerCase(), 'answered inline meanwhile');
  await recovery.ready();
  t.ok(recovery.pooled, 'then the pool serves');
  t.equal(await recovery.recover(req, 'action'), wallet.address.toLowerCase());
  t.same(await recovery.recoverAndEncode(req), await new InlineRecovery(AUTH).recoverAndEncode(req));
  t.same(failures, []);

  const stoppedEarly = new BackgroundPoolRecovery(AUTH, 2, (err) => failures.push(err));
  await stoppedEarly.close(); // terminates the booting workers: the test process would not exit otherwise
  t.notOk(stoppedEarly.pooled);
  t.same(failures, [], 'a pool stopped while booting is no failure');

  // Workers that cannot start (workerData that does not clone): inline for good, and said once.
  const broken = new BackgroundPoolRecovery({ ...AUTH, unclonable: () => 0 } as AuthConfig, 1, (err) => failures.push(err));
  await broken.ready();
  t.notOk(broken.pooled);
  t.equal(failures.length, 1, 'the failure is reported');
  t.equal(await broken.recover(req, 'action'), wallet.address.toLowerCase(), 'and recovery stays inline');
  await broken.close();
});

t.test('hinted jobs: verified together when every hint is right, recovered when one is not; answers as without hints', async (t) => {
  const { runJobs } = await import('../../node/index.ts');
  const { stageReport } = await import('../../primitives/index.ts');
  const a = new Wallet(Wallet.createRandom().privateKey);
  const b = new Wallet(Wallet.createRandom().privateKey);
  const [addrA, addrB] = [a.address.toLowerCase(), b.address.toLowerCase()];
  const action = { type: 'cancel', cancels: [{ a: 0, o: 3 }] };
  const reqs = await Promise.all(Array.from({ length: 12 }, (_, i) => signRequest(i % 3 === 2 ? b : a, action, 1_767_225_700_000 + i)));
  const bySigner = reqs.map((_, i) => (i % 3 === 2 ? addrB : addrA));
  const job = (i: number, hint?: string) => ({ req: reqs[i]!, binding: 'action' as const, encode: true, ...(hint === undefined ? {} : { hint }) });
  const plain = runJobs(AUTH, reqs.map((_, i) => job(i))); // this thread now knows both keys
  t.same(plain.map((o) => o.address), bySigner, 'recovered without hints');
  const verified = () => stageReport().counters['signer verifications'] ?? 0;
  const missed = () => stageReport().counters['signer hints missed'] ?? 0;
  const v0 = verified();
  t.same(runJobs(AUTH, reqs.map((_, i) => job(i, bySigner[i]))), plain, 'right hints: the same answers');
  t.equal(verified() - v0, 12, 'all twelve verified at once');
  const m0 = missed();
  const wrong = reqs.map((_, i) => job(i, i === 5 ? addrA : bySigner[i])); // job 5 is by b
  t.same(runJobs(AUTH, wrong), plain, 'one wrong hint: the same answers (all recovered)');
  t.equal(missed() - m0, 1, 'the batch counted as missed');
  const stranger = new Wallet(Wallet.createRandom().privateKey).address.toLowerCase();
  t.same(runJobs(AUTH, reqs.map((_, i) => job(i, stranger))), plain, 'hints of an unknown key: recovered');
  const tampered = { ...job(0, addrA), req: { ...reqs[0]!, nonce: reqs[0]!.nonce + 1 } };
  const out = runJobs(AUTH, [tampered, job(1, addrA), job(3, addrA), job(4, addrA)]);
  t.not(out[0]!.address, addrA, 'a request whose signature is not by its hint never answers the hint');
  t.same(out.slice(1).map((o) => o.address), [addrA, addrA, addrA]);
});

t.test('a connection is hinted with its last signer once it repeats; one that alternates keys is not', async (t) => {
  const { stageReport } = await import('../../primitives/index.ts');
  const pool = await sharedPool();
  const inline = new InlineRecovery(AUTH);
  const hints = () => stageReport().counters['signer hints'] ?? 0;
  const a = new Wallet(Wallet.createRandom().privateKey);
  const b = new Wallet(Wallet.createRandom().privateKey);
  const action = { type: 'cancel', cancels: [{ a: 0, o: 4 }] };
  const steady = { origin: {} };
  const h0 = hints();
  for (let tick = 0; tick < 6; tick++) {
    const reqs = await Promise.all(Array.from({ length: 8 }, (_, i) => signRequest(a, action, 1_767_225_800_000 + tick * 8 + i)));
    const out = await Promise.all(reqs.map((r) => pool.recoverAndEncode(r, steady)));
    t.same(out.map((o) => o.address), await Promise.all(reqs.map((r) => inline.recover(r, 'action'))), `tick ${tick}: answers as inline`);
  }
  t.ok(hints() - h0 >= 30, `a steady connection is hinted (${hints() - h0} of 48)`);
  const alternating = { origin: {} };
  const h1 = hints();
  for (let i = 0; i < 24; i++) {
    const req = await signRequest(i % 2 === 0 ? a : b, action, 1_767_225_900_000 + i);
    t.equal((await pool.recoverAndEncode(req, alternating)).address, (i % 2 === 0 ? a : b).address.toLowerCase());
  }
  t.equal(hints() - h1, 0, 'a connection alternating keys is never hinted');
  // A hinted request that recovers to nobody (it would fail its batch's check) costs trust as a
  // wrong guess does: the connection needs 8 same-signer requests in a row before the next hint.
  const poisoned = { origin: {} };
  for (let i = 0; i < 3; i++) await pool.recoverAndEncode(await signRequest(a, action, 1_767_226_000_000 + i), poisoned);
  const good = await signRequest(a, action, 1_767_226_000_010);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const highS = { ...good, signature: { ...good.signature, s: '0x' + (n - BigInt(good.signature.s)).toString(16), v: 55 - good.signature.v } };
  const h2 = hints();
  t.equal((await pool.recoverAndEncode(highS, poisoned)).address, null, 'a high-s signature recovers to nobody');
  t.equal(hints() - h2, 1, 'it was hinted');
  const h3 = hints();
  for (let i = 0; i < 8; i++) await pool.recoverAndEncode(await signRequest(a, action, 1_767_226_000_100 + i), poisoned);
  t.equal(hints() - h3, 0, 'the next eight are not');
  await pool.recoverAndEncode(await signRequest(a, action, 1_767_226_000_200), poisoned);
  t.equal(hints() - h3, 1, 'the ninth is');
});

t.test("a peer's signer hints are used once two proved right, and dropped after a wrong one", async (t) => {
  const { stageReport } = await import('../../primitives/index.ts');
  const pool = await sharedPool();
  const hints = () => stageReport().counters['signer hints'] ?? 0;
  const a = new Wallet(Wallet.createRandom().privateKey);
  const b = new Wallet(Wallet.createRandom().privateKey);
  const [addrA, addrB] = [a.address.toLowerCase(), b.address.toLowerCase()];
  const action = { type: 'cancel', cancels: [{ a: 0, o: 5 }] };
  const peer = `peer-${Math.random()}`;
  const h0 = hints();
  for (let i = 0; i < 6; i++) {
    const req = await signRequest(i % 2 === 0 ? a : b, action, 1_767_226_100_000 + i);
    const signer = i % 2 === 0 ? addrA : addrB;
    t.equal((await pool.recoverAndEncode(req, { peer, signer })).address, signer);
  }
  t.equal(hints() - h0, 4, 'the first two checked by recovery, then used (signers may differ request to request)');
  // A false hint: the answer is still the recovered signer, and the peer must prove itself over
  // eight hints before the next is used.
  const lied = await pool.recoverAndEncode(await signRequest(a, action, 1_767_226_100_100), { peer, signer: addrB });
  t.equal(lied.address, addrA, 'a wrong hint never changes the answer');
  const h1 = hints();
  for (let i = 0; i < 8; i++) await pool.recoverAndEncode(await signRequest(a, action, 1_767_226_100_200 + i), { peer, signer: addrA });
  t.equal(hints() - h1, 0, 'the next eight are checked, not used');
  await pool.recoverAndEncode(await signRequest(a, action, 1_767_226_100_300), { peer, signer: addrA });
  t.equal(hints() - h1, 1, 'then used again');
});

t.test('a worker lost after start-up: its jobs in flight and later ones are recovered here, rightly', async (t) => {
  const pool = await WorkerPoolRecovery.start(AUTH, 2);
  t.teardown(() => pool.close());
  const inline = new InlineRecovery(AUTH);
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const reqs = await Promise.all(Array.from({ length: 12 }, (_, i) => signRequest(wallet, { type: 'cancel', cancels: [{ a: 0, o: i }] }, 1_767_225_600_000 + i)));
  const expected = await Promise.all(reqs.map((r) => inline.recoverAndEncode(r)));
  // A tick of several goes to a worker; both are lost while it may still be working on them.
  const answers = Promise.all(reqs.map((r) => pool.recoverAndEncode(r)));
  await new Promise((r) => setImmediate(r));
  await pool.crashWorker(0);
  t.equal(pool.workers, 1);
  await pool.crashWorker(0);
  t.equal(pool.workers, 0);
  const got = await answers;
  t.same(got.map((o) => [o.address, o.tx?.hash]), expected.map((o) => [o.address, o.tx?.hash]));
  t.equal(got[0]!.address, wallet.address.toLowerCase());
  // With no worker left, recovery runs on this thread.
  const later = await Promise.all(reqs.slice(0, 3).map((r) => pool.recoverAndEncode(r)));
  t.same(later.map((o) => o.address), expected.slice(0, 3).map((o) => o.address));
  t.equal(pool.queueLength(), 0);
});
