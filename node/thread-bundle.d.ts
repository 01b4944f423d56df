// Types of thread-bundle.js (plain JavaScript: bin/svc.js loads it before tsx).
import type { Plugin } from 'esbuild';

/** Where bundles and their manifests are kept (inside node_modules, so packages resolve). */
export const THREAD_BUNDLE_CACHE: string;

/**
 * The module to run for `entry` (a TypeScript module): its bundle when current, else `fallback`
 * (the entry's tsx wrapper), with the bundle built in the background for next time.
 */
export function threadEntry(name: string, entry: URL, fallback: URL, cacheDir?: string): URL;

/** The bundle of `name` when its manifest holds and every input is unchanged, else null. */
export function currentBundle(name: string, cacheDir?: string): URL | null;

/** Builds the bundle of `entry` and its manifest; resolves with its URL, or null when esbuild fails. */
export function buildThreadBundle(name: string, entry: URL, cacheDir?: string): Promise<URL | null>;

/**
 * The esbuild plugin that reads every source itself (`.ts`, `.js`, `.json`), each module's
 * `import.meta.url` replaced by its own source file's URL; `read` sees each file as bundled.
 */
export function sourcesPlugin(read?: (path: string, text: string) => void): Plugin;
