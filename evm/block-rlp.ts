// A block's RLP from its header's encoding and its transactions' bytes as they were received:
// RLP([header, transactions, uncles [], withdrawals []]), where a typed transaction is a byte
// string and a legacy one its RLP list, as ethereumjs's Block.serialize encodes it, without
// re-encoding each transaction. Held equal to Block.serialize in test/evm/fast-transfer.test.ts.

/** RLP length prefix for a payload of `length` bytes (offset 0x80 for strings, 0xc0 for lists). */
function prefix(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const EMPTY_LIST = Uint8Array.of(0xc0);

export function blockRlp(header: Uint8Array, txs: readonly Uint8Array[]): Uint8Array {
  const items: Uint8Array[] = [];
  for (const tx of txs) {
    // A legacy transaction (first byte >= 0xc0) is its list; a typed one (0x01-0x04, then RLP) a byte string.
    if ((tx[0] as number) >= 0xc0) items.push(tx);
    else items.push(prefix(tx.length, 0x80), tx);
  }
  const body = concat(items);
  const txList = concat([prefix(body.length, 0xc0), body]);
  const payload = concat([header, txList, EMPTY_LIST, EMPTY_LIST]);
  return concat([prefix(payload.length, 0xc0), payload]);
}
