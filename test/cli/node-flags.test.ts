// The node's V8 flags (bin/node-flags.js) are the ones bin/svc.js's `#!` line and the npm scripts
// run it with, and the `#!` line runs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { NODE_FLAGS } from '../../bin/node-flags.js';

const root = new URL('../../', import.meta.url);

t.test('the #! line and the npm scripts name the node flags', async (t) => {
  const shebang = readFileSync(new URL('bin/svc.js', root), 'utf8').split('\n')[0];
  t.equal(shebang, `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  const scripts = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }).scripts;
  t.equal(scripts.start, `node ${NODE_FLAGS.join(' ')} bin/svc.js devnet`);
  t.equal(scripts.svc, `node ${NODE_FLAGS.join(' ')} bin/svc.js`);
});

t.test('bin/svc.js runs from its #! line (env -S passes the flags)', async (t) => {
  const out = execFileSync(fileURLToPath(new URL('bin/svc.js', root)), ['help'], { encoding: 'utf8' });
  t.match(out, /^Usage: svc <command>/);
});
