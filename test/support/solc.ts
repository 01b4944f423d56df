// Compiles Solidity in the test with the solc npm package (the wasm build: no download).
import { createRequire } from 'node:module';

interface Solc {
  compile(input: string): string;
}

const solc = createRequire(import.meta.url)('solc') as Solc;

export interface Compiled {
  readonly abi: unknown[];
  readonly bytecode: string;
}

/** Compiles one source; returns each contract's ABI and creation bytecode, or throws the errors. */
export function compile(source: string): Record<string, Compiled> {
  const input = {
    language: 'Solidity',
    sources: { 'main.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'prague', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const result: Record<string, Compiled> = {};
  for (const [name, c] of Object.entries(out.contracts['main.sol'] ?? {})) result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return result;
}
