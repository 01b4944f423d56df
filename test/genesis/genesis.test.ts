import { HDNodeWallet, Mnemonic } from 'ethers';
import t from 'tap';
import { DEV_ACCOUNTS, DEV_MNEMONIC, GenesisError, devnetGenesis, loadGenesis } from '../../genesis/index.ts';

t.test('the development accounts are the first ten of the well-known mnemonic', async (t) => {
  const m = Mnemonic.fromPhrase(DEV_MNEMONIC);
  DEV_ACCOUNTS.forEach((a, i) => {
    const w = HDNodeWallet.fromMnemonic(m, `m/44'/60'/0'/0/${i}`);
    t.equal(a.address, w.address.toLowerCase(), `account ${i}`);
    t.equal(a.privateKey, w.privateKey);
  });
});

t.test('the devnet genesis: perps, USDC as token 10000, a spot pair, funded accounts', async (t) => {
  const g = loadGenesis(devnetGenesis());
  t.same(g.exchange.perps.map((p) => [p.name, p.szDecimals, p.maxLeverage]), [['BTC', 5, 50], ['ETH', 4, 50], ['SOL', 2, 20]]);
  t.match(g.exchange.spotTokens[0], { name: 'USDC', index: 10000 });
  t.match(g.exchange.spotPairs[0], { base: 10001, quote: 10000, index: 0 });
  t.equal(g.balances.length, 11, 'ten dev accounts and the backstop');
  t.equal(g.balances[0]?.usdc, 1_000_000n * 10n ** 8n);
  t.equal(g.hash, loadGenesis(devnetGenesis()).hash, 'the hash is stable');
  t.equal(g.file.chainId, 42069);
});

t.test('invalid genesis files are refused with a reason', async (t) => {
  const cases: [string, (g: ReturnType<typeof devnetGenesis>) => void, RegExp][] = [
    ['duplicate perp', (g) => g.exchange.perps.push({ ...g.exchange.perps[0]! }), /perp 3: name must be unique/],
    ['szDecimals out of range', (g) => (g.exchange.perps[0]!.szDecimals = 7), /szDecimals must be an integer/],
    ['minSz finer than the lot', (g) => (g.exchange.perps[0]!.minSz = '0.000001'), /minSz must be a positive decimal with at most 5 decimals/],
    ['USDC not first', (g) => g.exchange.spotTokens.reverse(), /first spot token must be USDC/],
    ['pair with unknown token', (g) => (g.exchange.spotPairs[0]!.base = 10009), /both tokens must be registered/],
    ['bad address', (g) => (g.balances[0]!.address = '0x1234'), /20-byte hex address/],
    ['negative balance', (g) => (g.balances[0]!.usdc = '-1'), /non-negative decimal/],
    ['literal binding on mainnet', (g) => (g.network = 'mainnet'), /literalNonceBinding is for local networks only/],
    ['staker tier stake of zero', (g) => (g.api = { stakerTierStake: '0' }), /api.stakerTierStake must be a positive decimal/],
    ['staker tier stake not a decimal', (g) => (g.api = { stakerTierStake: '1e4' }), /api.stakerTierStake must be a positive decimal/],
    ['staker tier stake too fine', (g) => (g.api = { stakerTierStake: '0.000000001' }), /at most 8 decimals/],
  ];
  for (const [name, mutate, want] of cases) {
    const g = devnetGenesis();
    mutate(g);
    t.throws(() => loadGenesis(g), { name: 'GenesisError', message: want }, name);
  }
  t.ok(new GenesisError('x') instanceof Error);
});

t.test('the staker tier of historical reads: api.stakerTierStake, in staking units', async (t) => {
  t.equal(loadGenesis(devnetGenesis()).api.stakerTierStake, 10_000n * 10n ** 8n, 'devnet: 10,000 SVC');
  const { api: _api, ...without } = devnetGenesis();
  t.equal(loadGenesis(without).api.stakerTierStake, 10_000n * 10n ** 8n, 'absent: the default, 10,000 tokens');
  t.equal(loadGenesis({ ...devnetGenesis(), api: { stakerTierStake: '2.5' } }).api.stakerTierStake, 250_000_000n);
});
