// Runs `svc devnet` as a real child process and waits (bounded) for it to print its REST URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../bin/node-flags.js';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

export interface DevnetProcess {
  readonly proc: ChildProcess;
  readonly url: string;
  output(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `execArgv`: Node flags for the child (a benchmark may profile it). */
export function spawnDevnet(args: string[], timeoutMs = 30_000, execArgv: string[] = []): Promise<DevnetProcess> {
  const proc = spawn(process.execPath, [...NODE_FLAGS, ...execArgv, BIN, 'devnet', '--rest-port', '0', '--ws-port', '0', '--rpc-port', '0', '--oracle-interval', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`devnet did not print its REST URL within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /REST API\s+(https?:\/\/\S+)/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      resolve({
        proc,
        url: m[1] as string,
        output: () => out,
        stop: (signal = 'SIGINT') => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
          return exited;
        },
      });
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`devnet exited with ${code} before serving:\n${out}`));
    });
  });
}
