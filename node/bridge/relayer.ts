// The relayer: one watcher per configured external chain. A validator's watcher attests what it
// sees on its chain (the bridge contract to register, confirmed deposits, paid withdrawals,
// withdrawals past their deadline unpaid) and signs the withdrawals to its chain, in bridge
// system transactions that go through consensus like any action; it also submits withdrawals
// that have a quorum of signatures to the contract. It reads only committed state, and every
// item it sends is idempotent, so a restart (which rescans from a saved cursor) or a resend
// credits and releases nothing twice. A chain that cannot be reached stops only its own watcher.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import {
  claimKey, contractQuorum, orderedSignatures, toTokenUnits, validatorSetDigest, wantedSet, withdrawalDigest,
  type BridgeChain, type BridgeClaim, type ContractSet, type Exchange, type Withdrawal,
} from '../../exchange/index.ts';
import type { Address } from '../../primitives/index.ts';
import type { ValidatorKey } from '../../consensus/index.ts';
import { encodeBridgeTx } from '../system-tx.ts';
import { DEPOSIT_TOPIC, VALIDATOR_SET_TOPIC, WITHDRAWAL_TOPIC, bridgeInterface } from './abi.ts';
import { writeFileAtomic } from '../atomic-file.ts';
import { ChainRpc } from './json-rpc.ts';
import type { BridgeSignerKey } from './signer-key.ts';

export interface BridgeChainConfig {
  /** JSON-RPC URL of the external chain. */
  readonly url: string;
  /** The chain id the URL must serve; learned from it when absent. */
  readonly chainId?: number;
  /** A log is attested once this many blocks hold it (1: the head block). */
  readonly confirmations: number;
  /** The bridge contract this validator attests for registration (when the chain has none yet). */
  readonly contract?: string;
  /** First block to scan for the contract's events (its deployment block). */
  readonly fromBlock?: number;
}

export interface RelayerDeps {
  /** Committed state, read only. */
  readonly exchange: Exchange;
  readonly validatorKey: ValidatorKey;
  readonly signer: BridgeSignerKey;
  readonly serviceChainId: number;
  /** Puts a system transaction into the mempool (and gossips it). */
  readonly submit: (bytes: Uint8Array) => void;
  /** Where each chain's scan cursor is kept. */
  readonly dataDir: string;
  readonly log: (line: string) => void;
  readonly now: () => number;
  readonly pollMs: number;
}

/** Items not yet in committed state are sent again after this long. */
const RESEND_MS = 10_000;
/**
 * Items this validator's vote or signature is in state for, but that have not applied, are sent
 * again after this long: a vote dropped after 24 hours comes back, and a quorum that a change of
 * the validator set completed without a new vote is counted.
 */
const REVOTE_MS = 60_000;
/** A withdrawal with a quorum of signatures is submitted by its designated validator, by any after this long. */
const PAYOUT_GRACE_MS = 30_000;
/** Blocks per eth_getLogs request. */
const LOG_RANGE = 2000;
/** Validators stop signing a withdrawal this close to its deadline (seconds): a payout needs time to land. */
const SIGN_MARGIN_SEC = 60;
/** The chain counts as down when no call succeeded for this long. */
const DOWN_AFTER_MS = 10_000;

interface RpcLog {
  readonly topics: string[];
  readonly data: string;
  readonly blockNumber: string;
  readonly transactionHash: string;
}

class ChainWatcher {
  readonly rpc: ChainRpc;
  chainId: number | null = null;
  private lastOk = 0;
  private lastError = '';
  private lastRoundError = '';
  /** Last block whose logs are in `outstanding` or were found done; -1 before the first scan. */
  private scanned = -1;
  private savedCursor = -1;
  /** Claims seen on the chain and not yet done in state, with their block and when last sent. */
  private readonly outstanding = new Map<string, { claim: BridgeClaim; block: number; sentAt: number }>();
  private readonly sigSentAt = new Map<string, number>();
  private readonly paySentAt = new Map<string, number>();
  private readonly signedSeenAt = new Map<string, number>();
  private readonly payCheckedAt = new Map<string, number>();
  /** The same for validator-set updates, by update (nonce and content). */
  private readonly setSentAt = new Map<string, number>();
  private readonly setSignedAt = new Map<string, number>();
  private readonly setSubmittedAt = new Map<string, number>();
  private warnedSigner = false;
  private chainClaimSentAt = 0;
  private warnedContract = false;

  constructor(readonly cfg: BridgeChainConfig, private readonly d: RelayerDeps) {
    this.rpc = new ChainRpc(cfg.url);
  }

  get up(): boolean {
    return this.lastOk > 0 && this.d.now() - this.lastOk < DOWN_AFTER_MS && this.lastError === '';
  }

  get status(): { url: string; chainId: number | null; up: boolean; scanned: number; error: string } {
    return { url: this.cfg.url, chainId: this.chainId, up: this.up, scanned: this.scanned, error: this.lastError };
  }

  private cursorPath(chainId: number): string {
    return join(this.d.dataDir, `bridge-cursor-${chainId}.json`);
  }

  private async loadCursor(chainId: number): Promise<void> {
    const start = (this.cfg.fromBlock ?? 0) - 1;
    try {
      const saved = (JSON.parse(await readFile(this.cursorPath(chainId), 'utf8')) as { scanned: number }).scanned;
      this.scanned = Number.isSafeInteger(saved) ? Math.max(saved, start) : start;
    } catch {
      this.scanned = start;
    }
    this.savedCursor = this.scanned;
  }

  private async saveCursor(chainId: number, value: number): Promise<void> {
    if (value <= this.savedCursor) return;
    const path = this.cursorPath(chainId);
    await writeFileAtomic(path, JSON.stringify({ scanned: value }));
    this.savedCursor = value;
  }

  private fail(err: unknown): void {
    const message = (err as Error).message;
    if (message !== this.lastError) this.d.log(`bridge: chain ${this.chainId ?? this.cfg.url}: ${message}`);
    this.lastError = message;
  }

  /** One round: read the chain, then send what this validator owes the chain's bridge. */
  async tick(): Promise<void> {
    let head: number;
    try {
      if (this.chainId === null) {
        const id = await this.rpc.chainId();
        if (this.cfg.chainId !== undefined && id !== this.cfg.chainId) throw new Error(`${this.cfg.url} serves chain ${id}, not the configured ${this.cfg.chainId}`);
        await this.loadCursor(id);
        this.chainId = id;
      }
      head = await this.rpc.blockNumber();
    } catch (err) {
      this.fail(err);
      return;
    }
    if (this.lastError !== '') this.d.log(`bridge: chain ${this.chainId} reachable again at block ${head}`);
    this.lastError = '';
    this.lastOk = this.d.now();
    try {
      await this.round(this.chainId, head);
    } catch (err) {
      // The chain answered, so it is up; what failed is logged (once per distinct message) and retried next round.
      const message = (err as Error).message;
      if (message !== this.lastRoundError) this.d.log(`bridge: chain ${this.chainId}: ${message}`);
      this.lastRoundError = message;
      return;
    }
    this.lastRoundError = '';
  }

  private me(): { pubKey: string; bridgeSigner?: Address } | undefined {
    return this.d.exchange.state.validators().find((v) => v.pubKey === this.d.validatorKey.publicKey);
  }

  private async round(chainId: number, head: number): Promise<void> {
    const state = this.d.exchange.state;
    const me = this.me();
    const claims: BridgeClaim[] = [];
    const signatures: unknown[] = [];
    const now = this.d.now();
    const chain = state.bridge.chains.get(chainId);
    if (chain === undefined) {
      // Not registered: propose the configured contract (validators register it by quorum).
      if (me !== undefined && this.cfg.contract !== undefined && now - this.chainClaimSentAt > RESEND_MS) {
        const contract = this.cfg.contract.toLowerCase();
        const claim: BridgeClaim = { kind: 'chain', chainId, contract, set: await this.contractSet(contract) };
        if (!this.voted(claim)) {
          claims.push(claim);
          this.chainClaimSentAt = now;
        }
      }
      this.send(claims, signatures);
      return;
    }
    if (this.cfg.contract !== undefined && this.cfg.contract.toLowerCase() !== chain.contract && !this.warnedContract) {
      this.warnedContract = true;
      this.d.log(`bridge: chain ${chainId} has contract ${chain.contract} registered, not the configured ${this.cfg.contract}; following the registered one`);
    }
    const confirmed = head - this.cfg.confirmations + 1;
    await this.scan(chain.contract, confirmed);
    for (const [key, o] of this.outstanding) {
      if (this.isDone(o.claim)) {
        this.outstanding.delete(key);
        continue;
      }
      if (me !== undefined && now - o.sentAt > (this.voted(o.claim) ? REVOTE_MS : RESEND_MS)) {
        claims.push(o.claim);
        o.sentAt = now;
      }
    }
    const open = [...state.bridge.withdrawals.values()].filter((w) => w.chainId === chainId && (w.status === 'pending' || w.status === 'signed'));
    if (me !== undefined && me.bridgeSigner !== this.d.signer.address && !this.warnedSigner) {
      this.warnedSigner = true;
      this.d.log(`bridge: this validator's bridge signer is ${this.d.signer.address}, the genesis names ${me.bridgeSigner ?? 'none'}: it attests but signs no withdrawals`);
    }
    if (me !== undefined && me.bridgeSigner === this.d.signer.address) {
      for (const w of open) {
        if (w.status !== 'pending' || Math.floor(now / 1000) > w.deadline - SIGN_MARGIN_SEC) continue;
        if (now - (this.sigSentAt.get(w.withdrawalId) ?? 0) < (w.signatures.has(me.pubKey) ? REVOTE_MS : RESEND_MS)) continue;
        const digest = withdrawalDigest(this.d.serviceChainId, chain, w);
        const sig = new Wallet(this.d.signer.privateKey).signingKey.sign(digest);
        signatures.push({ withdrawalId: w.withdrawalId, signature: sig.serialized });
        this.sigSentAt.set(w.withdrawalId, now);
      }
      for (const w of open) if (w.status === 'signed') await this.payOut(chainId, chain.contract, w, now);
    }
    if (me !== undefined) await this.checkExpiry(chain.contract, confirmed, open, claims);
    if (me !== undefined && me.bridgeSigner === this.d.signer.address) await this.syncValidatorSet(chainId, chain, now, signatures);
    if (me !== undefined) await this.findPayouts(chain.contract, confirmed, open);
    // Safe to resume after a restart from below the oldest claim not yet applied in committed state.
    let cursor = this.scanned;
    for (const o of this.outstanding.values()) if (o.block - 1 < cursor) cursor = o.block - 1;
    await this.saveCursor(chainId, cursor);
    // Bookkeeping of withdrawals that are final now goes.
    const live = new Set(open.map((w) => w.withdrawalId));
    for (const m of [this.sigSentAt, this.paySentAt, this.signedSeenAt, this.payCheckedAt]) for (const id of m.keys()) if (!live.has(id)) m.delete(id);
    this.send(claims, signatures);
  }

  /** The validator set the contract holds now (read at the head). */
  private async contractSet(contract: string): Promise<ContractSet> {
    const call = async (name: 'signers' | 'validatorSetNonce') => bridgeInterface.decodeFunctionResult(name,
      await this.rpc.call<string>('eth_call', [{ to: contract, data: bridgeInterface.encodeFunctionData(name, []) }, 'latest']));
    const [list, powers] = (await call('signers')) as unknown as [string[], bigint[]];
    const [nonce] = (await call('validatorSetNonce')) as unknown as [bigint];
    return { nonce: Number(nonce), signers: list.map((s) => s.toLowerCase()), powers: powers.map(Number) };
  }

  /**
   * When today's validators differ from the set the contract holds: sign the update to today's
   * set, and once signers holding more than 2/3 of the contract's power signed it, submit it
   * (the designated validator at once, any after the grace period). Its event is attested by
   * the scan, which records the contract's new set in state.
   */
  private async syncValidatorSet(chainId: number, chain: BridgeChain, now: number, signatures: unknown[]): Promise<void> {
    const state = this.d.exchange.state;
    const target = wantedSet(state, chain);
    if (target === null) return;
    const update = state.bridge.setUpdates.get(chainId);
    const current = update !== undefined && update.target.nonce === target.nonce && update.target.signers.join() === target.signers.join() && update.target.powers.join() === target.powers.join();
    const key = `set:${target.nonce}:${target.signers.join()}:${target.powers.join()}`;
    if ((!current || !update.signatures.has(this.d.validatorKey.publicKey)) && now - (this.setSentAt.get(key) ?? 0) > RESEND_MS) {
      const sig = new Wallet(this.d.signer.privateKey).signingKey.sign(validatorSetDigest(this.d.serviceChainId, chain, target));
      signatures.push({ chainId, nonce: target.nonce, signature: sig.serialized });
      this.setSentAt.set(key, now);
    }
    if (!current || !contractQuorum(state, chain.set, update.signatures)) return;
    if (!this.setSignedAt.has(key)) this.setSignedAt.set(key, now);
    if (now - (this.setSubmittedAt.get(key) ?? 0) < RESEND_MS) return;
    if (!this.designated(BigInt(target.nonce)) && now - (this.setSignedAt.get(key) as number) < PAYOUT_GRACE_MS) return;
    this.setSubmittedAt.set(key, now);
    const onChain = await this.contractSet(chain.contract);
    if (onChain.nonce >= target.nonce) return; // done: its event will be attested
    const sigs = orderedSignatures(state, update.signatures).map((s) => s.signature);
    const data = bridgeInterface.encodeFunctionData('updateValidatorSet', [target.signers, target.powers, target.nonce, sigs]);
    try {
      const hash = await sendTransaction(this.rpc, chainId, this.d.signer, chain.contract, data);
      this.d.log(`bridge: chain ${chainId}: submitted validator set ${target.nonce} in ${hash}`);
    } catch (err) {
      this.d.log(`bridge: chain ${chainId}: validator set ${target.nonce} not submitted: ${(err as Error).message}`);
    }
  }

  private voted(claim: BridgeClaim): boolean {
    return this.d.exchange.state.bridge.votes.get(claimKey(claim))?.voters.includes(this.d.validatorKey.publicKey) ?? false;
  }

  private isDone(claim: BridgeClaim): boolean {
    const b = this.d.exchange.state.bridge;
    switch (claim.kind) {
      case 'chain':
        return b.chains.has(claim.chainId);
      case 'setUpdated':
        return (b.chains.get(claim.chainId)?.set.nonce ?? -1) >= claim.set.nonce;
      case 'deposit':
        return b.depositDone(claim.chainId, claim.depositId);
      case 'withdrawalPaid':
      case 'withdrawalExpired': {
        const w = b.withdrawals.get(claim.withdrawalId);
        return w === undefined || (w.status !== 'pending' && w.status !== 'signed');
      }
    }
  }

  /** Reads the contract's events up to the confirmed block, a range at a time. */
  private async scan(contract: string, confirmed: number): Promise<void> {
    const chainId = this.chainId as number;
    while (this.scanned < confirmed) {
      const from = this.scanned + 1;
      const to = Math.min(confirmed, from + LOG_RANGE - 1);
      const logs = await this.rpc.call<RpcLog[]>('eth_getLogs', [{
        address: contract, fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [[DEPOSIT_TOPIC, WITHDRAWAL_TOPIC, VALIDATOR_SET_TOPIC]],
      }]);
      for (const log of logs) {
        const claim = this.claimOf(chainId, log);
        if (claim !== null && !this.isDone(claim)) this.outstanding.set(claimKey(claim), { claim, block: Number(BigInt(log.blockNumber)), sentAt: 0 });
      }
      this.scanned = to;
    }
  }

  private claimOf(chainId: number, log: RpcLog): BridgeClaim | null {
    const parsed = bridgeInterface.parseLog({ topics: log.topics, data: log.data });
    if (parsed === null) return null;
    const txHash = log.transactionHash.toLowerCase();
    if (parsed.name === 'Deposit') {
      const amount = parsed.args.getValue('amount') as bigint;
      if (amount === 0n) return null;
      return {
        kind: 'deposit', chainId, depositId: Number(parsed.args.getValue('depositId') as bigint),
        user: (parsed.args.getValue('user') as string).toLowerCase(), amount: amount.toString(), txHash,
      };
    }
    if (parsed.name === 'ValidatorSetUpdated') {
      const signers = (parsed.args.getValue('signers') as string[]).map((s) => s.toLowerCase());
      const powers = (parsed.args.getValue('powers') as bigint[]).map(Number);
      return { kind: 'setUpdated', chainId, set: { nonce: Number(parsed.args.getValue('nonce') as bigint), signers, powers } };
    }
    if (parsed.name === 'Withdrawal') {
      const id = (parsed.args.getValue('id') as string).toLowerCase();
      return this.d.exchange.state.bridge.withdrawals.has(id) ? { kind: 'withdrawalPaid', withdrawalId: id, txHash } : null;
    }
    return null;
  }

  /** Whether the contract had paid withdrawal `id` at `block` (a block tag). */
  private async withdrawn(contract: string, id: string, block: string): Promise<boolean> {
    return BigInt(await this.rpc.call<string>('eth_call', [{ to: contract, data: bridgeInterface.encodeFunctionData('withdrawn', [id]) }, block])) !== 0n;
  }

  /** Whether this validator submits the item numbered `n` first: the validators with bridge signers take turns by key. */
  private designated(n: bigint): boolean {
    const keys = this.d.exchange.state.validators().filter((v) => v.bridgeSigner !== undefined).map((v) => v.pubKey).sort();
    return keys.length > 0 && keys[Number(n % BigInt(keys.length))] === this.d.validatorKey.publicKey;
  }

  /** Submits a withdrawal with a quorum of signatures: the designated validator at once, any other after a grace period. */
  private async payOut(chainId: number, contract: string, w: Withdrawal, now: number): Promise<void> {
    const id = w.withdrawalId;
    if (!this.signedSeenAt.has(id)) this.signedSeenAt.set(id, now);
    if (now - (this.paySentAt.get(id) ?? 0) < RESEND_MS) return;
    if (!this.designated(BigInt(id)) && now - (this.signedSeenAt.get(id) as number) < PAYOUT_GRACE_MS) return;
    this.paySentAt.set(id, now);
    const signatures = orderedSignatures(this.d.exchange.state, w.signatures).map((s) => s.signature);
    const data = bridgeInterface.encodeFunctionData('withdraw', [id, w.destination, toTokenUnits(w.amount), w.deadline, signatures]);
    if (await this.withdrawn(contract, id, 'latest')) return; // on its way: the Withdrawal event will be attested
    try {
      const hash = await sendTransaction(this.rpc, chainId, this.d.signer, contract, data);
      this.d.log(`bridge: chain ${chainId}: submitted withdrawal ${id} in ${hash}`);
    } catch (err) {
      this.d.log(`bridge: chain ${chainId}: withdrawal ${id} not submitted: ${(err as Error).message}`);
    }
  }

  /**
   * A withdrawal the contract paid whose event the scan passed while this node's state did not
   * know the withdrawal yet (it was catching up): found by its id and attested.
   */
  private async findPayouts(contract: string, confirmed: number, open: readonly Withdrawal[]): Promise<void> {
    const now = this.d.now();
    for (const w of open) {
      if (w.status !== 'signed') continue;
      if ([...this.outstanding.values()].some((o) => o.claim.kind === 'withdrawalPaid' && o.claim.withdrawalId === w.withdrawalId)) continue;
      if (!this.signedSeenAt.has(w.withdrawalId)) this.signedSeenAt.set(w.withdrawalId, now);
      const seen = this.signedSeenAt.get(w.withdrawalId) as number;
      if (now - seen < PAYOUT_GRACE_MS || now - (this.payCheckedAt.get(w.withdrawalId) ?? 0) < RESEND_MS) continue;
      this.payCheckedAt.set(w.withdrawalId, now);
      const block = `0x${confirmed.toString(16)}`;
      if (!(await this.withdrawn(contract, w.withdrawalId, block))) continue;
      const logs = await this.rpc.call<RpcLog[]>('eth_getLogs', [{
        address: contract, fromBlock: `0x${Math.max(0, this.cfg.fromBlock ?? 0).toString(16)}`, toBlock: block, topics: [WITHDRAWAL_TOPIC, w.withdrawalId],
      }]);
      for (const log of logs) {
        const claim = this.claimOf(this.chainId as number, log);
        if (claim !== null && claim.kind === 'withdrawalPaid') this.outstanding.set(claimKey(claim), { claim, block: Number(BigInt(log.blockNumber)), sentAt: 0 });
      }
    }
  }

  /** Attests withdrawals whose deadline the confirmed chain time passed while the contract had not paid them. */
  private async checkExpiry(contract: string, confirmed: number, open: readonly Withdrawal[], claims: BridgeClaim[]): Promise<void> {
    if (open.length === 0 || confirmed < 0) return;
    const block = await this.rpc.call<{ timestamp: string } | null>('eth_getBlockByNumber', [`0x${confirmed.toString(16)}`, false]);
    if (block === null) return;
    const chainTime = Number(BigInt(block.timestamp));
    for (const w of open) {
      if (chainTime <= w.deadline) continue;
      const claim: BridgeClaim = { kind: 'withdrawalExpired', withdrawalId: w.withdrawalId };
      const key = claimKey(claim);
      if (this.outstanding.has(key) || this.voted(claim)) continue;
      if (await this.withdrawn(contract, w.withdrawalId, `0x${confirmed.toString(16)}`)) continue; // paid: its Withdrawal event is attested instead
      this.outstanding.set(key, { claim, block: confirmed, sentAt: this.d.now() });
      claims.push(claim);
    }
  }

  private send(claims: BridgeClaim[], signatures: unknown[]): void {
    const items = 500;
    for (let i = 0; i < Math.max(claims.length, signatures.length); i += items) {
      this.d.submit(encodeBridgeTx(this.d.serviceChainId, this.d.validatorKey, this.d.now(), claims.slice(i, i + items), signatures.slice(i, i + items)));
    }
  }
}

/** Signs and sends a contract call from the bridge signer (legacy gas price: every chain takes it); returns its hash. */
export async function sendTransaction(rpc: ChainRpc, chainId: number, signer: BridgeSignerKey, to: string | null, data: string, value = 0n): Promise<string> {
  const from = signer.address;
  const [nonce, gasPrice] = await Promise.all([rpc.call<string>('eth_getTransactionCount', [from, 'pending']), rpc.call<string>('eth_gasPrice', [])]);
  const call = { from, data, value: `0x${value.toString(16)}`, ...(to === null ? {} : { to }) };
  const gas = BigInt(await rpc.call<string>('eth_estimateGas', [call]));
  const raw = await new Wallet(signer.privateKey).signTransaction({
    type: 0, chainId, nonce: Number(BigInt(nonce)), gasPrice: BigInt(gasPrice), gasLimit: (gas * 12n) / 10n + 10_000n, to, data, value,
  });
  return rpc.call<string>('eth_sendRawTransaction', [raw]);
}

/** Runs one watcher per chain every `pollMs`; a round never overlaps the previous one. */
export class BridgeRelayer {
  private readonly watchers: ChainWatcher[];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(chains: readonly BridgeChainConfig[], private readonly d: RelayerDeps) {
    this.watchers = chains.map((c) => new ChainWatcher(c, d));
  }

  get chains(): readonly BridgeChainConfig[] {
    return this.watchers.map((w) => w.cfg);
  }

  start(): void {
    const run = () => {
      if (this.running !== null) return;
      this.running = Promise.all(this.watchers.map((w) => w.tick())).then(() => {
        this.running = null;
      });
    };
    run();
    this.timer = setInterval(run, this.d.pollMs);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * Whether this node watches `chainId` and cannot reach it now (withdrawals to it are refused
   * meanwhile); a chain no watcher has identified yet counts as one a never-reached URL may serve.
   */
  isDown(chainId: number): boolean {
    const serving = this.watchers.filter((w) => (w.chainId ?? w.cfg.chainId) === chainId);
    if (serving.length > 0) return serving.every((w) => !w.up);
    return this.watchers.some((w) => w.chainId === null && w.cfg.chainId === undefined);
  }

  status(): { url: string; chainId: number | null; up: boolean; scanned: number; error: string }[] {
    return this.watchers.map((w) => w.status);
  }
}
