// Real answers compiled against @nktkas/hyperliquid's response types with the TypeScript
// compiler, so a shape that drifts from what the SDK declares fails a test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';

/** Compiles `const x: Type = answer;` for every answer in one program; returns the diagnostics. */
export async function typeErrors(answers: [string, unknown][], module: 'info' | 'exchange' = 'info'): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-hl-types-'));
  const spec = `@nktkas/hyperliquid/api/${module}`;
  try {
    const file = join(dir, 'answers.ts');
    const types = [...new Set(answers.map(([type]) => type))];
    const lines = [`import type { ${types.join(', ')} } from '${spec}';`];
    answers.forEach(([type, value], i) => lines.push(`export const a${i}: ${type} = ${JSON.stringify(value)};`));
    await writeFile(file, lines.join('\n'));
    const sdk = createRequire(import.meta.url).resolve(spec).replace(/\.js$/, '.d.ts');
    const program = ts.createProgram([file], {
      strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler, types: [], paths: { [spec]: [sdk] },
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file === undefined || d.start === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line;
      return `${answers[line - 1]?.[0] ?? '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 300)}`;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
