// The suite's runner (`npm test`): bundles every test file with esbuild, then runs tap on the
// bundles. Plain JavaScript, so that it starts without tsx.
//
// Why: through tsx's loader a test process resolves and transforms each of its few hundred modules
// on the loader's thread, about 2.5 s of CPU before the first test of an e2e file, against about
// 1 s for the same file bundled (measured session 17). Over ~100 files that is minutes of the
// suite's wall time on two cores.
//
// One build with code splitting (shared modules go to common chunks), packages external so they
// resolve from node_modules as from the sources, and each module's `import.meta.url` replaced by
// its own source file's URL, so paths relative to a module (fixtures, worker entries, the package
// file) resolve as from the sources. Linked source maps (tap's node-arg has --enable-source-maps)
// give stack traces and tap's failure excerpts the TypeScript file and line. The bundles are
// rebuilt on every run (under a second), so they are never stale.
//
// A test file esbuild cannot bundle runs from its source through tsx (test/support/load-ts.mjs).
// Arguments: test files (.ts) to run instead of all of them; anything else goes to tap.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourcesPlugin } from '../../node/thread-bundle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(ROOT, '.tap', 'bundles');

const args = process.argv.slice(2);
const named = args.filter((a) => a.endsWith('.ts'));
const rest = args.filter((a) => !a.endsWith('.ts'));
const entries = (named.length > 0 ? named : allTests()).map((f) => relative(ROOT, resolve(f)));
const missing = entries.filter((f) => !existsSync(join(ROOT, f)));
if (missing.length > 0) {
  console.error(`no such test file: ${missing.join(', ')}`);
  process.exit(1);
}

/** Tap's include (package.json): test/**\/*.test.ts. */
function allTests() {
  return readdirSync(join(ROOT, 'test'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join('test', f))
    .sort();
}

/**
 * @param {string[]} bundled
 * @returns {Promise<string[] | null>} null when built, else the entries esbuild failed on (none
 *   when the failure is in a shared module)
 */
async function build(bundled) {
  const esbuild = await import('esbuild');
  rmSync(OUT, { recursive: true, force: true });
  try {
    await esbuild.build({
      entryPoints: bundled,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      outdir: OUT,
      outbase: ROOT,
      outExtension: { '.js': '.mjs' },
      absWorkingDir: ROOT,
      logLevel: 'silent',
      plugins: [sourcesPlugin()],
    });
    return null;
  } catch (e) {
    const files = new Set((/** @type {{ errors?: { location?: { file: string } | null }[] }} */ (e).errors ?? []).map((x) => x.location?.file ?? ''));
    return bundled.filter((f) => files.has(f));
  }
}

let bundled = entries;
/** @type {string[]} */
let unbundled = [];
for (;;) {
  const failed = await build(bundled);
  if (failed === null) break;
  // A failing test file runs from its source; a failing shared module (or an error without a
  // file) leaves every test on its source: slower, never wrong.
  const bad = failed.length > 0 ? failed : bundled;
  unbundled = unbundled.concat(bad);
  bundled = bundled.filter((f) => !bad.includes(f));
  if (bundled.length === 0) break;
}
if (unbundled.length > 0) console.error(`# not bundled, run through tsx: ${unbundled.join(', ')}`);

const files = [...bundled.map((f) => join(relative(ROOT, OUT), f.replace(/\.ts$/, '.mjs'))), ...unbundled];
const preload = join(ROOT, 'test', 'support', 'tap-without-processinfo.mjs');
const tap = spawn(process.execPath, [`--import=${pathToFileURL(preload).href}`, join(ROOT, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), ...rest, ...files], { cwd: ROOT, stdio: 'inherit' });
for (const s of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(s, () => tap.kill(s));
tap.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 128);
});
