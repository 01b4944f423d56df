// signatureParts against ethereumjs's getMessageToVerifySignature: EIP-1559 and EIP-2930
// transactions with short and long data and access lists (short and long RLP length forms), and
// legacy ones (handed to ethereumjs).
import t from 'tap';
import { Transaction, type TransactionLike } from 'ethers';
import { makeCommon, signatureParts } from '../../evm/index.ts';
import { createTxFromRLP } from '@ethereumjs/tx';
import { hexToBytes } from '../../primitives/index.ts';
import { wallets } from '../support/node.ts';

const common = makeCommon(42069);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

t.test('the digest read from the bytes is the one ethereumjs computes', async (t) => {
  const w = wallets[0]!;
  const base = { chainId: 42069, nonce: 300, gasLimit: 100_000, to: wallets[1]!.address, value: 10n ** 20n };
  const data = ['0x', '0x01', `0x${'ab'.repeat(60)}`, `0x${'cd'.repeat(70_000)}`];
  const lists = [[], [{ address: wallets[2]!.address, storageKeys: [`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`] }]];
  const cases: TransactionLike[] = [];
  for (const d of data) {
    for (const accessList of lists) {
      cases.push({ ...base, type: 2, data: d, accessList, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n });
      cases.push({ ...base, type: 1, data: d, accessList, gasPrice: 3n * 10n ** 9n });
    }
    cases.push({ ...base, type: 0, data: d, gasPrice: 3n * 10n ** 9n });
  }
  cases.push({ ...base, type: 2, nonce: 0, value: 0n, to: null, data: '0x6000', maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  for (const c of cases) {
    const bytes = hexToBytes(await w.signTransaction(Transaction.from(c)));
    const tx = createTxFromRLP(bytes, { common });
    const what = `type ${c.type}, data ${(c.data as string).length}, access list ${c.accessList?.length ?? 0}`;
    const parts = signatureParts(tx, bytes);
    t.equal(hex(parts.digest), hex(tx.getMessageToVerifySignature()), what);
    // r, s and the parity read from the bytes are ethereumjs's (r or s under 32 bytes included: see below).
    t.equal(hex(parts.rs), (tx.r as bigint).toString(16).padStart(64, '0') + (tx.s as bigint).toString(16).padStart(64, '0'), `${what}: r || s`);
    const v = tx.v as bigint;
    t.equal(parts.recovery, v < 2n ? Number(v) : Number((v - 35n) % 2n), `${what}: parity`);
  }
});

t.test('an r or s shorter than 32 bytes is read right-aligned', async (t) => {
  const w = wallets[0]!;
  // About one signature in 128 has r or s under 2^248: sign until one of each parity class turns up.
  let found = 0;
  for (let nonce = 0; nonce < 4000 && found < 2; nonce++) {
    const raw = await w.signTransaction(Transaction.from({ chainId: 42069, type: 2, nonce, gasLimit: 21_000, to: wallets[1]!.address, value: 1n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 0n }));
    const bytes = hexToBytes(raw);
    const tx = createTxFromRLP(bytes, { common });
    const r = tx.r as bigint;
    const s = tx.s as bigint;
    if (r >= 1n << 248n && s >= 1n << 248n) continue;
    found++;
    const parts = signatureParts(tx, bytes);
    t.equal(hex(parts.rs), r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0'), `nonce ${nonce}: r || s`);
    t.equal(parts.recovery, Number(tx.v), `nonce ${nonce}: parity`);
  }
  t.equal(found, 2, 'short r or s signatures were found and checked');
});
