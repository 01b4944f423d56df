// The token link's seam between the exchange and the EVM parts of a block (docs/evm.md, "Linked
// tokens"): releases queued by the exchange go to the EVM block; after it, failed releases are
// refunded and ERC-20 transfers to system addresses found in the block's receipts are credited.
import { creditFromEvm, linkedContracts, refundRelease, takeReleases, type EvmRelease, type Exchange } from '../exchange/index.ts';
import type { StoredReceipt } from '../evm/index.ts';
import { bytesToHex, keccak256, utf8 } from '../primitives/index.ts';

/** topic0 of ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)`. */
const TRANSFER_TOPIC = bytesToHex(keccak256(utf8('Transfer(address,address,uint256)')));

export interface LinkDeposit {
  readonly contract: string;
  readonly from: string;
  readonly wei: bigint;
}

/** The exchange part's releases and the linked contracts to watch, taken after the exchange part. */
export function linkWork(exchange: Exchange): { releases: EvmRelease[]; watch: Map<string, string> } {
  return { releases: takeReleases(exchange.state), watch: linkedContracts(exchange.state) };
}

/** Transfers to a watched contract's system address in the receipts, in log order. */
export function linkDeposits(receipts: readonly StoredReceipt[], watch: ReadonlyMap<string, string>): LinkDeposit[] {
  const out: LinkDeposit[] = [];
  if (watch.size === 0) return out;
  for (const r of receipts) {
    if (r.status !== 1) continue;
    for (const log of r.logs) {
      const system = watch.get(log.address.toLowerCase());
      if (system === undefined || log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC) continue;
      if (`0x${(log.topics[2] as string).slice(26)}` !== system) continue;
      out.push({ contract: log.address.toLowerCase(), from: `0x${(log.topics[1] as string).slice(26)}`, wei: BigInt(log.data === '0x' ? 0 : log.data) });
    }
  }
  return out;
}

/** Refunds the releases the EVM could not make, then credits the deposits (both out of the escrow). */
export function settleLink(exchange: Exchange, releases: readonly EvmRelease[], released: readonly boolean[], receipts: readonly StoredReceipt[], watch: ReadonlyMap<string, string>): void {
  if (released.length !== releases.length) throw new Error(`invariant: ${releases.length} releases, ${released.length} outcomes`);
  releases.forEach((r, i) => {
    if (released[i] !== true) refundRelease(exchange.state, r);
  });
  for (const d of linkDeposits(receipts, watch)) creditFromEvm(exchange.state, d.contract, d.from, d.wei);
}
