// decodeTransaction against ethereumjs's createTxFromRLP: the same objects (fields, hash,
// serialization, sender) for every accepted type with short and long fields, and for malformed
// or non-canonical encodings the same error (ethereumjs decodes those itself).
import t from 'tap';
import { Transaction, type TransactionLike } from 'ethers';
import { createTxFromRLP } from '@ethereumjs/tx';
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
