// Preloaded into every test process (tap's node-arg). tsx's loader is registered only when the
// process runs a TypeScript file: `npx tap test/x.test.ts` runs the sources through tsx as it
// always did, while the suite (`npm test`, test/support/run-suite.mjs) runs each test file from
// its esbuild bundle, which needs no loader and starts in about half the CPU.
if (/\.[cm]?ts$/.test(process.argv[1] ?? '')) await import('tsx');
