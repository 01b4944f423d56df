// EVM block execution alone (no HTTP, no admission): the evm-transfers workload decoded as
// admission hands it over, run through EvmChain.executeBlock in blocks of BENCH_EVM_BLOCK.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTx } from '@ethereumjs/tx';
import { bytesToHex, privateToAddress } from '@ethereumjs/util';
import { EvmChain, EvmStore, makeCommon } from '../evm/index.ts';

const N = Number(process.env.BENCH_EVM_TXS ?? 10_000);
const SENDERS = Number(process.env.BENCH_EVM_SENDERS ?? 500);
const BLOCK = Number(process.env.BENCH_EVM_BLOCK ?? 1000);
const CHAIN_ID = 42069;

interface NativeSign {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  privateKeyVerify(key: Uint8Array): boolean;
  publicKeyCreate(key: Uint8Array, compressed: boolean): Uint8Array;
}

export async function benchEvmExec(): Promise<void> {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSign;
  const common = makeCommon(CHAIN_ID);
  const keys = Array.from({ length: SENDERS }, () => {
    let k: Buffer;
    do k = randomBytes(32);
    while (!native.privateKeyVerify(k));
    return k;
  });
  const pubs = keys.map((k) => bytesToHex(native.publicKeyCreate(k, false).subarray(1)));
  const to = bytesToHex(randomBytes(20));
  const raws: { bytes: Uint8Array; publicKey: string; sender: string }[] = [];
  const addresses = keys.map((k) => bytesToHex(privateToAddress(k)));
  for (let nonce = 0; raws.length < N; nonce++) {
    keys.forEach((key, i) => {
      if (raws.length >= N) return;
      const tx = createTx({ type: 2, chainId: BigInt(CHAIN_ID), nonce: BigInt(nonce), to, value: 1n, gasLimit: 21000n, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 0n }, { common });
      const { signature, recid } = native.ecdsaSign(tx.getHashedMessageToSign(), key);
      raws.push({ bytes: tx.addSignature(BigInt(recid), signature.subarray(0, 32), signature.subarray(32)).serialize(), publicKey: pubs[i] as string, sender: addresses[i] as string });
    });
  }
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-evm-exec-'));
  const store = new EvmStore(dir);
  await store.open();
  try {
    const chain = await EvmChain.open(store, {
      chainId: CHAIN_ID, genesisTime: 0, gasLimit: 1_000_000_000n, minBaseFee: 1_000_000_000n,
      alloc: addresses.map((address) => ({ address, balance: 10n ** 21n })),
    });
    const t0 = performance.now();
    let errors = 0;
    for (let i = 0, h = 1; i < raws.length; i += BLOCK, h++) {
      const block = raws.slice(i, i + BLOCK).map((r) => ({ ...r, decoded: { tx: chain.decodeTx(r.bytes), sender: r.sender } }));
      const out = await chain.executeBlock(h, h * 1000, block, true);
      errors += out.outcomes.filter((o) => o.error !== null).length;
    }
    await chain.flushed(); // the blocks' writes, queued behind execution
    const s = (performance.now() - t0) / 1000;
    console.log(`${raws.length} transfers in blocks of ${BLOCK}: ${s.toFixed(2)} s, ${Math.round(raws.length / s)} tx/s (decode included), ${errors} left out`);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
