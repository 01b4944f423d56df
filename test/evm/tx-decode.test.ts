// decodeTransaction against ethereumjs's createTxFromRLP: the same objects (fields, hash,
// serialization, sender) for every accepted type with short and long fields, and for malformed
// or non-canonical encodings the same error (ethereumjs decodes those itself).
import t from 'tap';
import { Transaction, type TransactionLike } from 'ethers';
import { createTxFromRLP } from '@ethereumjs/tx';
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { decodeTransaction, makeCommon } from '../../evm/index.ts';
import { bytesToHex, hexToBytes } from '../../primitives/index.ts';
import { wallets } from '../support/node.ts';

const common = makeCommon(42069);

function outcome(f: () => { toJSON(): unknown; hash(): Uint8Array; serialize(): Uint8Array; getSenderAddress(): { toString(): string } }): unknown {
  try {
    const tx = f();
    return { json: tx.toJSON(), hash: bytesToHex(tx.hash()), bytes: bytesToHex(tx.serialize()), from: tx.getSenderAddress().toString() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

t.test('well-formed transactions decode as ethereumjs decodes them', async (t) => {
  const w = wallets[0]!;
  const base = { chainId: 42069, nonce: 7, gasLimit: 100_000, to: wallets[1]!.address, value: 12345n };
  const cases: TransactionLike[] = [];
  for (const data of ['0x', '0x00', '0x7f', '0x80', `0x${'ab'.repeat(60)}`, `0x${'cd'.repeat(70_000)}`]) {
    cases.push({ ...base, type: 2, data, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, accessList: [{ address: wallets[2]!.address, storageKeys: [`0x${'11'.repeat(32)}`] }] });
    cases.push({ ...base, type: 2, data, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n });
    cases.push({ ...base, type: 1, data, gasPrice: 3n * 10n ** 9n, accessList: [] });
    cases.push({ ...base, type: 0, data, gasPrice: 3n * 10n ** 9n });
  }
  cases.push({ ...base, type: 2, nonce: 0, value: 0n, to: null, data: '0x6000', maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  for (const c of cases) {
    const bytes = hexToBytes(await w.signTransaction(Transaction.from(c)));
    t.same(outcome(() => decodeTransaction(bytes, common)), outcome(() => createTxFromRLP(bytes, { common })), `type ${c.type}, data ${(c.data as string).length}`);
    // From a Buffer slab view too (as bytes from the network may come).
    const slab = Buffer.concat([Buffer.from([1, 2, 3]), Buffer.from(bytes)]).subarray(3);
    t.same(outcome(() => decodeTransaction(slab, common)), outcome(() => createTxFromRLP(bytes, { common })));
  }
});

t.test('malformed and non-canonical encodings fail as in ethereumjs', async (t) => {
  const good = hexToBytes(await wallets[0]!.signTransaction(Transaction.from({ type: 2, chainId: 42069, nonce: 1, gasLimit: 21000, to: wallets[1]!.address, value: 1n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n })));
  const bad: [string, Uint8Array][] = [
    ['empty', new Uint8Array(0)],
    ['type only', Uint8Array.of(2)],
    ['truncated', good.subarray(0, good.length - 1)],
    ['trailing byte', Uint8Array.of(...good, 0)],
    ['unknown type', Uint8Array.of(5, ...good.subarray(1))],
    ['not a list', Uint8Array.of(2, 0x82, 1, 2)],
    // The nonce 1 written as a prefixed single byte (0x81 0x01) instead of 0x01, lengths fixed up.
    ['prefixed single byte', (() => {
      const body = good.subarray(1);
      const i = body.indexOf(0x01, 5);
      const items = Uint8Array.of(...body.subarray(2, i), 0x81, 0x01, ...body.subarray(i + 1));
      return Uint8Array.of(2, 0xf8, items.length, ...items);
    })()],
    // The list's length in the long form although under 56 bytes.
    ['long form for a short list', Uint8Array.of(2, 0xf8, 3, 0x01, 0x02, 0x03)],
    ['length with a leading zero', Uint8Array.of(2, 0xf9, 0x00, 0x03, 0x01, 0x02, 0x03)],
    ['item past its list', Uint8Array.of(2, 0xc2, 0x83, 0x01)],
    ['legacy, not a list', Uint8Array.of(0xc0 - 1)],
    ['legacy, empty list', Uint8Array.of(0xc0)],
  ];
  for (const [name, bytes] of bad) {
    const mine = outcome(() => decodeTransaction(bytes, common));
    t.same(mine, outcome(() => createTxFromRLP(bytes, { common })), name);
    t.ok((mine as { error?: string }).error !== undefined, `${name} is refused`);
  }
});

/** Minimal RLP for the hand-built cases below. */
function rlp(x: Uint8Array | unknown[]): Uint8Array {
  const len = (n: number, base: number) => {
    if (n < 56) return [base + n];
    const b: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) b.unshift(v % 256);
    return [base + 55 + b.length, ...b];
  };
  if (x instanceof Uint8Array) return x.length === 1 && (x[0] as number) < 0x80 ? x : Uint8Array.of(...len(x.length, 0x80), ...x);
  const body = Buffer.concat(x.map((i) => rlp(i as Uint8Array | unknown[])));
  return Uint8Array.of(...len(body.length, 0xc0), ...body);
}

const int = (n: bigint) => (n === 0n ? new Uint8Array(0) : hexToBytes(`0x${n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0')}`));

t.test('hand-built EIP-1559 transactions: every value near what the constructor checks decodes as ethereumjs decodes it', async (t) => {
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const to = hexToBytes(wallets[1]!.address);
  const good = { chainId: int(42069n), nonce: int(7n), tip: int(1n), maxFee: int(10n ** 10n), gas: int(21_000n), to: to as Uint8Array, value: int(5n), data: new Uint8Array(0), access: [] as unknown[], v: int(1n), r: int(12345n), s: int(N / 2n) };
  const variants: [string, Partial<typeof good>][] = [
    ['plain', {}],
    ['y parity 0', { v: int(0n) }],
    ['y parity 2', { v: int(2n) }],
    ['y parity 0 written as 0x00', { v: Uint8Array.of(0) }],
    ['high s', { s: int(N / 2n + 1n) }],
    ['s zero', { s: int(0n) }],
    ['r zero', { r: int(0n) }],
    ['r of 33 bytes', { r: hexToBytes(`0x01${'00'.repeat(32)}`) }],
    ['other chain', { chainId: int(1n) }],
    ['chain id with a leading zero', { chainId: Uint8Array.of(0, 0xa4, 0x55) }],
    ['nonce with a leading zero', { nonce: Uint8Array.of(0, 7) }],
    ['nonce 2^56', { nonce: int(2n ** 56n) }],
    ['nonce 2^64 - 2', { nonce: int(2n ** 64n - 2n) }],
    ['nonce 2^64 - 1', { nonce: int(2n ** 64n - 1n) }],
    ['nonce 2^64', { nonce: int(2n ** 64n) }],
    ['tip above the fee cap', { tip: int(10n ** 10n + 1n) }],
    ['gas at the cap', { gas: int(2n ** 24n) }],
    ['gas over the cap', { gas: int(2n ** 24n + 1n) }],
    ['gas times fee over 2^256', { gas: int(2n ** 24n), maxFee: int(2n ** 255n), tip: int(0n) }],
    ['value of 33 bytes', { value: hexToBytes(`0x01${'00'.repeat(32)}`) }],
    ['a 19-byte recipient', { to: to.subarray(1) }],
    ['contract creation', { to: new Uint8Array(0), data: Uint8Array.of(0x60, 0x00) }],
    ['an access list', { access: [[to, [new Uint8Array(32)]]] }],
    ['a list where a number goes', { nonce: [] as unknown as Uint8Array }],
    ['data', { data: new Uint8Array(100).fill(0xab) }],
  ];
  for (const [name, change] of variants) {
    const f = { ...good, ...change };
    const bytes = Uint8Array.of(2, ...rlp([f.chainId, f.nonce, f.tip, f.maxFee, f.gas, f.to, f.value, f.data, f.access, f.v, f.r, f.s]));
    const mine = outcome(() => decodeTransaction(bytes, common));
    t.same(mine, outcome(() => createTxFromRLP(bytes, { common })), name);
    if ((mine as { error?: string }).error === undefined) {
      // The objects themselves: the same own properties in the same order, equal but for the Common.
      const a = decodeTransaction(bytes, common) as unknown as Record<string, unknown>;
      const b = createTxFromRLP(bytes, { common }) as unknown as Record<string, unknown>;
      t.same(Object.keys(a), Object.keys(b), `${name}: properties`);
      t.ok(Object.isFrozen(a), `${name}: frozen`);
      for (const k of Object.keys(b)) if (k !== 'common' && k !== 'txOptions') t.same(a[k], b[k], `${name}: ${k}`);
      t.equal((a as { common: { chainId(): bigint } }).common.chainId(), 42069n);
      // Its Common has the transaction parameters, as the constructor's copy has them.
      const gas = (x: unknown) => { const tx = x as { getIntrinsicGas(): bigint; getDataGas(): bigint }; return [tx.getIntrinsicGas(), tx.getDataGas()]; };
      t.same(gas(a), gas(b), `${name}: intrinsic and data gas`);
      // Its fields are its own, not views of the encoding.
      const before = { to: (a.to as { toString(): string }).toString(), data: bytesToHex(a.data as Uint8Array) };
      bytes.fill(0xee, 1);
      t.same({ to: (a.to as { toString(): string }).toString(), data: bytesToHex(a.data as Uint8Array) }, before, `${name}: fields copied`);
    }
  }
});

t.test('a decoded transfer has a Common with the transaction parameters and its own field bytes', async (t) => {
  // A Common no transaction was built with yet: the constructor merges the parameters into its copy.
  const fresh = makeCommon(42069);
  const bytes = hexToBytes(await wallets[0]!.signTransaction(Transaction.from({ type: 2, chainId: 42069, nonce: 0, gasLimit: 21_000, to: wallets[1]!.address, value: 1n, data: '0x0102', maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n })));
  const tx = decodeTransaction(bytes, fresh);
  t.equal(tx.getIntrinsicGas(), 21_000n + 2n * 16n);
  // Transactions share one prepared copy of the Common, never the caller's own.
  const other = decodeTransaction(bytes.slice(), fresh);
  t.equal(other.common, tx.common);
  t.not(tx.common, fresh);
  bytes.fill(0xee, 1);
  t.equal(tx.to!.toString(), wallets[1]!.address.toLowerCase());
  t.equal(bytesToHex(tx.data), '0x0102');
});

t.test('before London (no EIP-1559) a type-2 transaction is refused as ethereumjs refuses it', async (t) => {
  const berlin = createCustomCommon({ chainId: 42069 }, Mainnet, { hardfork: Hardfork.Berlin });
  const bytes = hexToBytes(await wallets[0]!.signTransaction(Transaction.from({ type: 2, chainId: 42069, nonce: 0, gasLimit: 21_000, to: wallets[1]!.address, value: 1n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n })));
  const mine = outcome(() => decodeTransaction(bytes, berlin));
  t.match(mine, { error: /EIP-1559 not enabled/ });
  t.same(mine, outcome(() => createTxFromRLP(bytes, { common: berlin })));
});
