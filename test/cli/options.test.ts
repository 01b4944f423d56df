// `svc devnet` flags: rate limits (the devnet preset by default, the spec's on request, scopes over it) and the block interval.
import t from 'tap';
import { UsageError, parseDevnetOptions } from '../../cli/index.ts';
import { DEVNET_RATE_LIMITS, SPEC_RATE_LIMITS } from '../../rpc/index.ts';

const parse = (...argv: string[]) => {
  const o = parseDevnetOptions(argv, { SVC_HOME: '/tmp/svc-home' });
  if (o === 'help') throw new Error('help');
  return o.rateLimits;
};

t.test('presets and scopes', async (t) => {
  t.same(parse(), DEVNET_RATE_LIMITS, 'svc devnet: request limits off');
  t.same(parse('--rate-limits', 'spec'), SPEC_RATE_LIMITS);
  const c = parse('--rate-limits', 'spec', '--rate-limit', 'info=2400/600', '--rate-limit', 'ws-connections-per-ip=5');
  t.same(c.info, { perMinute: 2400, burst: 600 });
  t.equal(c.wsConnectionsPerIp, 5);
  t.same(parse('--rate-limit', 'exchange-signer=60').exchangeSigner, { perMinute: 60, burst: 60 }, 'over the devnet preset');
});

t.test('bad values are usage errors naming the flag', async (t) => {
  t.throws(() => parse('--rate-limits', 'fast'), UsageError);
  t.throws(() => parse('--rate-limit', 'info'), { name: 'UsageError', message: /--rate-limit must be <scope>=<value>/ });
  t.throws(() => parse('--rate-limit', 'infos=10'), { name: 'UsageError', message: /unknown rate-limit scope "infos"/ });
  t.throws(() => parse('--rate-limit', 'info=ten'), { name: 'UsageError', message: /rate limit info must be/ });
});

t.test('--min-block-interval', async (t) => {
  const opts = (...argv: string[]) => {
    const o = parseDevnetOptions(argv, { SVC_HOME: '/tmp/svc-home' });
    if (o === 'help') throw new Error('help');
    return o;
  };
  t.equal(opts().minBlockIntervalMs, null, "the node's default unless given");
  t.equal(opts('--min-block-interval', '0').minBlockIntervalMs, 0, '0: blocks back to back');
  t.equal(opts('--min-block-interval', '20').minBlockIntervalMs, 20);
  t.throws(() => opts('--min-block-interval', '8ms'), { name: 'UsageError', message: /--min-block-interval must be/ });
  t.throws(() => opts('--min-block-interval', '1001'), { name: 'UsageError', message: /from 0 to 1000/ });
});
