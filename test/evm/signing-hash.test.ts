// signingHash against ethereumjs's getMessageToVerifySignature: EIP-1559 and EIP-2930
// transactions with short and long data and access lists (short and long RLP length forms), and
// legacy ones (handed to ethereumjs).
import t from 'tap';
import { Transaction, type TransactionLike } from 'ethers';
import { makeCommon, signingHash } from '../../evm/index.ts';
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
    t.equal(hex(signingHash(tx, bytes)), hex(tx.getMessageToVerifySignature()), `type ${c.type}, data ${(c.data as string).length}, access list ${c.accessList?.length ?? 0}`);
  }
});
