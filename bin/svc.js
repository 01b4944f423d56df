#!/usr/bin/env -S node --no-memory-reducer
// Entry point. The command line runs from its cached esbuild bundle when that is current
// (node/thread-bundle.js: about a second less CPU to start), else from the TypeScript sources
// through tsx's loader, building the bundle in the background for the next start. No build step
// is needed either way; SVC_THREAD_BUNDLE=0 always runs the sources.
import { URL } from 'node:url';
import { threadEntry } from '../node/thread-bundle.js';

const source = new URL('../cli/source-entry.js', import.meta.url);
const start = threadEntry('cli', new URL('../cli/index.ts', import.meta.url), source);
let main;
try {
  ({ main } = await import(start.href));
} catch (err) {
  if (start.href === source.href) throw err;
  ({ main } = await import(source.href)); // a bundle that does not load (removed meanwhile)
}
process.exitCode = await main(process.argv.slice(2));
