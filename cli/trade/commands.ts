// The client commands of `svc`: keys, reads (balance, positions, orders, book), signed actions
// (order, cancel, transfer, withdraw, leverage, agent, deploy) and `tail`, on top of client/.
import { Wallet } from 'ethers';
import { addDecimal, compareDecimal, toUnits, type OrderStatus, type Tif, SPOT_ASSET_OFFSET } from '../../client/index.ts';
import { UsageError } from '../options.ts';
import { COMMON_HELP, Context, parse, str } from './context.ts';
import type { Io } from './io.ts';
import { checkName, listKeys, saveKey, walletFrom } from './keystore.ts';
import { isoTime, pairs, table } from './table.ts';

interface Command {
  readonly usage: string;
  readonly options?: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  run(ctx: Context, args: string[]): Promise<number | void>;
}

const DECIMAL_RE = /^\d+(\.\d+)?$/;

function decimalArg(v: string | undefined, what: string): string {
  if (v === undefined || !DECIMAL_RE.test(v)) throw new UsageError(`${what} must be a positive decimal such as 0.5, got "${v ?? ''}"`);
  return v;
}

function intArg(v: string | undefined, what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`${what} must be a whole number from ${min} to ${max}, got "${v ?? ''}"`);
  return Number(v);
}

function addressArg(v: string | undefined, what: string): string {
  if (v === undefined || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new UsageError(`${what} must be an address (0x and 40 hex digits), got "${v ?? ''}"`);
  return v.toLowerCase();
}

function statusLine(s: OrderStatus): string {
  if ('resting' in s) return `resting  oid ${s.resting.oid}`;
  if ('filled' in s) return `filled   ${s.filled.totalSz} at ${s.filled.avgPx}  oid ${s.filled.oid}`;
  return `error    ${s.error}`;
}

export const COMMANDS: Record<string, Command> = {
  keys: {
    usage: `svc keys new [--name <name>] [--insecure]
svc keys import [--name <name>] (--mnemonic <words|-> [--index <n>] | --private-key <hex|->) [--insecure]
svc keys list
svc keys --home <dir> [--operator <address>]   (a node home's validator key; see "svc keys --home x --help")

Trading keys live in $SVC_HOME/keys (default ~/.svc/keys), one Ethereum V3 keystore file per key
(scrypt and AES-128-CTR, as geth and Foundry write them), encrypted with a passphrase taken from
--passphrase-file, $SVC_PASSPHRASE or asked on the terminal. --insecure stores the private key
in clear text (file mode 0600): only for throw-away devnet keys. "-" reads a secret from stdin.
Commands sign with --key <name> (default "default").`,
    options: { name: { type: 'string' }, mnemonic: { type: 'string' }, index: { type: 'string' }, insecure: { type: 'boolean' } },
    async run(ctx, args) {
      const [sub] = args;
      const v = ctx.values;
      if (sub === 'list') {
        const keys = await listKeys(ctx.keysDir);
        ctx.print(keys, () => keys.length === 0
          ? [`no keys in ${ctx.keysDir} (svc keys new)`]
          : table(['NAME', 'ADDRESS', 'STORED'], keys.map((k) => [k.name, k.address, k.encrypted ? 'encrypted' : 'CLEAR TEXT (insecure)'])));
        return;
      }
      if (sub !== 'new' && sub !== 'import') throw new UsageError(sub === undefined ? 'keys takes new, import or list (svc keys --help; a node home\'s validator key: svc keys --home <dir>)' : `keys takes new, import or list, got "${sub}"`);
      const name = checkName(str(v.name) ?? 'default');
      let wallet;
      let mnemonic: string | null = null;
      if (sub === 'new') {
        const w = Wallet.createRandom();
        wallet = w;
        mnemonic = w.mnemonic?.phrase ?? null;
      } else {
        const read = async (x: string | undefined) => (x === '-' ? (await ctx.io.stdin()).trim() : x);
        const m = await read(str(v.mnemonic));
        const pk = await read(str(v['private-key']));
        if ((m === undefined) === (pk === undefined)) throw new UsageError('keys import takes one of --mnemonic or --private-key');
        wallet = walletFrom({ mnemonic: m, privateKey: pk, index: v.index === undefined ? 0 : intArg(str(v.index), '--index', 0, 2 ** 31 - 1) });
      }
      const insecure = v.insecure === true;
      const pass = insecure ? null : await ctx.passphrase(`Passphrase to encrypt key "${name}": `);
      if (pass === '') throw new UsageError('an empty passphrase encrypts nothing: give one, or --insecure to store the key in clear text');
      const stored = await saveKey(ctx.keysDir, name, wallet, pass);
      if (insecure) ctx.io.err(`WARNING: key "${name}" is stored UNENCRYPTED in ${stored.file}; anyone who can read that file can spend from ${stored.address}. Use it for devnet keys only.`);
      ctx.print({ ...stored, mnemonic }, () => [
        ...pairs([['name', stored.name], ['address', stored.address], ['file', stored.file], ['stored', stored.encrypted ? 'encrypted' : 'clear text']]),
        ...(mnemonic === null ? [] : ['', 'Recovery phrase (write it down; it is shown once):', `  ${mnemonic}`]),
      ]);
    },
  },

  balance: {
    usage: 'svc balance [<address>]\n\nUSDC margin figures and spot balances of an address (default: the signing key\'s).',
    async run(ctx, args) {
      const user = await ctx.addressOr(args[0]);
      const c = ctx.reader();
      const [perp, spot] = await Promise.all([c.info.clearinghouseState(user), c.info.spotClearinghouseState(user)]);
      ctx.print({ user, clearinghouseState: perp, spotClearinghouseState: spot }, () => [
        ...pairs([
          ['address', user], ['account value', perp.marginSummary.accountValue], ['withdrawable', perp.withdrawable],
          ['margin used', perp.marginSummary.totalMarginUsed], ['position notional', perp.marginSummary.totalNtlPos],
        ]),
        '',
        ...table(['TOKEN', 'TOTAL', 'HELD BY ORDERS', 'AVAILABLE'], spot.balances.map((b) => [b.coin, b.total, b.hold, addDecimal(b.total, `-${b.hold}`)])),
      ]);
    },
  },

  positions: {
    usage: 'svc positions [<address>]\n\nOpen perpetual positions.',
    async run(ctx, args) {
      const user = await ctx.addressOr(args[0]);
      const state = await ctx.reader().info.clearinghouseState(user);
      const ps = state.assetPositions.map((a) => a.position);
      ctx.print(ps, () => ps.length === 0 ? [`no open positions for ${user}`] : table(
        ['COIN', 'SIZE', 'ENTRY', 'VALUE', 'UNREALIZED PNL', 'LEVERAGE', 'MARGIN', 'LIQ. PRICE'],
        ps.map((p) => [p.coin, p.szi, p.entryPx, p.positionValue, p.unrealizedPnl, `${p.leverage.value}x ${p.leverage.type}`, p.marginUsed, p.liquidationPx ?? '-']),
      ));
    },
  },

  orders: {
    usage: 'svc orders [<address>]\n\nOpen orders, newest first.',
    async run(ctx, args) {
      const user = await ctx.addressOr(args[0]);
      const os = await ctx.reader().info.frontendOpenOrders(user);
      ctx.print(os, () => os.length === 0 ? [`no open orders for ${user}`] : table(
        ['OID', 'COIN', 'SIDE', 'PRICE', 'SIZE', 'ORIG. SIZE', 'TYPE', 'REDUCE', 'PLACED'],
        os.map((o) => [o.oid, o.coin, o.side === 'B' ? 'buy' : 'sell', o.isTrigger ? `${o.limitPx} @${o.triggerPx}` : o.limitPx, o.sz, o.origSz, o.tif === null ? o.orderType : `${o.orderType} ${o.tif}`, o.reduceOnly ? 'yes' : '', isoTime(o.timestamp)]),
      ));
    },
  },

  book: {
    usage: 'svc book <COIN> [--depth <n>]\n\nThe order book of a market (BTC, SVC-USDC): asks above, bids below, with cumulative size.',
    options: { depth: { type: 'string' } },
    async run(ctx, args) {
      const coin = args[0];
      if (coin === undefined) throw new UsageError('book needs a market, e.g. svc book BTC');
      const depth = ctx.values.depth === undefined ? 10 : intArg(str(ctx.values.depth), '--depth', 1, 20);
      const book = await ctx.reader().info.l2Book(coin);
      const [bids, asks] = [book.levels[0].slice(0, depth), book.levels[1].slice(0, depth)];
      ctx.print(book, () => {
        const cum = (levels: typeof bids) => {
          let total = '0';
          return levels.map((l) => (total = addDecimal(total, l.sz)));
        };
        const bidCum = cum(bids);
        const askCum = cum(asks);
        const all = [...bidCum, ...askCum];
        const max = all.reduce((m, x) => (compareDecimal(x, m) > 0 ? x : m), '0');
        const scale = (x: string) => toUnits(x, 8);
        const bar = (x: string) => (max === '0' ? '' : '#'.repeat(Math.max(1, Number((scale(x) * 40n) / scale(max)))));
        const rows: (string | number)[][] = [];
        for (let i = asks.length - 1; i >= 0; i--) rows.push(['ask', asks[i]!.px, asks[i]!.sz, askCum[i]!, asks[i]!.n, bar(askCum[i]!)]);
        const spread = bids[0] !== undefined && asks[0] !== undefined ? addDecimal(asks[0].px, `-${bids[0].px}`) : null;
        rows.push(['', '', '', '', '', spread === null ? '' : `spread ${spread}`]);
        bids.forEach((b, i) => rows.push(['bid', b.px, b.sz, bidCum[i]!, b.n, bar(bidCum[i]!)]));
        return [`${book.coin}  ${isoTime(book.time)}`, ...table(['', 'PRICE', 'SIZE', 'TOTAL', 'ORDERS', 'DEPTH'], rows)];
      });
    },
  },

  order: {
    usage: `svc order <buy|sell> <COIN> <SIZE> [<PRICE>] [--tif Gtc|Ioc|Alo] [--reduce-only] [--cloid <hex>] [--slippage <fraction>]

A limit order at PRICE (time in force Gtc unless --tif), or without PRICE a market order: an Ioc
at the mid moved by --slippage (default 0.05, 5%) against you. Spot pairs by name (SVC-USDC).`,
    options: { tif: { type: 'string' }, 'reduce-only': { type: 'boolean' }, cloid: { type: 'string' }, slippage: { type: 'string' } },
    async run(ctx, args) {
      const [side, coin, size, price] = args;
      if (side !== 'buy' && side !== 'sell') throw new UsageError(`order takes buy or sell first, got "${side ?? ''}"`);
      if (coin === undefined) throw new UsageError('order needs a market: svc order buy BTC 0.01 60000');
      const tif = str(ctx.values.tif);
      if (tif !== undefined && !['Gtc', 'Ioc', 'Alo'].includes(tif)) throw new UsageError(`--tif is Gtc, Ioc or Alo, got "${tif}"`);
      const cloid = str(ctx.values.cloid);
      if (cloid !== undefined && !/^0x[0-9a-fA-F]{32}$/.test(cloid)) throw new UsageError('--cloid is 16 bytes of hex (0x and 32 digits)');
      const c = await ctx.signer();
      const status = await c.placeOrder({
        coin, side, size: decimalArg(size, 'SIZE'), price: price === undefined ? undefined : decimalArg(price, 'PRICE'),
        tif: tif as Tif | undefined, reduceOnly: ctx.values['reduce-only'] === true, cloid,
        slippage: ctx.values.slippage === undefined ? undefined : decimalArg(str(ctx.values.slippage), '--slippage'),
      });
      ctx.print(status, () => [statusLine(status)]);
      return 'error' in status ? 1 : 0;
    },
  },

  cancel: {
    usage: 'svc cancel <COIN> <OID>...\n\nCancels open orders by order id.',
    async run(ctx, args) {
      const [coin, ...oids] = args;
      if (coin === undefined || oids.length === 0) throw new UsageError('cancel needs a market and order ids: svc cancel BTC 12');
      const c = await ctx.signer();
      const m = await c.markets.get(coin);
      const statuses = await c.exchange.cancel(oids.map((o) => ({ a: m.asset, o: intArg(o, 'OID') })));
      ctx.print(statuses, () => table(['OID', 'RESULT'], statuses.map((s, i) => [oids[i], s === 'success' ? 'cancelled' : s.error])));
      return statuses.every((s) => s === 'success') ? 0 : 1;
    },
  },

  transfer: {
    usage: 'svc transfer <ADDRESS> <AMOUNT>\n\nSends USDC to another address at once, without fee (main wallet only).',
    async run(ctx, args) {
      const to = addressArg(args[0], 'ADDRESS');
      const amount = decimalArg(args[1], 'AMOUNT');
      await (await ctx.signer()).exchange.usdTransfer(to, amount);
      ctx.print({ status: 'ok', destination: to, amount }, () => [`sent ${amount} USDC to ${to}`]);
    },
  },

  withdraw: {
    usage: 'svc withdraw <ADDRESS> <AMOUNT> [--chain-id <id>]\n\nWithdraws USDC through the bridge (minimum 10, fee about 1).',
    options: { 'chain-id': { type: 'string' } },
    async run(ctx, args) {
      const to = addressArg(args[0], 'ADDRESS');
      const amount = decimalArg(args[1], 'AMOUNT');
      const chainId = ctx.values['chain-id'] === undefined ? undefined : intArg(str(ctx.values['chain-id']), '--chain-id', 1);
      const w = await (await ctx.signer()).exchange.withdraw(to, amount, chainId);
      ctx.print(w, () => pairs([['withdrawal', w.withdrawalId], ['amount', w.amount], ['fee', w.fee], ['destination', w.destination], ['status', w.status]]));
    },
  },

  leverage: {
    usage: 'svc leverage <COIN> <N> [--isolated]\n\nSets the leverage of a perpetual (cross margin unless --isolated).',
    options: { isolated: { type: 'boolean' } },
    async run(ctx, args) {
      const coin = args[0];
      if (coin === undefined) throw new UsageError('leverage needs a market and a number: svc leverage BTC 5');
      const n = intArg(args[1], 'N', 1, 100);
      await (await ctx.signer()).setLeverage(coin, n, ctx.values.isolated !== true);
      ctx.print({ status: 'ok', coin, leverage: n, isCross: ctx.values.isolated !== true }, () => [`${coin} leverage ${n}x ${ctx.values.isolated === true ? 'isolated' : 'cross'}`]);
    },
  },

  agent: {
    usage: 'svc agent approve <ADDRESS> [--name <name>]\nsvc agent revoke [--name <name>]\n\nAuthorizes (or revokes) an API wallet to trade for this account; signed by the main wallet.',
    options: { name: { type: 'string' } },
    async run(ctx, args) {
      const [sub, address] = args;
      const name = str(ctx.values.name) ?? '';
      const c = await ctx.signer();
      if (sub === 'approve') {
        const agent = addressArg(address, 'ADDRESS');
        await c.exchange.approveAgent(agent, name);
        ctx.print({ status: 'ok', agent, name }, () => [`agent ${agent}${name === '' ? '' : ` ("${name}")`} may now trade for ${c.address}`]);
      } else if (sub === 'revoke') {
        await c.exchange.revokeAgent(name);
        ctx.print({ status: 'ok', name }, () => [`agent ${name === '' ? '(unnamed)' : `"${name}"`} of ${c.address} revoked`]);
      } else throw new UsageError(`agent takes approve or revoke, got "${sub ?? ''}"`);
    },
  },

  deploy: {
    usage: `svc deploy token <NAME> --sz-decimals <n> --wei-decimals <n> [--supply <amount>] [--evm-contract <address>]
svc deploy pair <BASE> <QUOTE> [--price <initial price>]

Lists a spot token or a spot pair (10 USDC each). Tokens by name or index (USDC or 10000).`,
    options: { 'sz-decimals': { type: 'string' }, 'wei-decimals': { type: 'string' }, supply: { type: 'string' }, 'evm-contract': { type: 'string' }, price: { type: 'string' } },
    async run(ctx, args) {
      const [kind, a, b] = args;
      const v = ctx.values;
      const c = await ctx.signer();
      if (kind === 'token') {
        if (a === undefined) throw new UsageError('deploy token needs a name: svc deploy token FOO --sz-decimals 2 --wei-decimals 18');
        const r = await c.exchange.deployToken({
          tokenName: a, szDecimals: intArg(str(v['sz-decimals']), '--sz-decimals', 0, 8), weiDecimals: intArg(str(v['wei-decimals']), '--wei-decimals', 0, 18),
          ...(v.supply === undefined ? {} : { initialSupply: decimalArg(str(v.supply), '--supply') }),
          ...(v['evm-contract'] === undefined ? {} : { evmContract: addressArg(str(v['evm-contract']), '--evm-contract') }),
        });
        ctx.print(r, () => pairs([['token', r.tokenName], ['index', r.tokenIndex], ['deployer', r.deployer]]));
      } else if (kind === 'pair') {
        const spot = await c.info.spotMeta();
        const token = (x: string | undefined, what: string) => {
          const t = /^\d+$/.test(x ?? '') ? spot.tokens.find((k) => k.index === Number(x)) : spot.tokens.find((k) => k.name === x?.toUpperCase());
          if (t === undefined) throw new UsageError(`${what}: no token "${x ?? ''}" in spotMeta`);
          return t.index;
        };
        const r = await c.exchange.deployPair({ baseToken: token(a, 'BASE'), quoteToken: token(b, 'QUOTE'), ...(v.price === undefined ? {} : { initialPrice: decimalArg(str(v.price), '--price') }) });
        ctx.print(r, () => pairs([['pair', r.pairName], ['pair index', r.pairIndex], ['asset', SPOT_ASSET_OFFSET + r.pairIndex]]));
      } else throw new UsageError(`deploy takes token or pair, got "${kind ?? ''}"`);
    },
  },

  tail: {
    usage: `svc tail [<COIN>...] [--user <address>] [--count <n>]

Live trades of the markets named (default BTC) and, with --user (or --key, --dev), that account's fills,
over the node's WebSocket, until Ctrl-C (or --count events).`,
    options: { user: { type: 'string' }, count: { type: 'string' } },
    async run(ctx, args) {
      const coins = args.length === 0 ? ['BTC'] : args;
      const limit = ctx.values.count === undefined ? Infinity : intArg(str(ctx.values.count), '--count', 1);
      // Fills of --user, else of the key named (--key, --dev, --private-key), else none.
      const keyGiven = ['key', 'dev', 'private-key'].some((k) => ctx.values[k] !== undefined);
      const user = ctx.values.user !== undefined ? addressArg(str(ctx.values.user), '--user') : keyGiven ? (await ctx.signer()).address : null;
      const c = ctx.reader();
      let seen = 0;
      let finish: () => void = () => {};
      const done = new Promise<void>((resolve) => (finish = resolve));
      const emit = (json: unknown, line: string) => {
        if (seen >= limit) return;
        seen++;
        ctx.io.out(ctx.json ? JSON.stringify(json) : line);
        if (seen >= limit) finish();
      };
      try {
        for (const coin of coins) {
          await c.ws.subscribe({ type: 'trades', coin }, (trades) => {
            for (const t of trades) emit({ channel: 'trades', ...t }, `${isoTime(t.time)}  trade  ${t.coin.padEnd(9)} ${t.side === 'B' ? 'buy ' : 'sell'} ${t.sz.padStart(12)} @ ${t.px}`);
          });
        }
        if (user !== null) {
          await c.ws.subscribe({ type: 'userFills', user }, (d) => {
            if (d.isSnapshot === true) return;
            for (const f of d.fills) emit({ channel: 'userFills', ...f }, `${isoTime(f.time)}  fill   ${f.coin.padEnd(9)} ${f.side === 'B' ? 'buy ' : 'sell'} ${f.sz.padStart(12)} @ ${f.px}  ${f.dir}  fee ${f.fee}`);
          });
        }
        if (!ctx.json) ctx.io.err(`watching ${coins.join(', ')}${user === null ? '' : ` and fills of ${user}`} on ${ctx.nodeUrl}; Ctrl-C stops`);
        await Promise.race([done, ctx.io.interrupted()]);
      } finally {
        c.close();
      }
    },
  },
};

/** Runs a client command; the exit code. */
export async function runClientCommand(name: string, argv: string[], io: Io): Promise<number> {
  const cmd = COMMANDS[name] as Command;
  const { values, positionals } = parse(argv, cmd.options ?? {});
  if (values.help === true) {
    io.out(`Usage: ${cmd.usage}\n\n${COMMON_HELP}`);
    return 0;
  }
  const code = await cmd.run(new Context(io, values), positionals);
  return typeof code === 'number' ? code : 0;
}
