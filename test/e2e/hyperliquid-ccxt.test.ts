// ccxt's `hyperliquid` exchange, unchanged but for its base URL, trading on a devnet through the
// dialect: markets with its defaults, books, balances, positions, and a place-modify-cancel-fill
// cycle on a perpetual and on a spot pair.
import ccxt from 'ccxt';
import t from 'tap';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

function client(base: string, i: number) {
  const ex = new ccxt.hyperliquid({ walletAddress: DEV_ACCOUNTS[i]!.address, privateKey: DEV_ACCOUNTS[i]!.privateKey });
  ex.urls['api'] = { public: base, private: base };
  return ex;
}

t.test('ccxt hyperliquid: markets, books, balances, orders, fills, candles', async (t) => {
  const { node } = await startNode(t);
  const base = `${node.restUrl}/hyperliquid`;
  const alice = client(base, 3);
  const bob = client(base, 4);

  const markets = await alice.loadMarkets();
  t.ok(markets['BTC/USDC:USDC'], 'perpetuals as BASE/USDC:USDC');
  t.ok(markets['SVC/USDC'], 'spot pairs as BASE/QUOTE');
  t.match(markets['BTC/USDC:USDC'], { swap: true, settle: 'USDC', precision: { amount: 0.00001 } });
  await bob.loadMarkets();

  const placed = await alice.createOrder('BTC/USDC:USDC', 'limit', 'buy', 0.01, 95000);
  t.type(placed.id, 'string');
  const edited = await alice.editOrder(placed.id!, 'BTC/USDC:USDC', 'limit', 'buy', 0.02, 95500);
  t.ok(edited.id);
  const open = await alice.fetchOpenOrders('BTC/USDC:USDC');
  t.match(open, [{ symbol: 'BTC/USDC:USDC', side: 'buy', price: 95500, amount: 0.02 }]);
  const book = await bob.fetchOrderBook('BTC/USDC:USDC');
  t.match(book.bids[0], [95500, 0.02]);

  const taken = await bob.createOrder('BTC/USDC:USDC', 'limit', 'sell', 0.01, 95000, { timeInForce: 'IOC' });
  t.match(taken, { filled: 0.01, average: 95500 });
  t.match(await bob.fetchOrder(taken.id!, 'BTC/USDC:USDC'), { status: 'closed', side: 'sell', filled: 0.01 });
  const mine = await alice.fetchMyTrades('BTC/USDC:USDC');
  t.match(mine, [{ symbol: 'BTC/USDC:USDC', side: 'buy', price: 95500, amount: 0.01 }]);
  const positions = await alice.fetchPositions(['BTC/USDC:USDC']);
  t.match(positions, [{ symbol: 'BTC/USDC:USDC', side: 'long', contracts: 0.01, entryPrice: 95500 }]);
  const left = await alice.fetchOpenOrders('BTC/USDC:USDC');
  t.equal(left.length, 1);
  await alice.cancelOrder(left[0]!.id!, 'BTC/USDC:USDC');
  t.same(await alice.fetchOpenOrders('BTC/USDC:USDC'), []);

  // Spot: SVC against USDC.
  const spotBook0 = await alice.fetchOrderBook('SVC/USDC');
  t.ok(Array.isArray(spotBook0.bids));
  await alice.createOrder('SVC/USDC', 'limit', 'sell', 20, 1.5);
  const spotFill = await bob.createOrder('SVC/USDC', 'limit', 'buy', 20, 1.5, { timeInForce: 'IOC' });
  t.match(spotFill, { filled: 20, average: 1.5 });
  const spotBalance = await bob.fetchBalance({ type: 'spot' });
  t.ok((spotBalance['SVC']?.total ?? 0) > 0, 'bought SVC shows in the spot balance');
  const perpBalance = await alice.fetchBalance();
  t.ok((perpBalance['USDC']?.total ?? 0) > 0);

  const candles = await alice.fetchOHLCV('BTC/USDC:USDC', '1m');
  t.ok(candles.length >= 1);
  t.match(candles[candles.length - 1], [Number, Number, Number, Number, Number, Number]);

  // Moving USDC between the perp and spot classes succeeds (one balance here).
  await alice.transfer('USDC', 5, 'swap', 'spot');
});
