// debug_traceTransaction, debug_traceCall and debug_traceBlockByNumber (struct logger and
// callTracer) against anvil answering the same signed transactions (anvil on the same chain id,
// with --steps-tracing so it keeps the opcode steps): the answers must be equal. And `cast run`
// (Foundry's replay of a transaction against a node's state) on a transaction of the devnet.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { Interface, JsonRpcProvider, Wallet, type TransactionReceipt } from 'ethers';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startAnvil } from '../support/anvil.ts';
import { until } from '../support/network.ts';
import { startNode } from '../support/node.ts';
import { compile } from '../support/solc.ts';

const CAST = fileURLToPath(new URL('../../node_modules/@foundry-rs/cast-linux-amd64/bin/cast', import.meta.url));

const SOURCE = `
pragma solidity ^0.8.20;
contract Child {
  uint256 public v;
  event Set(uint256 x);
  function set(uint256 x) external returns (uint256) { v = x; emit Set(x); return x * 2; }
  function boom() external pure { revert("nope"); }
}
contract Parent {
  Child c;
  uint256 public n;
  event Went(uint256 r);
  constructor() { c = new Child(); }
  function go(uint256 x) external payable returns (uint256) {
    n = x;
    uint256 r = c.set(x + 1);
    try c.boom() {} catch {}
    emit Went(r);
    return r;
  }
  function fail() external { n = 1; c.boom(); }
  function burn() external { n = 2; while (true) {} }
  function bump() external { n += 1; }
  function poke() external { c.set(1); }
  // Every call opcode, and the two a message alone leaves open: a contract calling itself (CALL
  // or CALLCODE) and a CALL from a static frame (CALL or STATICCALL).
  function mix() external returns (uint256) {
    Child d = new Child{salt: bytes32(uint256(7))}();
    (bool ok,) = address(d).delegatecall(abi.encodeWithSignature("boom()"));
    this.bump();
    (ok,) = address(this).staticcall(abi.encodeWithSignature("poke()"));
    address t = address(c);
    bytes memory data = abi.encodeWithSignature("boom()");
    assembly { ok := callcode(gas(), t, 0, add(data, 32), mload(data), 0, 0) }
    return d.v();
  }
}`;

/** Fixed fees and gas, so the same signed bytes are valid on both chains (and hash the same). */
const FEES = { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, gasLimit: 500_000n };

/** The first place two JSON values differ (key order ignored), or null: a short failure message for long traces. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | null {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return a === b ? null : `${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array and object`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    if (d !== null) return `${d}\n  ours: ${JSON.stringify(a).slice(0, 600)}\n  anvil: ${JSON.stringify(b).slice(0, 600)}`.slice(0, 2000);
  }
  return null;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * The receipt of `hash`, once there is one. Not ethers' waitForTransaction: it checks the receipt,
 * then waits for a block after the one its first poll sees, so a transaction anvil's automine
 * puts in a block between the two is never seen (no block follows it here).
 */
async function receiptOf(p: JsonRpcProvider, hash: string): Promise<TransactionReceipt> {
  let receipt = null as TransactionReceipt | null;
  await until(`a receipt of ${hash}`, async () => (receipt = await p.getTransactionReceipt(hash)) !== null);
  return receipt as TransactionReceipt;
}

t.test('traces equal to anvil\'s for the same transactions; cast run replays one', async (t) => {
  const { node } = await startNode(t, { emptyBlockIntervalMs: 200 });
  const anvil = await startAnvil(t, 42069, ['--steps-tracing', '--hardfork', 'osaka']);
  const urls = { svc: node.rpcUrl as string, anvil: anvil.url };
  const { Parent } = compile(SOURCE);
  const iface = new Interface(Parent!.abi as never);
  const key = DEV_ACCOUNTS[0]!.privateKey;
  const signer = new Wallet(key);
  // The same signed transactions go to both chains.
  const deploy = await signer.signTransaction({ ...FEES, chainId: 42069, nonce: 0, type: 2, data: Parent!.bytecode, gasLimit: 2_000_000n });
  let to = '';
  for (const [name, url] of Object.entries(urls)) {
    const p = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50 });
    const receipt = await receiptOf(p, (await p.broadcastTransaction(deploy)).hash);
    t.equal(receipt.status, 1, `${name}: deployed`);
    to = receipt.contractAddress!;
    p.destroy();
  }
  const calls = {
    go: iface.encodeFunctionData('go', [7n]),
    fail: iface.encodeFunctionData('fail'),
  };
  const signed = [
    await signer.signTransaction({ ...FEES, chainId: 42069, nonce: 1, type: 2, to, value: 3n, data: calls.go }),
    await signer.signTransaction({ ...FEES, chainId: 42069, nonce: 2, type: 2, to, data: calls.fail }),
    await signer.signTransaction({ ...FEES, chainId: 42069, nonce: 3, type: 2, to, data: iface.encodeFunctionData('burn'), gasLimit: 100_000n }),
    await signer.signTransaction({ ...FEES, chainId: 42069, nonce: 4, type: 2, to, data: iface.encodeFunctionData('mix') }),
  ];
  const mined: Record<string, { hash: string; block: number }[]> = { svc: [], anvil: [] };
  for (const [name, url] of Object.entries(urls)) {
    const p = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50 });
    for (const raw of signed) {
      const sent = await p.broadcastTransaction(raw);
      const r = await receiptOf(p, sent.hash);
      mined[name]!.push({ hash: sent.hash, block: r.blockNumber });
    }
    p.destroy();
  }
  t.same(mined.svc!.map((m) => m.hash), mined.anvil!.map((m) => m.hash), 'the same transactions');

  const configs: [string, unknown][] = [
    ['struct logger', {}],
    ['struct logger with memory and return data', { enableMemory: true, enableReturnData: true }],
    ['struct logger without stack and storage', { disableStack: true, disableStorage: true }],
    ['callTracer', { tracer: 'callTracer' }],
    ['callTracer with logs', { tracer: 'callTracer', tracerConfig: { withLog: true } }],
    ['callTracer top call only', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }],
  ];
  for (const [i, m] of mined.svc!.entries()) {
    for (const [what, config] of configs) {
      const ours = await rpc(urls.svc, 'debug_traceTransaction', [m.hash, config]);
      const theirs = await rpc(urls.anvil, 'debug_traceTransaction', [m.hash, config]);
      if (i === 2 && ours.structLogs !== undefined) {
        // Out of gas: geth words the last step's error "out of gas" with the opcode's cost; anvil
        // 1.7.1 writes "Some(OutOfGas)" and the gas that was left. The steps before are compared.
        t.match(ours.structLogs.at(-1), { op: 'JUMP', gasCost: 8, error: 'out of gas' }, 'the failing step');
        ours.structLogs.pop();
        theirs.structLogs.pop();
      }
      // anvil 1.7.1 writes a write in a static call's error as its Rust name; geth (and this node) as "write protection".
      for (const step of theirs.structLogs ?? []) if (step.error === 'Some(StateChangeDuringStaticCall)') step.error = 'write protection';
      const frames = (f: { error?: string; calls?: unknown[] }): void => {
        if (f.error === 'StateChangeDuringStaticCall') f.error = 'write protection';
        for (const c of f.calls ?? []) frames(c as typeof f);
      };
      if (theirs.structLogs === undefined) frames(theirs);
      t.equal(firstDifference(ours, theirs), null, `debug_traceTransaction, transaction ${i}, ${what}`);
    }
  }
  const first = mined.svc![0]!;
  for (const [what, config] of [configs[0]!, configs[4]!]) {
    const ours = await rpc(urls.svc, 'debug_traceBlockByNumber', [`0x${first.block.toString(16)}`, config]);
    const theirs = await rpc(urls.anvil, 'debug_traceBlockByNumber', [`0x${mined.anvil![0]!.block.toString(16)}`, config]);
    t.equal(firstDifference(ours, theirs), null, `debug_traceBlockByNumber, ${what}`);
  }
  const call = { from: signer.address, to, data: calls.go, gas: '0x7a120' };
  for (const [what, config] of [configs[0]!, configs[4]!]) {
    const ours = await rpc(urls.svc, 'debug_traceCall', [call, 'latest', config]);
    const theirs = await rpc(urls.anvil, 'debug_traceCall', [call, 'latest', config]);
    t.equal(firstDifference(ours, theirs), null, `debug_traceCall, ${what}`);
  }

  // cast run: Foundry fetches the block and the parent state from the node and replays the transaction.
  const { stdout } = await promisify(execFile)(CAST, ['run', first.hash, '--rpc-url', urls.svc], { timeout: 60_000 });
  const gasUsed = (await new JsonRpcProvider(urls.svc, undefined, { staticNetwork: true }).getTransactionReceipt(first.hash))!.gasUsed;
  t.match(stdout, /Transaction successfully executed/, 'cast run replays the transaction');
  t.match(stdout, new RegExp(`Gas used: ${gasUsed}`), 'with the gas the receipt shows');
});
