// The chain definition ethereumjs runs under: a custom chain id, one pinned hardfork, and the
// node's native crypto instead of ethereumjs's pure-JS paths: sender recovery through secp256k1,
// and keccak256 (trie nodes, addresses, code hashes) through the native sponge.
import { paramsBlock } from '@ethereumjs/block';
import { Hardfork, Mainnet, createCustomCommon, type Common } from '@ethereumjs/common';
import { paramsTx } from '@ethereumjs/tx';
import { bytesToBigInt } from '@ethereumjs/util';
import { keccak256, recoverPublicKey } from '../primitives/index.ts';

/**
 * Osaka: the newest hardfork ethereumjs 10.1 marks final with execution changes (the later BPO
 * forks only move blob parameters, and blob transactions are not accepted here). Pinned, not
 * scheduled: every block of the chain runs under it, from the genesis.
 */
export const EVM_HARDFORK = Hardfork.Osaka;

/** ethereumjs's `ecrecover` contract: the 64-byte public key (no 0x04 prefix) or a throw. */
function nativeEcrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = v === 0n || v === 1n ? Number(v) : chainId === undefined ? Number(v - 27n) : Number(v - (chainId * 2n + 35n));
  const pub = recoverPublicKey(msgHash, { r: bytesToBigInt(r), s: bytesToBigInt(s), recovery });
  if (pub === null) throw new Error('invalid signature');
  return pub.subarray(1);
}

export function makeCommon(chainId: number): Common {
  const common = createCustomCommon({ chainId, name: `svc-${chainId}` }, Mainnet, {
    hardfork: EVM_HARDFORK,
    customCrypto: { ecrecover: nativeEcrecover, keccak256 },
  });
  fastEipLookup(common);
  return common;
}

/**
 * The interpreter asks `isActivatedEIP` several times per opcode, and ethereumjs answers with a
 * linear search of the active EIPs (most of a traced or VM-heavy run's CPU). The hardfork is
 * pinned and no EIP is set later, so the same answers come from a set made once. An own
 * enumerable property, so copies of the Common keep it.
 */
function fastEipLookup(common: Common): void {
  const active = (common as unknown as { _activatedEIPsCache?: unknown })._activatedEIPsCache;
  if (!Array.isArray(active)) return;
  const set = new Set<number>(active as number[]);
  Object.defineProperty(common, 'isActivatedEIP', { value: (eip: number) => set.has(eip), enumerable: true, writable: true });
}

/**
 * The Common that transactions and blocks are decoded with. ethereumjs copies the Common into
 * every transaction and re-merges the transaction parameters into the copy (a JSON deep copy,
 * about a third of a millisecond); this one has the transaction and block parameters merged once
 * and its copies skip the merge. The values are the same, so the decoded objects are too.
 */
export function makeFastCommon(chainId: number): Common {
  const common = makeCommon(chainId);
  common.updateParams(paramsTx);
  common.updateParams(paramsBlock);
  // An own enumerable property, so Common.copy (Object.assign) carries it into every copy.
  Object.defineProperty(common, 'updateParams', { value: () => {}, enumerable: true, writable: true });
  return common;
}
