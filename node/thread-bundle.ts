// Worker threads start from one esbuild bundle of their TypeScript entry instead of through tsx.
// A worker with tsx registers its loader and resolves and loads every module through that
// loader's thread: about 0.75 s of CPU per signer worker on the 2-core machine, against 0.3 s for
// the bundle (measured in session 15), and a node starts two or three workers.
//
// The bundle lives in node_modules/.cache/svc-threads (packages stay external, so they resolve
// from there as from the sources). A manifest lists every file the bundle was built from with the
// hash of the text that went in; the bundle is used only while every one of them still hashes the
// same, so an edited source is never run stale. When it is not current, the worker starts from its
// tsx entry as before and the bundle is built in the background for the next start. Each module's
// `import.meta.url` is replaced by its own source file's URL, so paths relative to a module (the
// package file, migrations, native modules through createRequire) resolve as from the sources.
// SVC_THREAD_BUNDLE=0 turns bundles off (tsx for every worker, for debugging with source maps).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const THREAD_BUNDLE_CACHE = join(ROOT, 'node_modules', '.cache', 'svc-threads');

interface Manifest {
  readonly node: string;
  readonly bundle: string;
  /** [absolute path, sha256 of the text bundled] of every input. */
  readonly inputs: readonly (readonly [string, string])[];
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');

/** Builds in flight, by manifest path (one per entry per process). */
const building = new Map<string, Promise<URL | null>>();

/**
 * The module a worker should run for `entry` (a TypeScript module): its bundle when current, else
 * `fallback` (the entry's tsx wrapper), with the bundle built in the background for next time.
 */
export function threadEntry(name: string, entry: URL, fallback: URL, cacheDir = THREAD_BUNDLE_CACHE): URL {
  if (process.env.SVC_THREAD_BUNDLE === '0') return fallback;
  const current = currentBundle(name, cacheDir);
  if (current !== null) return current;
  void buildThreadBundle(name, entry, cacheDir);
  return fallback;
}

/** The bundle of `name` when its manifest holds and every input is unchanged, else null. */
export function currentBundle(name: string, cacheDir = THREAD_BUNDLE_CACHE): URL | null {
  try {
    const m = JSON.parse(readFileSync(join(cacheDir, `${name}.json`), 'utf8')) as Manifest;
    if (m.node !== process.version) return null;
    for (const [path, hash] of m.inputs) if (sha256(readFileSync(path)) !== hash) return null;
    statSync(m.bundle);
    return pathToFileURL(m.bundle);
  } catch {
    return null; // no manifest yet, an input gone, unreadable: not current
  }
}

/** Builds the bundle of `entry` and its manifest; resolves with its URL, or null when esbuild fails. */
export function buildThreadBundle(name: string, entry: URL, cacheDir = THREAD_BUNDLE_CACHE): Promise<URL | null> {
  const key = join(cacheDir, `${name}.json`);
  let p = building.get(key);
  if (p === undefined) {
    p = build(name, entry, cacheDir).catch(() => null).finally(() => building.delete(key));
    building.set(key, p);
  }
  return p;
}

/** The text replaced in each module (spelled so that this module's own source is left alone). */
const META_URL = ['import', 'meta', 'url'].join('.');

const LOADERS: Record<string, 'ts' | 'js' | 'json'> = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };

async function build(name: string, entry: URL, cacheDir: string): Promise<URL | null> {
  const esbuild = await import('esbuild');
  const inputs: [string, string][] = [];
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
    absWorkingDir: ROOT,
    plugins: [{
      name: 'svc-sources',
      setup(b) {
        // Every source is read here, so the manifest hashes exactly the text bundled.
        b.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
          const loader = LOADERS[extname(args.path)];
          if (loader === undefined) return undefined;
          const text = readFileSync(args.path, 'utf8');
          inputs.push([resolve(args.path), sha256(text)]);
          const url = JSON.stringify(pathToFileURL(args.path).href);
          return { contents: loader === 'json' ? text : text.replaceAll(META_URL, url), loader };
        });
      },
    }],
  });
  const code = result.outputFiles[0]?.contents;
  if (code === undefined) return null;
  mkdirSync(cacheDir, { recursive: true });
  const bundle = join(cacheDir, `${name}-${sha256(code).slice(0, 16)}.mjs`);
  writeReplacing(bundle, code);
  const manifest: Manifest = { node: process.version, bundle, inputs };
  writeReplacing(join(cacheDir, `${name}.json`), JSON.stringify(manifest));
  prune(name, bundle, cacheDir);
  return pathToFileURL(bundle);
}

/** Bundles a process may still be about to load are kept this long after they were replaced. */
const KEEP_REPLACED_MS = 60 * 60 * 1000;

/** Removes this entry's bundles other than `keep` that are older than an hour. */
function prune(name: string, keep: string, cacheDir: string): void {
  const now = Date.now();
  for (const f of readdirSync(cacheDir)) {
    const path = join(cacheDir, f);
    if (!f.startsWith(`${name}-`) || !f.endsWith('.mjs') || path === keep) continue;
    try {
      if (now - statSync(path).mtimeMs > KEEP_REPLACED_MS) rmSync(path, { force: true });
    } catch {
      // gone already
    }
  }
}

/** Written whole or not at all (another process may be writing the same file). */
let writes = 0;

function writeReplacing(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.${++writes}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
