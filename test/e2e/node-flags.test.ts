// The V8 flags `svc` runs with are given in three places that must agree: bin/svc.js's #! line
// (an installed `svc`, `./bin/svc.js`), the npm scripts (`npm start`, `npm run svc`) and the
// benches' spawns (which measure the node as it runs). And the #! line must start a working node.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { SVC_NODE_FLAGS } from '../../bench/processes.ts';

const root = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

t.test('the #! line, the npm scripts and the benches pass the same flags', async (t) => {
  const flags = SVC_NODE_FLAGS.join(' ');
  const first = (await readFile(root('bin/svc.js'), 'utf8')).split('\n')[0];
  t.equal(first, `#!/usr/bin/env -S node ${flags}`);
  const scripts = (JSON.parse(await readFile(root('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  t.equal(scripts.start, `node ${flags} bin/svc.js devnet`);
  t.equal(scripts.svc, `node ${flags} bin/svc.js`);
});

t.test('bin/svc.js runs as an executable through its #! line', async (t) => {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(root('bin/svc.js'), ['--help'], (err, stdout) => (err === null ? resolve(stdout) : reject(err)));
  });
  t.match(out, /^Usage: svc <command>/);
});
