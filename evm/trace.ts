// Execution traces in the shapes geth and anvil answer (debug_traceTransaction, debug_traceCall,
// debug_traceBlockByNumber): the default struct logger (one entry per opcode) and `callTracer`
// (the tree of calls). A trace runs on a throw-away copy of the state, listening to the EVM's
// step and message events; the chain's own VM never carries a listener.
import type { EVM, EVMInterface, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { RunTxResult } from '@ethereumjs/vm';
import { bytesToHex } from '../primitives/index.ts';

export interface TraceConfig {
  /** Absent: the struct logger. */
  readonly tracer?: 'callTracer';
  readonly disableStack?: boolean;
  readonly disableStorage?: boolean;
  readonly enableMemory?: boolean;
  readonly enableReturnData?: boolean;
  /** callTracer: the top call only. */
  readonly onlyTopCall?: boolean;
  /** callTracer: each frame's logs. */
  readonly withLog?: boolean;
}

/** Entries the struct logger keeps at most (geth has no limit; this bounds one answer's memory). */
export const MAX_STRUCT_LOGS = 2_000_000;

export interface Tracer {
  attach(evm: EVMInterface): void;
  detach(evm: EVMInterface): void;
  /** The trace of the run, once it is over. */
  result(run: RunTxResult): unknown;
  /**
   * After a run: the trace could not be told exactly without the interpreter's steps; run it
   * again with `makeTracer(config, true)` (`traceRun` does).
   */
  readonly inexact: boolean;
}

/**
 * `steps`: listen to every opcode even where the tracer could do without. The interpreter's step
 * event copies the stack and memory and awaits a promise per opcode (about 3 µs a step, ten times
 * the step itself), so the callTracer listens to messages only, and asks for a second, stepped
 * run in the rare case a message leaves its call opcode open.
 */
export function makeTracer(config: TraceConfig, steps = false): Tracer {
  return config.tracer === 'callTracer' ? new CallTracer(config, steps || config.withLog === true) : new StructLogger(config);
}

/**
 * A traced run: `run` runs the transaction with the tracer attached, and must be repeatable (each
 * run from the same state); it runs again with steps when the first trace is inexact.
 */
export async function traceRun(config: TraceConfig, run: (tracer: Tracer) => Promise<RunTxResult>): Promise<unknown> {
  let tracer = makeTracer(config);
  let r = await run(tracer);
  if (tracer.inexact) {
    tracer = makeTracer(config, true);
    r = await run(tracer);
  }
  return tracer.result(r);
}

/** A tracer fed by the interpreter's events: each message's start and end, and each step unless `steps` is off. */
abstract class EventTracer implements Tracer {
  private readonly onStep = (s: InterpreterStep) => this.step(s);
  private readonly onBefore = (m: Message) => this.before(m);
  private readonly onAfter = (r: EVMResult) => this.after(r);
  inexact = false;

  constructor(protected readonly config: TraceConfig, protected readonly steps = true) {}

  attach(vm: EVMInterface): void {
    const evm = vm as EVM;
    if (this.steps) evm.events.on('step', this.onStep);
    evm.events.on('beforeMessage', this.onBefore);
    evm.events.on('afterMessage', this.onAfter);
  }

  detach(vm: EVMInterface): void {
    const evm = vm as EVM;
    if (this.steps) evm.events.off('step', this.onStep);
    evm.events.off('beforeMessage', this.onBefore);
    evm.events.off('afterMessage', this.onAfter);
  }

  protected abstract step(s: InterpreterStep): void;
  protected abstract before(m: Message): void;
  protected abstract after(r: EVMResult): void;
  abstract result(run: RunTxResult): unknown;
}

const HEX = '0123456789abcdef';

/** A bigint as a 0x quantity. */
function quantity(v: bigint): string {
  return `0x${v.toString(16)}`;
}

function word(v: bigint): string {
  return `0x${v.toString(16).padStart(64, '0')}`;
}

/** Opcodes whose cost, as geth reports it, includes the gas handed to the callee. */
const FORWARDS_GAS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL']);

/** Memory as 32-byte words, 0x-prefixed as anvil lists them. */
function memoryWords(m: Uint8Array): string[] {
  const out: string[] = [];
  for (let i = 0; i < m.length; i += 32) {
    let s = '0x';
    for (let j = i; j < i + 32; j++) {
      const b = m[j] ?? 0;
      s += (HEX[b >> 4] as string) + (HEX[b & 15] as string);
    }
    out.push(s);
  }
  return out;
}

/** geth's words for an EVM error. */
/** ethereumjs's words for an EVM error, and geth's where they differ. */
const GETH_ERRORS: Record<string, string> = { revert: 'execution reverted', 'static state change': 'write protection' };

function errorText(e: { error: string } | undefined): string | undefined {
  if (e === undefined) return undefined;
  return GETH_ERRORS[e.error] ?? e.error;
}

interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  returnData?: string;
  storage?: Record<string, string>;
  refund: number;
  error?: string;
}

/** geth's default tracer: every opcode with gas, cost, depth, stack (and storage touched, memory when asked). */
class StructLogger extends EventTracer {
  private readonly logs: StructLog[] = [];
  /** Storage seen per contract, as geth accumulates it (copied into each SLOAD/SSTORE entry). */
  private readonly storage = new Map<string, Record<string, string>>();
  /** An SLOAD whose value is the next step's stack top. */
  private pendingLoad: { log: StructLog; address: string; key: string; depth: number } | null = null;
  /** The last entry of each depth, for the frame's error. */
  private readonly lastAt: (StructLog | undefined)[] = [];
  /** Depth of the frame running (1 = the transaction's). */
  private depth = 0;
  /** Each frame's return-data buffer (what its last call returned), by depth. */
  private readonly returnData: string[] = [];
  /** The last SSTORE recorded: undone when it turns out to be the step that failed (a write in a static call). */
  private lastStore: { log: StructLog; map: Record<string, string>; key: string; before: string | undefined } | null = null;

  protected before(): void {
    this.depth += 1;
    this.lastAt[this.depth] = undefined;
    this.returnData[this.depth] = '0x';
  }

  protected step(s: InterpreterStep): void {
    const depth = s.depth + 1;
    const stack = s.stack;
    if (this.pendingLoad !== null) {
      const p = this.pendingLoad;
      this.pendingLoad = null;
      if (depth === p.depth && stack.length > 0) {
        const map = this.contractStorage(p.address);
        map[p.key] = word(stack[stack.length - 1] as bigint);
        p.log.storage = { ...map };
      }
    }
    if (this.logs.length >= MAX_STRUCT_LOGS) return;
    const op = s.opcode.name;
    let cost = s.opcode.dynamicFee ?? BigInt(s.opcode.fee);
    // geth counts the gas a call passes on in the call's cost: all but 1/64 of what is left, at most what the stack asks.
    if (FORWARDS_GAS.has(op) && stack.length > 0 && s.gasLeft >= cost) {
      const left = s.gasLeft - cost;
      const asked = stack[stack.length - 1] as bigint;
      const most = left - left / 64n;
      cost += asked < most ? asked : most;
    } else if ((op === 'CREATE' || op === 'CREATE2') && s.gasLeft >= cost) {
      // A create passes on all but 1/64 of what is left, with no gas argument.
      const left = s.gasLeft - cost;
      cost += left - left / 64n;
    }
    const log = { pc: s.pc, op, gas: Number(s.gasLeft), gasCost: Number(cost), depth } as StructLog;
    if (this.config.disableStack !== true) {
      const out = new Array<string>(stack.length);
      for (let i = 0; i < stack.length; i++) out[i] = `0x${(stack[i] as bigint).toString(16)}`;
      log.stack = out;
    }
    if (this.config.enableMemory === true) log.memory = memoryWords(s.memory);
    if (this.config.enableReturnData === true) log.returnData = this.returnData[depth] ?? '0x';
    if (this.config.disableStorage !== true && stack.length > 0) {
      const address = s.address.toString();
      if (op === 'SLOAD') {
        this.pendingLoad = { log, address, key: word(stack[stack.length - 1] as bigint), depth };
      } else if (op === 'SSTORE' && stack.length > 1) {
        const map = this.contractStorage(address);
        const key = word(stack[stack.length - 1] as bigint);
        this.lastStore = { log, map, key, before: map[key] };
        map[key] = word(stack[stack.length - 2] as bigint);
        log.storage = { ...map };
      }
    }
    log.refund = Number(s.gasRefund);
    this.lastAt[depth] = log;
    this.logs.push(log);
  }

  private contractStorage(address: string): Record<string, string> {
    let m = this.storage.get(address);
    if (m === undefined) {
      m = {};
      this.storage.set(address, m);
    }
    return m;
  }

  protected after(r: EVMResult): void {
    const err = r.execResult.exceptionError;
    const last = this.lastAt[this.depth];
    this.depth -= 1;
    // A create that succeeds leaves the caller's return data empty (EIP-211); its code is not return data.
    const created = r.createdAddress !== undefined && err === undefined;
    if (this.depth > 0) this.returnData[this.depth] = created ? '0x' : bytesToHex(r.execResult.returnValue);
    // A frame that failed (out of gas, invalid opcode, ...; not a revert) failed at its last step: geth marks that entry.
    if (err !== undefined && err.error !== 'revert' && last !== undefined && last.error === undefined) {
      last.error = errorText(err);
      const store = this.lastStore;
      if (store !== null && store.log === last) {
        if (store.before === undefined) delete store.map[store.key];
        else store.map[store.key] = store.before;
        if (last.storage !== undefined) last.storage = { ...store.map };
      }
    }
  }

  result(run: RunTxResult): unknown {
    return {
      failed: run.execResult.exceptionError !== undefined,
      gas: Number(run.totalGasSpent),
      returnValue: bytesToHex(run.execResult.returnValue),
      structLogs: this.logs,
    };
  }
}

interface CallFrame {
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: { address: string; topics: string[]; data: string; position: string; index?: string }[];
  value?: string;
  type: string;
}

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);

/** geth's callTracer: the call tree with gas, input, output, errors and revert reasons (and logs with `withLog`). */
class CallTracer extends EventTracer {
  private readonly stack: CallFrame[] = [];
  /** Whether each open frame runs static (parallel to `stack`). */
  private readonly statics: boolean[] = [];
  private root: CallFrame | null = null;
  /** The opcode that opened the next frame (the last call-like step seen), with steps. */
  private lastCallOp = 'CALL';
  private logIndex = 0;

  /**
   * The opcode that opened a frame, from its message alone (no steps): exact but for a call from
   * a static frame (CALL or STATICCALL look the same there) and a call of a contract's own address
   * (CALL or CALLCODE), which mark the trace inexact.
   */
  private callOp(m: Message): string {
    if (m.to === undefined) return m.salt !== undefined ? 'CREATE2' : 'CREATE';
    if (m.delegatecall) return 'DELEGATECALL';
    if (m.isStatic) {
      if (this.statics[this.statics.length - 1] === true) this.inexact = true;
      return 'STATICCALL';
    }
    if (m.caller.equals(m.to)) {
      if (m.codeAddress.equals(m.to)) this.inexact = true;
      else return 'CALLCODE';
    }
    return 'CALL';
  }

  protected step(s: InterpreterStep): void {
    const op = s.opcode.name;
    if (CALL_OPS.has(op)) this.lastCallOp = op;
    else if (this.config.withLog === true && op.startsWith('LOG')) this.log(s, Number(op.slice(3)));
  }

  private log(s: InterpreterStep, topics: number): void {
    const frame = this.stack[this.stack.length - 1];
    const st = s.stack;
    if (frame === undefined || st.length < 2 + topics) return;
    const offset = Number(st[st.length - 1]);
    const size = Number(st[st.length - 2]);
    const data = new Uint8Array(size);
    data.set(s.memory.subarray(offset, offset + size));
    const t: string[] = [];
    for (let i = 0; i < topics; i++) t.push(word(st[st.length - 3 - i] as bigint));
    (frame.logs ??= []).push({ address: s.address.toString(), topics: t, data: bytesToHex(data), position: quantity(BigInt(frame.calls?.length ?? 0)), index: quantity(BigInt(this.logIndex++)) });
  }

  protected before(m: Message): void {
    const top = m.depth === 0;
    const type = top ? (m.to === undefined ? 'CREATE' : 'CALL') : this.steps ? this.lastCallOp : this.callOp(m);
    // A create's message has no code address (ethereumjs throws reading it).
    const code = m.to === undefined ? '' : m.codeAddress.toString();
    const delegated = type === 'DELEGATECALL' || type === 'CALLCODE';
    const frame: CallFrame = {
      from: delegated ? (m.to?.toString() ?? '') : m.caller.toString(),
      gas: quantity(m.gasLimit),
      gasUsed: '0x0',
      ...(m.to === undefined ? {} : { to: delegated ? code : m.to.toString() }),
      input: bytesToHex(m.data),
      ...(type === 'STATICCALL' ? {} : { value: quantity(m.value) }),
      type,
    };
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) this.root = frame;
    else if (this.config.onlyTopCall !== true) (parent.calls ??= []).push(frame);
    this.stack.push(frame);
    this.statics.push(m.isStatic);
  }

  protected after(r: EVMResult): void {
    this.statics.pop();
    const frame = this.stack.pop();
    if (frame === undefined) return;
    const e = r.execResult;
    frame.gasUsed = quantity(e.executionGasUsed);
    if (r.createdAddress !== undefined && frame.to === undefined) frame.to = r.createdAddress.toString();
    const out = e.returnValue;
    // geth omits an empty output.
    if (out.length > 0) frame.output = bytesToHex(out);
    const err = errorText(e.exceptionError);
    if (err !== undefined) {
      frame.error = err;
      if (e.exceptionError?.error !== 'revert') delete frame.output;
      const reason = revertReason(out);
      if (reason !== undefined) frame.revertReason = reason;
      // A failed frame's logs are discarded with its state (and its children's).
      dropLogs(frame);
    }
  }

  result(run: RunTxResult): unknown {
    const root = this.root;
    if (root === null) return null;
    // The top frame's gas used is the transaction's (intrinsic gas and refund included), as geth reports it.
    root.gasUsed = quantity(run.totalGasSpent);
    return order(root);
  }
}

/** geth's key order (the JSON is compared field by field, but readers diff it too). */
function order(f: CallFrame): CallFrame {
  const out: Record<string, unknown> = { from: f.from, gas: f.gas, gasUsed: f.gasUsed };
  if (f.to !== undefined) out.to = f.to;
  out.input = f.input;
  if (f.output !== undefined) out.output = f.output;
  if (f.error !== undefined) out.error = f.error;
  if (f.revertReason !== undefined) out.revertReason = f.revertReason;
  if (f.calls !== undefined) out.calls = f.calls.map(order);
  if (f.logs !== undefined && f.logs.length > 0) out.logs = f.logs;
  if (f.value !== undefined) out.value = f.value;
  out.type = f.type;
  return out as unknown as CallFrame;
}

function dropLogs(f: CallFrame): void {
  delete f.logs;
  for (const c of f.calls ?? []) dropLogs(c);
}

/** The Error(string) reason of revert data, if it carries one. */
function revertReason(data: Uint8Array): string | undefined {
  if (data.length < 68 || data[0] !== 0x08 || data[1] !== 0xc3 || data[2] !== 0x79 || data[3] !== 0xa0) return undefined;
  const len = Number(BigInt(bytesToHex(data.subarray(36, 68))));
  if (68 + len > data.length) return undefined;
  return Buffer.from(data.subarray(68, 68 + len)).toString('utf8');
}
