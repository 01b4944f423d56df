// In-process BFT networks on loopback for tests: validator keys and node keys written to one
// home per node under a temporary root, libp2p ports and peer lists, and each node's config.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateValidatorKey, peerIdOfSeed, type ValidatorKey } from '../../consensus/index.ts';
import type { GenesisFile } from '../../genesis/index.ts';
import { DEFAULT_NODE_CONFIG, type NodeConfig } from '../../node/index.ts';
import { DEVNET_RATE_LIMITS } from '../../rpc/index.ts';
import { portIsFree } from '../../bench/processes.ts';
import { tempDir } from './node.ts';

export async function freePort(): Promise<number> {
  // Below the kernel's ephemeral range (32768 and up on Linux): a node restarted on its port must
  // find it free, and any outgoing connection of a test running alongside could take a port from
  // that range between the check and the listen.
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await portIsFree(port)) return port;
    if (attempt >= 100) throw new Error('no free port found below the ephemeral range');
  }
}

/** Waits for a value (anything but undefined, null or false), polling every 25 ms, for at most `timeoutMs`. */
export async function waitFor<T>(what: string, pick: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await pick();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits for a condition, polling every 25 ms, for at most `timeoutMs`. */
export async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface LoopbackNetwork {
  readonly keys: readonly ValidatorKey[];
  /** Node i's config: fast test timeouts, REST on an ephemeral port, no WebSocket or JSON-RPC. */
  config(i: number): NodeConfig;
}

/**
 * `n` homes (every node dials every other); `genesis` gets the nodes' keys, `overrides` are
 * merged into every node's config.
 */
export async function loopbackNetwork(
  t: { teardown(fn: () => unknown): void },
  n: number,
  genesis: (keys: readonly ValidatorKey[]) => GenesisFile,
  overrides: Partial<NodeConfig> = {},
): Promise<LoopbackNetwork> {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const keys = Array.from({ length: n }, () => generateValidatorKey());
  const seeds = Array.from({ length: n }, () => randomBytes(32));
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const peers = await Promise.all(seeds.map(async (s, i) => `/ip4/127.0.0.1/tcp/${ports[i]}/p2p/${await peerIdOfSeed(s)}`));
  const dirs = keys.map((_, i) => join(root, `node${i}`));
  for (let i = 0; i < n; i++) {
    await mkdir(dirs[i]!, { recursive: true });
    await writeFile(join(dirs[i]!, 'validator_key.pem'), keys[i]!.exportPem());
    await writeFile(join(dirs[i]!, 'node_key.hex'), seeds[i]!.toString('hex'));
  }
  const g = genesis(keys);
  return {
    keys,
    config: (i) => ({
      ...DEFAULT_NODE_CONFIG, genesis: g, dataDir: dirs[i]!, restPort: 0, wsPort: null, rpcPort: null, log: () => {}, oracleIntervalMs: 0, signerWorkers: 0,
      emptyBlockIntervalMs: 200,
      rateLimits: DEVNET_RATE_LIMITS, // tests poll /info every 25 ms
      timeouts: { proposeMs: 1000, proposeDeltaMs: 200, prevoteMs: 200, prevoteDeltaMs: 200, precommitMs: 200, precommitDeltaMs: 200 },
      p2p: { listen: `/ip4/127.0.0.1/tcp/${ports[i]}`, peers: peers.filter((_, j) => j !== i) },
      ...overrides,
    }),
  };
}
