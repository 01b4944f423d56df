// Signer recovery: pure JS (@noble) on one core, native libsecp256k1 on the main thread, and the
// worker pool across the cores, with the event loop's delay while the pool is saturated.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { actionConnectionId, exchangeDomain, hyperliquidCandidates, l1ActionHash, recoverSigner, type AuthConfig, type SignedFields } from '../exchange/index.ts';
import { agentDigest, bytesToHex, domainSeparator, nativeSecp256k1, recoverAddressNoble } from '../primitives/index.ts';
import { WorkerPoolRecovery } from '../node/index.ts';

const N = Number(process.env.BENCH_SIGS ?? 40_000);
const AUTH: AuthConfig = { domain: exchangeDomain(42069), source: 'b', literalNonceBinding: false };

interface NativeSign {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  privateKeyVerify(key: Uint8Array): boolean;
}

function signedRequests(n: number): SignedFields[] {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSign;
  const sep = domainSeparator(AUTH.domain);
  const keys = Array.from({ length: 16 }, () => {
    let k: Buffer;
    do k = randomBytes(32);
    while (!native.privateKeyVerify(k));
    return k;
  });
  return Array.from({ length: n }, (_, i) => {
    const action = { type: 'order', orders: [{ a: 0, b: true, p: '100000', s: '0.001', r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' };
    const nonce = 1_767_225_600_000 + i;
    const digest = agentDigest(sep, 'b', actionConnectionId(action, nonce, null));
    const { signature, recid } = native.ecdsaSign(digest, keys[i % keys.length] as Buffer);
    return { action, nonce, vaultAddress: null, signature: { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), v: 27 + recid } };
  });
}

export async function benchSignatures(): Promise<void> {
  const reqs = signedRequests(N);
  // Pure JS, one core (a slice: it is slow).
  const sep = domainSeparator(AUTH.domain);
  const slice = reqs.slice(0, 2000);
  let t0 = performance.now();
  for (const r of slice) {
    const sig = r.signature as { r: string; s: string; v: number };
    recoverAddressNoble(agentDigest(sep, 'b', actionConnectionId(r.action, r.nonce, null)), { r: BigInt(sig.r), s: BigInt(sig.s), recovery: sig.v - 27 });
  }
  const noble = slice.length / ((performance.now() - t0) / 1000);
  // Native, on the main thread.
  t0 = performance.now();
  for (const r of reqs) recoverSigner(AUTH, r, 'action');
  const inline = reqs.length / ((performance.now() - t0) / 1000);
  // The pool, saturated, with the main thread's event-loop delay sampled meanwhile.
  const workers = Number(process.env.BENCH_WORKERS ?? 2);
  const pool = await WorkerPoolRecovery.start(AUTH, workers);
  await Promise.all(reqs.slice(0, 2000).map((r) => pool.recover(r, 'action'))); // warm
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const elu0 = performance.eventLoopUtilization();
  t0 = performance.now();
  const addresses = await Promise.all(reqs.map((r) => pool.recover(r, 'action')));
  const pooled = reqs.length / ((performance.now() - t0) / 1000);
  const dialect = dialectRates(reqs.slice(0, 10_000));
  const mainBusy = performance.eventLoopUtilization(elu0).utilization;
  lag.disable();
  await pool.close();
  if (addresses.some((a) => a === null)) throw new Error('a signature did not recover');
  console.table({
    '@noble/curves, main thread': { 'signatures/s': Math.round(noble) },
    [`native secp256k1 (${nativeSecp256k1 ? 'loaded' : 'missing'}), main thread`]: { 'signatures/s': Math.round(inline) },
    [`native, pool of ${workers} workers`]: { 'signatures/s': Math.round(pooled) },
    'Hyperliquid L1 (msgpack hash), one chain, main thread': { 'signatures/s': Math.round(dialect.one) },
    'Hyperliquid L1, both chains recovered, main thread': { 'signatures/s': Math.round(dialect.both) },
  });
  console.log(`main thread busy ${(mainBusy * 100).toFixed(0)}% while the pool was saturated (${((mainBusy * 1e6) / pooled).toFixed(1)} µs per signature)`);
  console.log(`event-loop delay while the pool was saturated: p50 ${(lag.percentile(50) / 1e6).toFixed(2)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(2)} ms, max ${(lag.max / 1e6).toFixed(2)} ms`);
}

/**
 * The dialect's L1 recovery on the main thread: the msgpack hash and one recovery (the genesis
 * accepts one Hyperliquid chain), and two (it accepts both, and the client's is the second).
 */
function dialectRates(reqs: SignedFields[]): { one: number; both: number } {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSign;
  const sep = domainSeparator({ name: 'Exchange', version: '1', chainId: 1337, verifyingContract: '0x0000000000000000000000000000000000000000' });
  const key = randomBytes(32);
  const signed = reqs.map((r) => {
    const digest = agentDigest(sep, 'b', l1ActionHash(r.action, r.nonce, null, null));
    const { signature, recid } = native.ecdsaSign(digest, key);
    return { action: r.action, nonce: r.nonce, vaultAddress: null, expiresAfter: null, signature: { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), v: 27 + recid } };
  });
  const rate = (chains: ('Mainnet' | 'Testnet')[]) => {
    const t0 = performance.now();
    for (const r of signed) if (hyperliquidCandidates({ chains }, r).length === 0) throw new Error('a dialect signature did not recover');
    return signed.length / ((performance.now() - t0) / 1000);
  };
  return { one: rate(['Testnet']), both: rate(['Mainnet', 'Testnet']) };
}
