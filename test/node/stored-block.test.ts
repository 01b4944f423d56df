// The chain store's block bytes: transactions and signers back exactly as written (empty, short
// and long transactions; no signer, addresses, EVM keys), evidence kept or absent, blocks written
// as JSON by earlier versions still read, damaged values refused, and a ChainStore reading back.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ChainStoreForTests, decodeChainBlock, encodeChainBlock, type StoredBlock } from '../../node/index.ts';
import { tempDir } from '../support/node.ts';

const header = { height: 9, time: 1767225600123, parent: `0x${'11'.repeat(32)}`, txRoot: `0x${'22'.repeat(32)}`, appHash: `0x${'33'.repeat(32)}`, proposer: '0xabc' } as unknown as StoredBlock['header'];
const commit = { height: 9, round: 0, blockHash: `0x${'44'.repeat(32)}`, signatures: [{ validator: '0xv1', signature: '0xs1' }] } as unknown as StoredBlock['commit'];

const busy: StoredBlock = {
  header,
  txs: [new Uint8Array(0), Uint8Array.of(0x02, 0xf8, 0x6f), new Uint8Array(70_000).map((_, i) => i % 251), Buffer.from('{"action":{"type":"order"},"é":"ü"}')].map((b) => new Uint8Array(b)),
  signers: ['', `0x${'ab'.repeat(20)}`, `0x${'cd'.repeat(64)}`, 'ü'],
  commit,
  evidence: [{ kind: 'duplicateVote', first: { height: 3, signature: '0x01' }, second: { height: 3, signature: '0x02' } } as unknown as NonNullable<StoredBlock['evidence']>[number]],
};

t.test('a stored block reads back as written', async (t) => {
  t.same(decodeChainBlock(encodeChainBlock(busy)), busy, 'transactions, signers, evidence');
  const { evidence: _none, ...plain } = busy;
  const back = decodeChainBlock(encodeChainBlock(plain));
  t.same(back, plain, 'without evidence');
  t.notOk('evidence' in back, 'absent evidence stays absent');
  t.same(decodeChainBlock(encodeChainBlock({ header, commit, txs: [], signers: [] })), { header, commit, txs: [], signers: [] }, 'no transactions');
  t.throws(() => encodeChainBlock({ ...plain, signers: [] }), /4 transactions, 0 signers/);
});

t.test('a block stored as JSON by an earlier version reads', async (t) => {
  const json = JSON.stringify({ header, txs: busy.txs.map((b) => Buffer.from(b).toString('base64')), signers: busy.signers, commit, evidence: busy.evidence });
  t.same(decodeChainBlock(Buffer.from(json)), busy);
});

t.test('damaged values are refused', async (t) => {
  const bytes = encodeChainBlock(busy);
  t.throws(() => decodeChainBlock(bytes.subarray(0, bytes.length - 1)), /truncated/);
  t.throws(() => decodeChainBlock(bytes.subarray(0, 3)), /truncated/);
  t.throws(() => decodeChainBlock(Uint8Array.from([...bytes, 0])), /1 bytes past its end/);
  const other = Uint8Array.from(bytes);
  other[0] = 7;
  t.throws(() => decodeChainBlock(other), /unknown version 7/);
});

t.test('the chain store writes and reads a block', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = new ChainStoreForTests(join(dir, 'db'));
  await store.open();
  t.teardown(() => store.close());
  const head = { height: 9, hash: commit.blockHash, time: header.time, appHash: header.appHash, fillSeq: 0 };
  await store.writeBlock({
    block: { header, txs: busy.txs, evidence: busy.evidence }, signers: busy.signers, commit, head,
    fills: [], orderStatuses: [], fundings: [], fundingRates: [], liquidations: [], candles: [], portfolio: [], snapshot: null, sync: true,
  });
  t.same(await store.block(9), busy);
  t.same(await store.head(), head);
  t.equal(await store.block(10), undefined);
});
