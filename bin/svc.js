#!/usr/bin/env node
// Entry point. The command line runs from its cached esbuild bundle when that is current
// (node/thread-bundle.js: about a second less CPU to start), else from the TypeScript sources
// through tsx's loader, building the bundle in the background for the next start. No build step
// is needed either way; SVC_THREAD_BUNDLE=0 always runs the sources.
import { URL } from 'node:url';
import { buildThreadBundle, currentBundle } from '../node/thread-bundle.js';

const entry = new URL('../cli/index.ts', import.meta.url);
const bundle = process.env.SVC_THREAD_BUNDLE === '0' ? null : currentBundle('cli');
let main = null;
if (bundle !== null) {
  try {
    const loaded = await import(bundle.href);
    if (typeof loaded.main === 'function') main = loaded.main;
  } catch {
    // a bundle that does not load (removed meanwhile): the sources run
  }
}
if (main === null) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/index.ts'));
  if (process.env.SVC_THREAD_BUNDLE !== '0') void buildThreadBundle('cli', entry);
}
process.exitCode = await main(process.argv.slice(2));
