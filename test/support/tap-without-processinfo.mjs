// Preloaded into tap's runner by test/support/run-suite.mjs. tap starts every test process with
// @tapjs/processinfo (an --import, and the same in NODE_OPTIONS for the processes those start):
// it records each module loaded, for coverage. This suite collects no coverage, and on the 2-core
// machine processinfo's module hooks cost 1.5 to 3 s of CPU per test process that starts a node
// (session 17: websocket.test 5.2 to 5.5 s of CPU without it, 7.2 to 9.1 s with it). So the
// runner's child_process.spawn, through which tap starts test files, leaves it out.
// If tap stops spawning through child_process.spawn, this does nothing and the suite is slower,
// not different.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const PROCESSINFO = /^--(import|loader)=\S*@tapjs[\\/]processinfo\S*$/;
const spawn = childProcess.spawn;

/** @param {string} options NODE_OPTIONS */
function withoutProcessinfo(options) {
  return options.split(/\s+/).filter((o) => !PROCESSINFO.test(o.replace(/^"|"$/g, ''))).join(' ');
}

/** @type {typeof spawn} */
const filtered = /** @type {never} */ ((/** @type {string} */ cmd, /** @type {unknown} */ args, /** @type {unknown} */ opts) => {
  if (!Array.isArray(args)) return spawn(cmd, /** @type {never} */ (args), /** @type {never} */ (opts));
  const o = /** @type {{ env?: Record<string, string | undefined> } | undefined} */ (opts);
  const env = o?.env === undefined ? undefined : { ...o.env };
  if (env?.NODE_OPTIONS !== undefined) env.NODE_OPTIONS = withoutProcessinfo(env.NODE_OPTIONS);
  return spawn(cmd, args.filter((a) => !PROCESSINFO.test(String(a))), /** @type {never} */ (env === undefined ? o : { ...o, env }));
});
childProcess.spawn = filtered;
syncBuiltinESMExports();
