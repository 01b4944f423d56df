// Account records for the fast transfer path: the committed head's (bounded cache, kept across
// blocks) and the block in flight's (an overlay in front of ethereumjs's state manager).
import { Account, createAddressFromString } from '@ethereumjs/util';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { keccak256 } from '../primitives/index.ts';
import { copyAccount, encodeAccount, type AccountRecord } from './transfer.ts';
import type { LevelTrieDB } from './level-db.ts';
import { TrieBatch } from './trie-batch.ts';

/** Committed accounts kept in memory (about 200 bytes each). */
const COMMITTED_ENTRIES = 200_000;

/**
 * The head state's accounts by lowercase 0x address (null: no account). Invariant: every entry is
 * the account at the current head; entries are replaced only when a block is adopted, and the
 * whole cache is dropped when a block ran the VM (it may have changed any account) or the head
 * moves otherwise. Records here are never handed out for mutation (readers copy them).
 */
export class AccountCache {
  private readonly map = new Map<string, AccountRecord | null>();

  get(address: string): AccountRecord | null | undefined {
    return this.map.get(address);
  }

  set(address: string, record: AccountRecord | null): void {
    if (this.map.size >= COMMITTED_ENTRIES && !this.map.has(address)) this.map.delete(this.map.keys().next().value as string);
    this.map.set(address, record);
  }

  clear(): void {
    this.map.clear();
  }
}

function addressBytes(address: string): Uint8Array {
  return new Uint8Array(Buffer.from(address.slice(2), 'hex'));
}

/**
 * The accounts of the block in flight. Until the VM runs in the block, the state manager holds
 * the head state untouched and every change lives here; the block then commits with one
 * TrieBatch pass. Before each VM transaction the changes are handed to the state manager (inside
 * its block checkpoint) and the block commits through it.
 */
export class BlockAccounts {
  private readonly overlay = new Map<string, AccountRecord | null>();
  private readonly dirty = new Set<string>();
  private vmRan = false;

  constructor(
    private readonly state: MerkleStateManager,
    private readonly committed: AccountCache,
  ) {}

  /** The account as the block has it so far (the overlay's own record: mutate it, then `set`). */
  async get(address: string): Promise<AccountRecord | null> {
    const mine = this.overlay.get(address);
    if (mine !== undefined) return mine;
    // The committed records are the state manager's view only while the VM has not run.
    const cached = this.vmRan ? undefined : this.committed.get(address);
    let record: AccountRecord | null;
    if (cached !== undefined) {
      record = cached === null ? null : copyAccount(cached);
    } else {
      const a = await this.state.getAccount(createAddressFromString(address));
      record = a === undefined ? null : { nonce: a.nonce, balance: a.balance, storageRoot: a.storageRoot, codeHash: a.codeHash };
      if (!this.vmRan) this.committed.set(address, record === null ? null : copyAccount(record));
    }
    this.overlay.set(address, record);
    return record;
  }

  set(address: string, record: AccountRecord): void {
    this.overlay.set(address, record);
    this.dirty.add(address);
  }

  /** Hands the changes so far to the state manager, before the VM runs a transaction. */
  async handOver(): Promise<void> {
    if (!this.vmRan) {
      await this.state.checkpoint();
      this.vmRan = true;
    }
    for (const address of this.dirty) {
      const r = this.overlay.get(address) as AccountRecord;
      await this.state.putAccount(createAddressFromString(address), new Account(r.nonce, r.balance, r.storageRoot, r.codeHash));
    }
    this.overlay.clear();
    this.dirty.clear();
  }

  /** Writes the block's state and returns its root (`root`: the head's); `pause`: see TrieBatch.putAll. */
  async commit(db: LevelTrieDB, root: Uint8Array, pause?: () => Promise<void>): Promise<Uint8Array> {
    if (this.vmRan) {
      await this.handOver();
      await this.state.commit();
      return this.state.getStateRoot();
    }
    const entries = [...this.dirty].map((a) => [keccak256(addressBytes(a)), encodeAccount(this.overlay.get(a) as AccountRecord)] as const);
    const next = await new TrieBatch(db).putAll(root, entries, pause);
    // The state manager moves to the new root; its caches (reads of the old state) are dropped.
    await this.state.setStateRoot(next);
    return next;
  }

  /** The block is adopted: the committed cache follows it (call in the same turn as the head moves). */
  publish(): void {
    if (this.vmRan) this.committed.clear();
    else for (const a of this.dirty) this.committed.set(a, this.overlay.get(a) as AccountRecord);
  }
}
