// Operations in one process: the Prometheus exposition, the node's metrics and /status on its
// metrics port, `svc status --node`, leveled and JSON logs, and the operations flags.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { MetricsRegistry } from '../../primitives/index.ts';
import { createLogger, DATA_LOCK_FILE, DataDirLockedError, DataLock } from '../../node/index.ts';
import { opsNodeConfig, runStatus, takeOpsFlags, UsageError } from '../../cli/index.ts';
import { limit, orderAction, startNode, tempDir, wallets } from '../support/node.ts';

t.test('text exposition 0.0.4: counters, gauges, cumulative histogram buckets', async (t) => {
  const r = new MetricsRegistry();
  const c = r.counter('x_total', 'Things.').child({ route: '/a"b' });
  c.inc();
  c.inc(2);
  r.gauge('y', 'A gauge.', () => 1.5);
  const h = r.histogram('z_seconds', 'Times.', [0.1, 1]).child();
  for (const v of [0.05, 0.1, 0.5, 3]) h.observe(v);
  t.equal(r.expose(), [
    '# HELP x_total Things.', '# TYPE x_total counter', 'x_total{route="/a\\"b"} 3',
    '# HELP y A gauge.', '# TYPE y gauge', 'y 1.5',
    '# HELP z_seconds Times.', '# TYPE z_seconds histogram',
    'z_seconds_bucket{le="0.1"} 2', 'z_seconds_bucket{le="1"} 3', 'z_seconds_bucket{le="+Inf"} 4', 'z_seconds_sum 3.65', 'z_seconds_count 4', '',
  ].join('\n'));
  t.throws(() => r.gauge('y', 'again', () => 0), /registered twice/);
});

t.test('logs: levels filter, JSON is one object per line, info lines stay as they were', async (t) => {
  const lines: string[] = [];
  const plain = createLogger({ level: 'warn', json: false, write: (l) => lines.push(l) });
  plain.info('hidden');
  plain.warn('careful');
  plain.error('broken');
  t.same(lines, ['WARN careful', 'ERROR broken']);
  lines.length = 0;
  const json = createLogger({ level: 'debug', json: true, write: (l) => lines.push(l), now: () => 0 });
  json.info('REST API  http://x');
  json.debug('detail');
  t.same(lines.map((l) => JSON.parse(l)), [
    { time: '1970-01-01T00:00:00.000Z', level: 'info', msg: 'REST API  http://x' },
    { time: '1970-01-01T00:00:00.000Z', level: 'debug', msg: 'detail' },
  ]);
  t.same(takeOpsFlags(['--data-dir', 'd', '--log-level=debug', '--log-json', '--metrics-port', '9464', '--fresh']), {
    rest: ['--data-dir', 'd', '--fresh'], ops: { logLevel: 'debug', logJson: true, metricsPort: 9464 },
  });
  t.throws(() => takeOpsFlags(['--log-level', 'loud']), /error, warn, info or debug/);
});

t.test('a node with a metrics port: /metrics, /status and svc status', async (t) => {
  const { node, client } = await startNode(t, { metricsPort: 0 });
  const base = `http://127.0.0.1:${node.metricsPort}`;
  const [alice] = wallets as [typeof wallets[0]];
  t.equal((await client.info({ type: 'meta' })).status, 200);
  t.equal((await client.raw('/v1/nope')).status, 404);
  const ack = await client.exchange(alice, orderAction(limit(0, false, '150000', '0.01')));
  t.equal(ack.status, 200);

  const res = await fetch(`${base}/metrics`);
  t.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  for (const name of [
    'svc_block_height', 'svc_block_commit_seconds_bucket', 'svc_consensus_round', 'svc_consensus_timeouts_total', 'svc_peers', 'svc_mempool_size',
    'svc_http_requests_total', 'svc_http_request_duration_seconds_bucket', 'svc_ws_connections', 'svc_eventloop_lag_seconds', 'svc_recovery_queue',
    'process_resident_memory_bytes', 'svc_syncing', 'svc_info',
  ]) t.match(text, new RegExp(`^${name}[ {]`, 'm'), `exposes ${name}`);
  t.match(text, /^svc_http_requests_total\{route="\/info",code="200"\} 1$/m, '/info counted once, by route and code');
  t.match(text, /^svc_http_requests_total\{route="\/exchange",code="200"\} 1$/m);
  t.match(text, /^svc_http_request_duration_seconds_count\{route="\/info"\} 1$/m);
  const height = Number(/^svc_block_height (\d+)$/m.exec(text)?.[1]);
  t.ok(height >= 1, `height ${height}`);
  t.match(text, /^svc_block_commit_seconds_count [1-9]\d*$/m, 'commit latency of the blocks since start');
  // Every sample line is `name{labels} value` or `name value` (format 0.0.4).
  const sample = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\})? [-+0-9.eEInfNa]+$/;
  t.same(text.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !sample.test(l)), [], 'every sample line is well formed');

  // The Grafana dashboard queries only series the node exports.
  const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
  const used = new Set([...dashboard.matchAll(/\b((?:svc|process)_[a-z_]+?)(?:_bucket|_count|_sum)?\b/g)].map((m) => m[1] as string));
  t.same([...used].filter((name) => !new RegExp(`^${name}(_bucket|_count|_sum)?[ {]`, 'm').test(text)), [], `the dashboard's ${used.size} metrics are all exported`);

  const status = (await (await fetch(`${base}/status`)).json()) as { height: number };
  t.match(status, { chainId: node.genesis.file.chainId, validator: true, peers: 0, syncing: false, validatorKey: node.validatorKey.publicKey });
  t.ok(status.height >= height);

  const home = await tempDir();
  t.teardown(() => rm(home, { recursive: true, force: true }));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ metricsPort: node.metricsPort }));
  const fromHome: string[] = [];
  t.equal(await runStatus(['--home', home, '--json'], (l) => fromHome.push(l)), 0, 'svc status --home reads the metrics port from config.json');
  t.match(JSON.parse(fromHome[0] as string), { chainId: node.genesis.file.chainId, validator: true });

  const out: string[] = [];
  t.equal(await runStatus(['--node', base], (l) => out.push(l)), 0);
  t.match(out.join('\n'), /^height\s+\d+ \(block time .*\)\nsync\s+caught up\npeers\s+0\nvalidator\s+yes, key [0-9a-f]+\nchain\s+\d+ \(local, genesis 0x[0-9a-f]+\)/);
  t.match(out.join('\n'), /versions\s+svc \d+\.\d+\.\d+, node v\d+/);
});

t.test('data lock: one holder; a dead or half-written holder is taken over', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const lock = DataLock.acquire(dir);
  t.equal(readFileSync(join(dir, DATA_LOCK_FILE), 'utf8'), `${process.pid}\n`);
  t.throws(() => DataLock.acquire(dir), new DataDirLockedError(dir, process.pid), 'refused while held, naming the directory and the pid');
  lock.release();
  t.notOk(existsSync(join(dir, DATA_LOCK_FILE)));
  writeFileSync(join(dir, DATA_LOCK_FILE), '');
  DataLock.acquire(dir).release();
  t.pass('an empty lock file (crash between create and write) is taken over');
});

t.test('TLS settings from config.json: paths relative to the home, both or neither', async (t) => {
  const home = await tempDir();
  t.teardown(() => rm(home, { recursive: true, force: true }));
  writeFileSync(join(home, 'c.pem'), 'CERT');
  writeFileSync(join(home, 'k.pem'), 'KEY');
  const logger = createLogger({ level: 'info', json: false, write: () => {} });
  const cfg = await opsNodeConfig({}, logger, { tls: { cert: 'c.pem', key: 'k.pem' }, metricsPort: 26660 }, home);
  t.equal(String(cfg.tls?.cert), 'CERT');
  t.equal(String(cfg.tls?.key), 'KEY');
  t.equal(cfg.metricsPort, 26660);
  t.equal((await opsNodeConfig({ metricsPort: 'off' }, logger, { metricsPort: 26660 }, home)).metricsPort, null, '--metrics-port off wins over the file');
  await t.rejects(opsNodeConfig({ tlsCert: join(home, 'c.pem') }, logger, {}, home), UsageError, 'a certificate without a key is refused');
  await t.rejects(opsNodeConfig({}, logger, { tls: { cert: 'missing.pem', key: 'k.pem' } }, home), /cannot read the TLS certificate .*missing\.pem/);
});
