// The write system contract (HyperEVM's CoreWriter): at CORE_WRITER from the genesis block on,
// `sendRawAction(bytes data)` burns a fixed amount of gas and emits
// `RawAction(address indexed user, bytes data)` with `user = msg.sender`. It does nothing else:
// node/ reads the logs of each EVM block and runs them on the exchange (docs/evm.md, "Write
// system contract"). Its runtime code is assembled here, opcode by opcode, so that it is the same
// bytes on every machine without a compiler at start-up; test/e2e/core-writer.test.ts holds it to
// the Solidity interface (calls from a compiled contract, reverts on value and bad input).
import { bytesToHex, hexToBytes, keccak256, utf8 } from '../primitives/index.ts';

export const CORE_WRITER = '0x3333333333333333333333333333333333333333';
/** keccak256("sendRawAction(bytes)")[0..4]. */
export const SEND_RAW_ACTION_SELECTOR = '0x17938e13';
/** topic0 of `RawAction(address indexed user, bytes data)`. */
export const RAW_ACTION_TOPIC = bytesToHex(keccak256(utf8('RawAction(address,bytes)')));
/**
 * The gas burn: memory expanded to this many words (3 per word + words^2 / 512: 24,982 gas, about
 * the 25,000 HyperEVM documents). One MLOAD instead of HyperEVM's empty loop: the same charge,
 * without interpreting thousands of opcodes per action in a JavaScript EVM.
 */
export const BURN_WORDS = 2890;

type Item = string | { push: bigint; bytes: number } | { label: string } | { ref: string };

const OPCODES: Record<string, number> = {
  STOP: 0x00, ADD: 0x01, SUB: 0x03, LT: 0x10, EQ: 0x14, ISZERO: 0x15, AND: 0x16, NOT: 0x19, SHR: 0x1c,
  MLOAD: 0x51, CALLER: 0x33, CALLVALUE: 0x34, CALLDATALOAD: 0x35, CALLDATASIZE: 0x36, CALLDATACOPY: 0x37,
  POP: 0x50, MSTORE: 0x52, JUMPI: 0x57, JUMPDEST: 0x5b, DUP1: 0x80, DUP2: 0x81, DUP3: 0x82, SWAP1: 0x90, LOG2: 0xa2, REVERT: 0xfd,
};

const push = (v: bigint | number, bytes = 1): Item => ({ push: BigInt(v), bytes });

/** Assembles items into bytecode: labels resolve to 2-byte PUSH2 jump targets. */
function assemble(items: readonly Item[]): Uint8Array {
  const labels = new Map<string, number>();
  const size = (i: Item) => (typeof i === 'string' ? 1 : 'push' in i ? 1 + i.bytes : 'ref' in i ? 3 : 1);
  let pc = 0;
  for (const i of items) {
    if (typeof i === 'object' && 'label' in i) labels.set(i.label, pc);
    pc += size(i);
  }
  const out: number[] = [];
  for (const i of items) {
    if (typeof i === 'string') {
      const op = OPCODES[i];
      if (op === undefined) throw new Error(`invariant: unknown opcode ${i}`);
      out.push(op);
    } else if ('label' in i) out.push(OPCODES.JUMPDEST as number);
    else {
      const [value, bytes] = 'push' in i ? [i.push, i.bytes] : [BigInt(labels.get(i.ref) ?? -1), 2];
      if (value < 0n || value >= 1n << BigInt(8 * bytes)) throw new Error(`invariant: push of ${value} in ${bytes} bytes`);
      out.push(0x5f + bytes);
      for (let b = bytes - 1; b >= 0; b--) out.push(Number((value >> BigInt(8 * b)) & 0xffn));
    }
  }
  return Uint8Array.from(out);
}

/**
 * The runtime code. Reverts (empty data) on: calldata shorter than a selector, another selector,
 * any value sent (non-payable), an ABI `bytes` argument whose offset or length exceed 2^32 or
 * reach past the calldata. Otherwise burns about 25,000 gas (BURN_WORDS) and emits the log with data
 * `abi.encode(data)` (offset 0x20, length, bytes zero-padded to a word), as Solidity would.
 */
export const CORE_WRITER_CODE: Uint8Array = assemble([
  push(4), 'CALLDATASIZE', 'LT', { ref: 'revert' }, 'JUMPI',
  push(0), 'CALLDATALOAD', push(0xe0), 'SHR', push(0x17938e13, 4), 'EQ', 'ISZERO', { ref: 'revert' }, 'JUMPI',
  'CALLVALUE', { ref: 'revert' }, 'JUMPI',
  // p = 4 + offset (the length word); offset <= 2^32 - 1
  push(4), 'CALLDATALOAD', 'DUP1', push(0xffffffff, 4), 'LT', { ref: 'revert' }, 'JUMPI',
  push(4), 'ADD',
  // len = calldata[p]; len <= 2^32 - 1; p + 32 + len <= calldatasize       stack: len, p
  'DUP1', 'CALLDATALOAD', 'DUP1', push(0xffffffff, 4), 'LT', { ref: 'revert' }, 'JUMPI',
  'DUP1', 'DUP3', push(0x20), 'ADD', 'ADD', 'CALLDATASIZE', 'LT', { ref: 'revert' }, 'JUMPI',
  // the gas burn: MLOAD of the last word of BURN_WORDS expands memory to them
  push((BURN_WORDS - 1) * 32, 3), 'MLOAD', 'POP',
  // memory: [0x00] = 0x20, [0x20] = len, [0x40..] = the bytes
  push(0x20), push(0), 'MSTORE',
  'DUP1', push(0x20), 'MSTORE',
  'DUP1', 'DUP3', push(0x20), 'ADD', push(0x40), 'CALLDATACOPY',
  // size = 0x40 + ceil32(len); LOG2(0, size, topic0, caller)
  push(0x1f), 'DUP2', 'ADD', push(0x1f), 'NOT', 'AND', push(0x40), 'ADD',
  'CALLER', 'SWAP1', push(BigInt(RAW_ACTION_TOPIC), 32), 'SWAP1', push(0), 'LOG2',
  'STOP',
  { label: 'revert' }, push(0), 'DUP1', 'REVERT',
]);

export const CORE_WRITER_CODE_HEX = bytesToHex(CORE_WRITER_CODE);

/** A `RawAction` log as receipts store it, or null when the log is not one from CORE_WRITER. */
export function rawActionOf(log: { readonly address: string; readonly topics: readonly string[]; readonly data: string }): { user: string; data: Uint8Array } | null {
  if (log.address.toLowerCase() !== CORE_WRITER || log.topics.length !== 2 || log.topics[0] !== RAW_ACTION_TOPIC) return null;
  const bytes = hexToBytes(log.data);
  // The contract writes exactly abi.encode(bytes): offset 0x20, length, data.
  if (bytes.length < 64) return null;
  const len = Number(BigInt(bytesToHex(bytes.subarray(32, 64))));
  if (!Number.isSafeInteger(len) || 64 + len > bytes.length) return null;
  return { user: `0x${(log.topics[1] as string).slice(26)}`, data: bytes.subarray(64, 64 + len) };
}
