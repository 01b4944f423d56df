// Worker threads (and the `svc` process itself, bin/svc.js) start from one esbuild bundle of their
// TypeScript entry instead of through tsx. Plain JavaScript (types in thread-bundle.d.ts): the
// command line checks for its bundle before tsx is loaded.
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
// SVC_THREAD_BUNDLE=0 turns bundles off (tsx everywhere, for stack traces with TypeScript lines).
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const THREAD_BUNDLE_CACHE = join(ROOT, 'node_modules', '.cache', 'svc-threads');

/**
 * A bundle's manifest: `inputs` are [absolute path, sha256 of the text bundled] of every input.
 * @typedef {{ format: number, node: string, esbuild: string, bundle: string, inputs: [string, string][] }} Manifest
 */

/** Bumped when the way bundles are built changes (this file is not an input of every bundle). */
const FORMAT = 2;

/** @param {string | Uint8Array} text */
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/**
 * Files are named for the checkout too: two checkouts may share one node_modules (a symbolic
 * link), and each must run its own sources.
 */
const CHECKOUT = sha256(ROOT).slice(0, 8);
/** @param {string} name */
const stem = (name) => `${name}-${CHECKOUT}`;

/** Builds in flight, by manifest path (one per entry per process). @type {Map<string, Promise<URL | null>>} */
const building = new Map();

/**
 * The module to run for `entry` (a TypeScript module, in a worker or bin/svc.js): its bundle when
 * current, else `fallback` (the entry's tsx wrapper), with the bundle built in the background for
 * next time.
 */
export function threadEntry(name, entry, fallback, cacheDir = THREAD_BUNDLE_CACHE) {
  if (process.env.SVC_THREAD_BUNDLE === '0') return fallback;
  const current = currentBundle(name, cacheDir);
  if (current !== null) return current;
  void buildThreadBundle(name, entry, cacheDir);
  return fallback;
}

/** The bundle of `name` when its manifest holds and every input is unchanged, else null. */
export function currentBundle(name, cacheDir = THREAD_BUNDLE_CACHE) {
  try {
    /** @type {Manifest} */
    const m = JSON.parse(readFileSync(join(cacheDir, `${stem(name)}.json`), 'utf8'));
    if (m.format !== FORMAT || m.node !== process.version) return null;
    for (const [path, hash] of m.inputs) if (sha256(readFileSync(path)) !== hash) return null;
    // The bundle itself must be whole: its name carries the start of its hash.
    if (!m.bundle.endsWith(`-${sha256(readFileSync(m.bundle)).slice(0, 16)}.mjs`)) return null;
    return pathToFileURL(m.bundle);
  } catch {
    return null; // no manifest yet, an input gone, unreadable: not current
  }
}

/** Builds the bundle of `entry` and its manifest; resolves with its URL, or null when esbuild fails. */
export function buildThreadBundle(name, entry, cacheDir = THREAD_BUNDLE_CACHE) {
  const key = join(cacheDir, `${stem(name)}.json`);
  let p = building.get(key);
  if (p === undefined) {
    p = build(name, entry, cacheDir).catch(() => null).finally(() => building.delete(key));
    building.set(key, p);
  }
  return p;
}

/** The text replaced in each module (spelled so that this module's own source is left alone). */
const META_URL = ['import', 'meta', 'url'].join('.');

/** @type {Record<string, 'ts' | 'js' | 'json'>} */
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };

/**
 * Files that shape the build without being modules: esbuild reads the project's tsconfig and
 * package file. Hashed with the inputs. (A symbolic link among the sources that is pointed
 * elsewhere is not detected: esbuild records the file it resolved to. The project has none.)
 */
const SETTINGS = ['tsconfig.json', 'package.json'];

/**
 * The esbuild plugin that reads every source itself: `.ts`, `.js` and `.json` only (any other kind
 * fails the build), each module's `import.meta.url` replaced by its own source file's URL.
 * `read` sees each file's path and text as bundled. Also used by the test suite's runner.
 * @param {(path: string, text: string) => void} [read]
 * @returns {import('esbuild').Plugin}
 */
export function sourcesPlugin(read) {
  return {
    name: 'svc-sources',
    setup(b) {
      b.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        const loader = LOADERS[extname(args.path)];
        // A file this plugin does not read would not be hashed: no bundle then (tsx runs it).
        if (loader === undefined) return { errors: [{ text: `not bundled: ${args.path}` }] };
        const text = readFileSync(args.path, 'utf8');
        read?.(args.path, text);
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: loader === 'json' ? text : text.replaceAll(META_URL, () => url), loader };
      });
    },
  };
}

/** @param {string} name @param {URL} entry @param {string} cacheDir @returns {Promise<URL | null>} */
async function build(name, entry, cacheDir) {
  const esbuild = await import('esbuild');
  /** @type {[string, string][]} */
  const inputs = [];
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
    // A module-level await inside esbuild's lazily initialized modules can deadlock in an import
    // cycle (the process exits with code 13): refuse it, and tsx runs such code instead.
    supported: { 'top-level-await': false },
    // Every source is read by the plugin, so the manifest hashes exactly the text bundled.
    plugins: [sourcesPlugin((path, text) => inputs.push([resolve(path), sha256(text)]))],
  });
  const code = result.outputFiles[0]?.contents;
  if (code === undefined) return null;
  for (const f of SETTINGS) {
    const path = join(ROOT, f);
    inputs.push([path, sha256(readFileSync(path, 'utf8'))]);
  }
  mkdirSync(cacheDir, { recursive: true });
  const bundle = join(cacheDir, `${stem(name)}-${sha256(code).slice(0, 16)}.mjs`);
  writeReplacing(bundle, code);
  /** @type {Manifest} */
  const manifest = { format: FORMAT, node: process.version, esbuild: esbuild.version, bundle, inputs };
  const manifestPath = join(cacheDir, `${stem(name)}.json`);
  // The bundle being replaced may have just been chosen by another process: its hour starts now.
  try {
    const old = /** @type {Manifest} */ (JSON.parse(readFileSync(manifestPath, 'utf8'))).bundle;
    const now = new Date();
    if (old !== bundle) utimesSync(old, now, now);
  } catch {
    // no earlier bundle
  }
  writeReplacing(manifestPath, JSON.stringify(manifest));
  prune(name, bundle, cacheDir);
  return pathToFileURL(bundle);
}

/** Bundles a process may still be about to load are kept this long after they were replaced. */
const KEEP_REPLACED_MS = 60 * 60 * 1000;

/**
 * Removes this entry's bundles other than `keep` not touched for an hour (a replaced bundle is
 * touched when it is replaced), and temporary files left by killed writers.
 * @param {string} name @param {string} keep @param {string} cacheDir
 */
function prune(name, keep, cacheDir) {
  const now = Date.now();
  for (const f of readdirSync(cacheDir)) {
    const path = join(cacheDir, f);
    if (!f.startsWith(`${stem(name)}-`) || !(f.endsWith('.mjs') || f.endsWith('.tmp')) || path === keep) continue;
    try {
      if (now - statSync(path).mtimeMs > KEEP_REPLACED_MS) rmSync(path, { force: true });
    } catch {
      // gone already
    }
  }
}

/**
 * Written whole or not at all (another process may be writing the same file; process ids repeat
 * across containers, so the temporary name is random). Not node/atomic-file.ts: this module is
 * plain JavaScript, and a cache file needs no fsync (a torn bundle fails its hash check).
 * @param {string} path @param {string | Uint8Array} data
 */
function writeReplacing(path, data) {
  const tmp = `${path}.${randomUUID()}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
