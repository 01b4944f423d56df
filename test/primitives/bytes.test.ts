// Hex helpers against Buffer's own hex codec: every length across bytesToHex's short and long
// paths, views at odd offsets, and round trips through hexToBytes.
import t from 'tap';
import { bytesToHex, hexToBytes } from '../../primitives/index.ts';

t.test('bytesToHex is 0x and lowercase hex digits, as Buffer writes them', async (t) => {
  // Every byte value, in a scrambled order.
  const backing = Uint8Array.from({ length: 400 }, (_, i) => (i * 167 + 13) % 256);
  let bad = 0;
  for (let n = 0; n <= 300; n++) {
    for (const at of [0, 1, 7]) {
      const view = backing.subarray(at, at + n);
      const want = `0x${Buffer.from(view).toString('hex')}`;
      if (bytesToHex(view) !== want) bad++;
      if (bytesToHex(hexToBytes(want)) !== want) bad++;
    }
  }
  t.equal(bad, 0, 'every length 0 to 300 at offsets 0, 1 and 7');
  t.equal(bytesToHex(Uint8Array.of(0, 0x0f, 0xf0, 0xff)), '0x000ff0ff');
  // Answers do not share storage: the first is unchanged by the second call.
  const a = bytesToHex(Uint8Array.of(1, 2));
  bytesToHex(Uint8Array.of(3, 4));
  t.equal(a, '0x0102');
});
