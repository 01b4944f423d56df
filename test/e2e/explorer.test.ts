// The explorer page in headless Chromium (Debian's `chromium`, driven by playwright-core): it shows
// the chain live, and an order placed through the client appears in its book and account view.
// A screenshot is kept in .artifacts/explorer.png.
import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { DEV_ACCOUNTS } from '../../genesis/index.ts';
import { startNode } from '../support/node.ts';

/** The page's DOM, as the functions below that run in the page see it (this file has no DOM types). */
declare const document: { getElementById(id: string): { textContent: string | null } | null };

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
const [alice, bob] = DEV_ACCOUNTS as [typeof DEV_ACCOUNTS[0], typeof DEV_ACCOUNTS[0]];

t.test('the explorer page follows the chain, the book and an account', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (.ci/run installs it)` }, async (t) => {
  const { node, svc } = await startNode(t);
  const profile = await mkdtemp(join(tmpdir(), 'svc-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 1100 } });
  t.teardown(async () => {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Nothing outside the node: every request the page makes goes to its own origin or WebSocket.
  const origins = new Set<string>();
  page.on('request', (r) => origins.add(new URL(r.url()).host));
  const sockets: string[] = [];
  page.on('websocket', (w) => sockets.push(w.url()));

  await page.goto(`${node.restUrl}/?coin=BTC`);
  await page.waitForFunction(() => Number(document.getElementById('height')?.textContent) > 0, undefined, { timeout: 10_000 });
  await page.waitForSelector('#stream:text("live")', { timeout: 10_000 });
  t.match(await page.textContent('#markets'), /BTC.*ETH/s, 'markets with their figures');
  t.match(await page.textContent('#validators'), /100\.0%|%/, 'validators and their voting power');

  const alicec = svc(alice.privateKey);
  const placed = await alicec.placeOrder({ coin: 'BTC', side: 'sell', price: '61000', size: '0.25' });
  t.ok('resting' in placed);
  await page.waitForFunction(() => document.getElementById('book-asks')?.textContent?.includes('61000'), undefined, { timeout: 10_000 });
  t.pass('the resting order shows in the live book');
  t.equal(await page.locator('#depth path.depth-asks').count(), 1, 'and in the depth chart');

  await page.fill('#account-address', alice.address);
  await page.click('#account-form button');
  await page.waitForFunction(() => document.getElementById('account-orders')?.textContent?.includes('61000'), undefined, { timeout: 10_000 });
  t.pass("the order in the account's open orders");

  await svc(bob.privateKey).placeOrder({ coin: 'BTC', side: 'buy', price: '61000', size: '0.1', tif: 'Ioc' });
  await page.waitForFunction(() => document.getElementById('trades')?.textContent?.includes('61000'), undefined, { timeout: 10_000 });
  await page.waitForFunction(() => document.getElementById('account-fills')?.textContent?.includes('Open Short'), undefined, { timeout: 10_000 });
  t.pass('the trade in recent trades and the fill in the account');
  await page.waitForFunction(() => /order/.test(document.getElementById('blocks')?.textContent ?? ''), undefined, { timeout: 10_000 });
  t.pass('blocks list their transactions');
  t.ok(await page.locator('#chart canvas').count() > 0, 'the price chart is drawn');

  await mkdir('.artifacts', { recursive: true });
  await page.screenshot({ path: join('.artifacts', 'explorer.png'), fullPage: true });
  t.same(errors, [], 'no script errors');
  t.same([...origins], [new URL(node.restUrl).host], 'no request leaves the node');
  const host = new URL(node.restUrl).hostname;
  t.same(sockets.sort(), [node.wsUrl, node.rpcUrl?.replace('http:', 'ws:')].map((u) => new URL(u as string)).map((u) => `ws://${host}:${u.port}${u.pathname === '/' ? '/' : u.pathname}`).sort(),
    "live over the node's own WebSockets: the API's and the JSON-RPC's (new heads)");
});
