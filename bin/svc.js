#!/usr/bin/env -S node --max-semi-space-size=32
// The flag: a 32 MB semi-space (V8's default is 16). A node promotes about 1.6 MB a young
// collection with the default, and the larger young generation costs about 9% less CPU an
// action at saturation (docs/performance.md). Only the node command line can set it, so the
// npm scripts and the benches' spawns pass it too.
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
