// eth_simulateV1 as viem's simulateBlocks / simulateCalls call it: blocks of calls run in sequence
// on one throw-away copy of the state at the block asked, each simulated block after the one
// before (number + 1, time + 1 unless overridden), with state overrides per block, results per
// call (status, return data, gas, logs; ETH transfers as ERC-7528 logs with traceTransfers).
import { createBlock } from '@ethereumjs/block';
import type { EVM, EVMResult, Message } from '@ethereumjs/evm';
import { bigIntToHex, bytesToHex } from '@ethereumjs/util';
import { CallSession, MAX_TX_GAS } from '../../evm/index.ts';
import { keccak256 } from '../../primitives/index.ts';
import { EXECUTION_REVERTED, RpcError, SERVER_ERROR, invalidParams, revertMessage } from './errors.ts';
import { callRequest, mustResolve, overridesOf, runError, type Handler } from './methods.ts';
import { arity, blockRef, quantity } from './params.ts';

/** Blocks and calls one request may simulate (geth: 256 blocks). */
const MAX_BLOCKS = 256;
const MAX_CALLS = 1000;
/** ERC-7528's address for the native currency, and Transfer(address,address,uint256). */
const ETH_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const TRANSFER_TOPIC = bytesToHex(keccak256(new TextEncoder().encode('Transfer(address,address,uint256)')));

interface SimLog { address: string; topics: string[]; data: string }

function topicOf(address: string): string {
  return `0x${address.slice(2).padStart(64, '0')}`;
}

const simulateV1: Handler = async (p, ctx) => {
  arity(p, 1, 2);
  const opts = p[0] as { blockStateCalls?: unknown; traceTransfers?: unknown; validation?: unknown; returnFullTransactions?: unknown };
  if (typeof opts !== 'object' || opts === null || !Array.isArray(opts.blockStateCalls)) throw invalidParams('blockStateCalls expected');
  if (opts.blockStateCalls.length > MAX_BLOCKS) throw new RpcError(-32005, `too many blocks (at most ${MAX_BLOCKS})`);
  const chain = ctx.backend.chain;
  const base = await mustResolve(chain, blockRef(p[1], '1'));
  const validate = opts.validation === true;
  const session = await CallSession.open(chain, base.block, undefined, validate);
  const traceTransfers = opts.traceTransfers === true;
  let parent = base.block.header;
  let calls = 0;
  const out: unknown[] = [];
  for (const raw of opts.blockStateCalls as Record<string, unknown>[]) {
    const bo = (raw.blockOverrides ?? {}) as Record<string, unknown>;
    const number = bo.number === undefined ? parent.number + 1n : quantity(bo.number, 'blockOverrides.number');
    const timestamp = bo.time === undefined ? parent.timestamp + 1n : quantity(bo.time, 'blockOverrides.time');
    if (number <= parent.number) throw new RpcError(-38020, `block numbers must increase: ${number} after ${parent.number}`);
    if (timestamp <= parent.timestamp && bo.time !== undefined) throw new RpcError(-38021, `block timestamps must increase: ${timestamp} after ${parent.timestamp}`);
    const baseFee = bo.baseFeePerGas === undefined ? (validate ? chain.nextBaseFee() : 0n) : quantity(bo.baseFeePerGas, 'blockOverrides.baseFeePerGas');
    const gasLimit = bo.gasLimit === undefined ? parent.gasLimit : quantity(bo.gasLimit, 'blockOverrides.gasLimit');
    const header = { ...parent.toJSON(), number, timestamp, baseFeePerGas: baseFee, gasLimit, parentHash: parent.hash(), gasUsed: 0n, ...(typeof bo.feeRecipient === 'string' ? { coinbase: bo.feeRecipient as `0x${string}` } : {}) };
    session.block = createBlock({ header }, { common: chain.common });
    const overrides = overridesOf(raw.stateOverrides);
    if (overrides !== undefined) await session.applyOverrides(overrides);
    const results: unknown[] = [];
    let gasUsed = 0n;
    const blockLogs: SimLog[][] = [];
    for (const c of (Array.isArray(raw.calls) ? raw.calls : []) as unknown[]) {
      if (++calls > MAX_CALLS) throw new RpcError(-32005, `too many calls (at most ${MAX_CALLS})`);
      const req = callRequest(c);
      const transfers: SimLog[] = [];
      const evm = session.vm.evm as EVM;
      // ETH moved by the call and its sub-calls, in order, dropped with a frame that fails.
      const marks: number[] = [];
      const before = (m: Message) => {
        marks.push(transfers.length);
        if (m.value > 0n && !m.delegatecall) {
          transfers.push({ address: ETH_ADDRESS, topics: [TRANSFER_TOPIC, topicOf(m.caller.toString()), topicOf(m.to?.toString() ?? ETH_ADDRESS)], data: `0x${m.value.toString(16).padStart(64, '0')}` });
        }
      };
      const after = (r: EVMResult) => {
        const mark = marks.pop() ?? 0;
        if (r.execResult.exceptionError !== undefined) transfers.length = mark;
      };
      if (traceTransfers) {
        evm.events.on('beforeMessage', before);
        evm.events.on('afterMessage', after);
      }
      let r;
      try {
        const room = gasLimit - gasUsed;
        r = await session.runKept(req, req.gas ?? (room < MAX_TX_GAS ? room : MAX_TX_GAS), validate);
      } catch (err) {
        throw runError(err);
      } finally {
        evm.events.off('beforeMessage', before);
        evm.events.off('afterMessage', after);
      }
      gasUsed += r.totalGasSpent;
      const err = r.execResult.exceptionError;
      const logs: SimLog[] = err !== undefined ? [] : [...(traceTransfers ? transfers : []), ...r.receipt.logs.map(([a, topics, d]) => ({ address: bytesToHex(a), topics: topics.map((x) => bytesToHex(x)), data: bytesToHex(d) }))];
      blockLogs.push(logs);
      const returnData = bytesToHex(r.execResult.returnValue);
      results.push({
        status: err === undefined ? '0x1' : '0x0',
        returnData,
        gasUsed: bigIntToHex(r.totalGasSpent),
        logs,
        ...(err === undefined ? {} : { error: err.error === 'revert' ? { code: EXECUTION_REVERTED, message: revertMessage(r.execResult.returnValue), data: returnData } : { code: SERVER_ERROR, message: err.error } }),
      });
    }
    const simulated = createBlock({ header: { ...header, gasUsed } }, { common: chain.common });
    const hash = bytesToHex(simulated.hash());
    let logIndex = 0;
    const calledResults = results.map((r, i) => ({
      ...(r as Record<string, unknown>),
      logs: (blockLogs[i] as SimLog[]).map((l) => ({
        ...l, blockNumber: bigIntToHex(number), blockHash: hash, logIndex: bigIntToHex(BigInt(logIndex++)), transactionHash: `0x${'00'.repeat(32)}`, transactionIndex: bigIntToHex(BigInt(i)), removed: false,
      })),
    }));
    const h = simulated.header;
    out.push({
      number: bigIntToHex(h.number), hash, parentHash: bytesToHex(h.parentHash), timestamp: bigIntToHex(h.timestamp), gasLimit: bigIntToHex(h.gasLimit), gasUsed: bigIntToHex(h.gasUsed),
      baseFeePerGas: bigIntToHex(h.baseFeePerGas ?? 0n), miner: h.coinbase.toString(), stateRoot: bytesToHex(h.stateRoot), transactionsRoot: bytesToHex(h.transactionsTrie),
      receiptsRoot: bytesToHex(h.receiptTrie), logsBloom: bytesToHex(h.logsBloom), extraData: '0x', mixHash: bytesToHex(h.mixHash), nonce: bytesToHex(h.nonce), difficulty: '0x0',
      sha3Uncles: bytesToHex(h.uncleHash), size: bigIntToHex(BigInt(simulated.serialize().length)), uncles: [], transactions: [], withdrawals: [], withdrawalsRoot: bytesToHex(h.withdrawalsRoot ?? new Uint8Array(32)),
      blobGasUsed: '0x0', excessBlobGas: '0x0', parentBeaconBlockRoot: bytesToHex(h.parentBeaconBlockRoot ?? new Uint8Array(32)),
      calls: calledResults,
    });
    parent = simulated.header;
  }
  return out;
};

export const SIMULATE_METHODS: Record<string, Handler> = { eth_simulateV1: simulateV1 };
