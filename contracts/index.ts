// contracts/: the Solidity sources svc deploys on other chains (the bridge, and a test USDC for
// local chains), compiled from source with the solc npm package pinned by the lockfile: the same
// compiler and settings give the same bytecode on every machine, so nothing generated is checked in.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

interface Solc {
  compile(input: string): string;
  version(): string;
}

export interface CompiledContract {
  readonly abi: readonly unknown[];
  /** Creation bytecode, 0x-prefixed. */
  readonly bytecode: string;
}

export interface CompiledContracts {
  readonly SvcBridge: CompiledContract;
  readonly TestUSDC: CompiledContract;
  /** The compiler that produced them, e.g. "0.8.37+commit.….Emscripten.clang". */
  readonly compiler: string;
}

/**
 * The settings every build uses. `cancun` runs on every chain the bridge serves (Ethereum,
 * Arbitrum, Base, Optimism) and on anvil.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

const SOURCES = ['Bridge.sol', 'TestUSDC.sol'] as const;

export function contractSource(file: (typeof SOURCES)[number]): string {
  return readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8');
}

let compiled: CompiledContracts | null = null;

/** Compiles the sources once per process (about a second with the wasm compiler). */
export function compileContracts(): CompiledContracts {
  if (compiled !== null) return compiled;
  const solc = createRequire(import.meta.url)('solc') as Solc;
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(SOURCES.map((f) => [f, { content: contractSource(f) }])),
    settings: SOLC_SETTINGS,
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`contracts do not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const get = (file: string, name: string): CompiledContract => {
    const c = out.contracts[file]?.[name];
    if (c === undefined) throw new Error(`contracts: ${name} missing from the compiler output`);
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  };
  compiled = { SvcBridge: get('Bridge.sol', 'SvcBridge'), TestUSDC: get('TestUSDC.sol', 'TestUSDC'), compiler: solc.version() };
  return compiled;
}
