// Runs a stored block's transactions again on a copy of its parent's state, tracing the ones asked
// for (debug_traceTransaction, debug_traceBlockByNumber). Senders come from the stored block, so
// no signature is recovered. What a replay here does not see: devnet operations carried in the
// same consensus block (anvil_setBalance, ...) and the precompiles' exchange state, which is today's.
import { createBlock, type Block } from '@ethereumjs/block';
import { createTxFromRLP } from '@ethereumjs/tx';
import { runTx } from '@ethereumjs/vm';
import { bytesToHex } from '../primitives/index.ts';
import { impersonate, type EvmChain } from './chain.ts';
import type { StoredEvmBlock } from './store.ts';
import { traceRun, type TraceConfig, type Tracer } from './trace.ts';

export interface TxTrace {
  readonly txHash: string;
  readonly result: unknown;
}

/** Traces of the transactions of `found` up to `upTo` (all when null), or only of `upTo` when `onlyLast`. */
export async function traceStoredBlock(chain: EvmChain, found: { block: Block; stored: StoredEvmBlock }, config: TraceConfig, upTo: number | null = null, onlyLast = false): Promise<TxTrace[]> {
  const n = Number(found.block.header.number);
  const parent = n === 0 ? undefined : await chain.blockAt(n - 1);
  if (parent === undefined) return [];
  const vm = await chain.vmAt(parent.block.header.stateRoot);
  // An outer checkpoint never committed: the transactions' commits stay in memory, and nothing
  // reaches the trie's database (the copy shares it with the chain's state).
  await vm.stateManager.checkpoint();
  const block = createBlock({ header: found.block.header.toJSON() }, { common: chain.common });
  const last = upTo ?? found.block.transactions.length - 1;
  const out: TxTrace[] = [];
  let gasUsed = 0n;
  for (let i = 0; i <= last; i++) {
    const stored = found.block.transactions[i];
    if (stored === undefined) break;
    const tx = createTxFromRLP(stored.serialize(), { common: chain.txCommon, freeze: false });
    impersonate(tx, found.stored.senders[i] as string);
    const run = async (tracer: Tracer | null) => {
      tracer?.attach(vm.evm);
      try {
        return await runTx(vm, { tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true });
      } finally {
        tracer?.detach(vm.evm);
      }
    };
    if (onlyLast && i !== last) {
      gasUsed += (await run(null)).totalGasSpent;
      continue;
    }
    // Each traced run from the same state: a checkpoint reverted when the trace runs again.
    let spent = 0n;
    let runs = 0;
    const result = await traceRun(config, async (tracer) => {
      if (runs++ > 0) await vm.stateManager.revert();
      await vm.stateManager.checkpoint();
      const r = await run(tracer);
      spent = r.totalGasSpent;
      return r;
    });
    await vm.stateManager.commit();
    gasUsed += spent;
    out.push({ txHash: bytesToHex(stored.hash()), result });
  }
  return out;
}
