// The devnet's side of the anvil_* / evm_* methods: each operation becomes a devnet system
// transaction signed by this node's validator key, goes through the mempool into a block like any
// other, and the method answers once that block is committed.
import { txHash, type ValidatorKey } from '../consensus/index.ts';
import type { DevnetOp } from '../evm/index.ts';
import { RpcError, type DevnetBackend } from '../rpc/index.ts';
import { encodeDevnetTx } from './devnet-tx.ts';
import type { Mempool } from './mempool.ts';

export function devnetBackend(chainId: number, key: ValidatorKey, mempool: Mempool, notify: () => void, now: () => number, halted: () => boolean): DevnetBackend {
  let seq = 0;
  return {
    async submit(op: DevnetOp): Promise<void> {
      if (halted()) throw new RpcError(-32000, 'node halted after a storage failure');
      if (mempool.full()) throw new RpcError(-32000, 'txpool is full');
      seq += 1;
      const bytes = encodeDevnetTx(chainId, key, op, seq, now());
      const done = mempool.add({ bytes, hash: txHash(bytes), signer: '', nonce: null });
      notify();
      const result = await done;
      if (result === null) throw new RpcError(-32000, 'the devnet transaction was dropped (node halted)');
      if (result.status === 'err') throw new RpcError(-32000, `devnet transaction refused: ${result.error.message}`);
    },
  };
}
