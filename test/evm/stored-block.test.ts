// The stored EVM block's bytes: every field back as written (logs, blooms, created contracts,
// failed receipts, releases, the devnet clock, quantities past 2^48), values written as JSON by
// earlier versions still read, and an EvmStore reading back what it wrote.
import { rm } from 'node:fs/promises';
import t from 'tap';
import { EvmStore, decodeStoredBlock, encodeStoredBlock, type StoredEvmBlock } from '../../evm/index.ts';
import { tempDir } from '../support/node.ts';

const hex = (n: number, fill: string) => `0x${fill.repeat(n)}`;

const busy: StoredEvmBlock = {
  rlp: Uint8Array.from({ length: 300 }, (_, i) => i % 256),
  hash: hex(32, 'ab'),
  senders: [hex(20, '01'), hex(20, 'fe'), hex(20, '7f')],
  receipts: [
    { status: 1, cumulativeGasUsed: 21000n, gasUsed: 21000n, effectiveGasPrice: 1_000_000_007n, logs: [], contractAddress: null },
    {
      status: 1, cumulativeGasUsed: 2n ** 60n + 5n, gasUsed: 0x7fn, effectiveGasPrice: 2n ** 255n,
      logs: [
        { address: hex(20, '33'), topics: [hex(32, '44'), hex(32, '00')], data: '0x' },
        { address: hex(20, '55'), topics: [], data: `0x${'66'.repeat(70)}` },
        { address: hex(20, '00'), topics: [hex(32, '01')], data: '0x05' },
      ],
      logsBloom: hex(256, '0f'),
      contractAddress: null,
    },
    { status: 0, cumulativeGasUsed: 0x80n, gasUsed: 0n, effectiveGasPrice: 0n, logs: [], contractAddress: hex(20, 'c0') },
  ],
  released: [true, false, true],
  clock: { offset: '-3600', next: '1767225600' },
};

const quiet: StoredEvmBlock = { rlp: Uint8Array.of(0xc0), hash: hex(32, '00'), senders: [], receipts: [] };

t.test('a stored block reads back as written', async (t) => {
  for (const [name, b] of [['busy', busy], ['empty', quiet], ['clock without next', { ...quiet, clock: { offset: '12' } }]] as const) {
    const bytes = encodeStoredBlock(b);
    t.not(bytes[0], 0x7b, `${name}: not mistaken for JSON`);
    t.same(decodeStoredBlock(bytes), b, name);
  }
});

t.test('a block stored as JSON by an earlier version reads', async (t) => {
  const json = JSON.stringify({
    ...busy,
    rlp: `0x${Buffer.from(busy.rlp).toString('hex')}`,
    receipts: busy.receipts.map((r) => ({ ...r, cumulativeGasUsed: `0x${r.cumulativeGasUsed.toString(16)}`, gasUsed: `0x${r.gasUsed.toString(16)}`, effectiveGasPrice: `0x${r.effectiveGasPrice.toString(16)}` })),
  });
  t.same(decodeStoredBlock(Buffer.from(json)), busy);
});

t.test('malformed stored blocks are refused', async (t) => {
  const bytes = encodeStoredBlock(quiet);
  const other = Uint8Array.from(bytes);
  other[1] = 2; // the version
  t.throws(() => decodeStoredBlock(other), /unknown version/);
  t.throws(() => encodeStoredBlock({ ...quiet, senders: ['0x1234'] }), /not an address/);
  t.throws(() => encodeStoredBlock({ ...quiet, senders: [hex(20, 'zz')] }), /not an address/);
});

t.test('the store writes and reads a block', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = new EvmStore(dir);
  await store.open();
  t.teardown(() => store.close());
  await store.writeBlock(7, busy, [hex(32, 'aa'), hex(32, 'bb'), hex(32, 'cc')], true);
  t.same(await store.block(7), busy);
  t.equal(await store.heightOfHash(busy.hash), 7);
  t.same(await store.txLocation(hex(32, 'bb')), [7, 1]);
  t.equal(await store.block(8), undefined);
});
