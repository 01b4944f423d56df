// A real external EVM chain for bridge tests: anvil from npm (@foundry-rs/anvil-linux-amd64) on
// an ephemeral loopback port, funding the development mnemonic's accounts (anvil's default).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Contract, type Wallet } from 'ethers';
import { freePort, until } from './network.ts';

const BIN = fileURLToPath(new URL('../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url));

export interface Anvil {
  readonly url: string;
  readonly chainId: number;
  rpc<T>(method: string, params: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

export async function startAnvil(t: { teardown(fn: () => unknown): void }, chainId = 31337, extraArgs: readonly string[] = []): Promise<Anvil> {
  const port = await freePort();
  const proc: ChildProcess = spawn(BIN, ['--port', String(port), '--chain-id', String(chainId), '--silent', ...extraArgs], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  };
  t.teardown(stop);
  await until('anvil to answer', () => rpc('eth_chainId', []).then(() => true, () => false), 20_000);
  return { url, chainId, rpc, stop };
}

/**
 * Approves `bridge` for `amount` of `token` and deposits it for svc address `user` (the sender by
 * default), with nonces read from the chain (ethers' own pending count can lag between calls).
 */
export async function depositOnChain(anvil: Anvil, w: Wallet, token: string, bridge: string, amount: bigint, user: string = w.address): Promise<void> {
  const nonce = Number(await anvil.rpc<string>('eth_getTransactionCount', [w.address, 'pending']));
  await (await new Contract(token, ['function approve(address,uint256) returns (bool)'], w).getFunction('approve')(bridge, amount, { nonce })).wait();
  await (await new Contract(bridge, ['function deposit(uint256,address)'], w).getFunction('deposit')(amount, user, { nonce: nonce + 1 })).wait();
}
