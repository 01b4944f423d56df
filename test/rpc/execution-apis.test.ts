// Replays the chain-independent fixtures of ethereum/execution-apis (test/fixtures/execution-apis)
// against a fresh devnet node, as hive's rpc-compat compares them: the `>>` request is POSTed,
// the answer must equal the `<<` line, except that `error.message` is not compared when both
// carry an error; `speconly` fixtures are not compared exactly.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startNode } from '../support/node.ts';

const ROOT = fileURLToPath(new URL('../fixtures/execution-apis/', import.meta.url));

interface Fixture {
  readonly name: string;
  readonly request: string;
  readonly response: Record<string, unknown>;
  readonly speconly: boolean;
}

async function fixtures(): Promise<Fixture[]> {
  const out: Fixture[] = [];
  for (const method of (await readdir(ROOT, { withFileTypes: true })).filter((d) => d.isDirectory())) {
    for (const file of (await readdir(join(ROOT, method.name))).filter((f) => f.endsWith('.io'))) {
      const lines = (await readFile(join(ROOT, method.name, file), 'utf8')).split('\n');
      const request = lines.find((l) => l.startsWith('>> '))?.slice(3);
      const response = lines.find((l) => l.startsWith('<< '))?.slice(3);
      if (request === undefined || response === undefined) throw new Error(`${method.name}/${file}: no >> / << lines`);
      out.push({ name: `${method.name}/${file}`, request, response: JSON.parse(response), speconly: lines.some((l) => l.startsWith('// speconly')) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function withoutMessage(v: Record<string, unknown>): Record<string, unknown> {
  const error = v.error as Record<string, unknown> | undefined;
  if (error === undefined) return v;
  const { message: _message, ...rest } = error;
  return { ...v, error: rest };
}

t.test('execution-apis fixtures', async (t) => {
  const all = await fixtures();
  t.ok(all.length >= 15, `${all.length} fixtures`);
  const { node } = await startNode(t);
  for (const f of all) {
    const res = await fetch(node.rpcUrl as string, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: f.request });
    const got = (await res.json()) as Record<string, unknown>;
    if (f.speconly) {
      t.ok('result' in got, `${f.name} (speconly): answers with a result`);
      continue;
    }
    const both = got.error !== undefined && f.response.error !== undefined;
    t.same(both ? withoutMessage(got) : got, both ? withoutMessage(f.response) : f.response, f.name);
  }
});
