// Admission of signed requests into the mempool: recover the signer, check the agent and the
// nonce against the node clock, refuse duplicates. Execution repeats the state checks against
// the block, so admission only saves a round trip for requests that would fail anyway.
import {
  allowedBindings, exchangeError, hyperliquidSigningHint, knownHyperliquidSigner, knownSigner, nonceRefusal, signingHint,
  type AuthConfig, type Exchange, type ExchangeError,
} from '../exchange/index.ts';
import type { SignerGuess, SignerRecovery } from './signer-pool.ts';
import { svcActionOf, type ExchangeRequest, type SignedVerdict, type SubmitOutcome } from '../rpc/index.ts';
import type { Mempool, RecoveredSigners } from './mempool.ts';
import { txHash } from '../consensus/index.ts';
import { encodeRequest } from './tx-codec.ts';
import type { ArrivalOrder } from './arrival-order.ts';
import { timed } from '../primitives/index.ts';

export interface AdmissionDeps {
  readonly auth: AuthConfig;
  /** Where signatures are recovered (a worker pool, off the event loop). */
  readonly recovery: SignerRecovery;
  readonly exchange: Exchange;
  readonly mempool: Mempool;
  readonly now: () => number;
  readonly nonceWindowMs: number;
  /**
   * Told after each admission (with the transaction's bytes, and the address its action binding
   * recovered to when one did) so the engine can propose and peers hear of it.
   */
  readonly onAdmitted: (tx: Uint8Array, signer?: string) => void;
  /** Shared by every admission of the node: the mempool sees requests in arrival order. */
  readonly order: ArrivalOrder;
  /** A refusal this node makes from what only it knows (a bridge chain it cannot reach), or null. */
  readonly gate?: (req: ExchangeRequest) => ExchangeError | null;
  /**
   * The signer's `/exchange` rate limit (API requests only, not peers' gossip): seconds to wait,
   * 0 to go, and the refusal's message.
   */
  readonly limit?: { readonly wait: (signer: string, action: unknown) => number; readonly message: (wait: number) => string };
}

/** `guess`: where the request came from, when known (signer recovery may verify a guessed signer). */
export async function admit(d: AdmissionDeps, req: ExchangeRequest, guess?: SignerGuess): Promise<SubmitOutcome> {
  const ticket = d.order.take();
  let outcome: Promise<SubmitOutcome> | SubmitOutcome;
  try {
    const recovered = await recoverKnownSigner(d, req, guess);
    await d.order.turn(ticket);
    outcome = timed('admission', () => enter(d, req, recovered));
  } finally {
    // The turn passes on whatever happened (a failed recovery too), or every later request would wait forever.
    await d.order.turn(ticket);
    d.order.done(ticket);
  }
  return outcome;
}

interface Recovered {
  readonly seen: string[];
  readonly signer: string | null;
  readonly tx: { bytes: Uint8Array; hash: string; leaf?: Uint8Array } | undefined;
  /** Candidates by binding from the encoded bytes, for execution (undefined when not recovered that way). */
  readonly recovered: RecoveredSigners | undefined;
}

async function recoverKnownSigner(d: AdmissionDeps, req: ExchangeRequest, guess: SignerGuess | undefined): Promise<Recovered> {
  if (req.dialect === 'hyperliquid') {
    // One job recovers every address the signature gives under the chains allowed (a client does not say which it signed for).
    const { candidates = [], tx } = await d.recovery.recoverAndEncode(req);
    const signer = knownHyperliquidSigner(d.exchange, candidates, req.vaultAddress);
    return { seen: candidates, signer, tx, recovered: tx === undefined ? undefined : { addresses: candidates, complete: true } };
  }
  // Recover lazily: the first binding that yields a known signer ends the search. The action
  // binding comes first and brings the transaction's bytes and hash with it. The other bindings
  // sign the request's nonce and vault, which the bytes hold too, so every address recovered
  // here is the one execution would recover from the bytes.
  const seen: string[] = [];
  const byBinding: (string | null)[] = [];
  const bindings = allowedBindings(d.auth);
  let signer: string | null = null;
  let tx: { bytes: Uint8Array; hash: string; leaf?: Uint8Array } | undefined;
  for (const binding of bindings) {
    let address: string | null;
    if (binding === 'action') ({ address, tx } = await d.recovery.recoverAndEncode(req, guess));
    else address = await d.recovery.recover(req, binding);
    byBinding.push(address);
    if (address === null) continue;
    seen.push(address);
    signer = knownSigner(d.exchange, [{ address }], req.vaultAddress);
    if (signer !== null) break;
  }
  const recovered = tx === undefined ? undefined : { addresses: byBinding, complete: byBinding.length === bindings.length };
  return { seen, signer, tx, recovered };
}

/**
 * The checks against the node's state and the mempool, then the mempool; synchronous up to the
 * insert, so requests enter in the order their turns come. The promise settles on execution.
 */
function enter(d: AdmissionDeps, req: ExchangeRequest, r: Recovered): Promise<SubmitOutcome> | SubmitOutcome {
  const { signer, tx } = r;
  const refused = signerRefusal(d, req, r.seen, signer);
  if (refused !== null) return { kind: 'rejected', error: refused };
  if (signer === null) throw new Error('invariant: a signer without refusal');
  // A dialect request is limited and gated as the action it runs as.
  const view = req.dialect === 'hyperliquid' ? { ...req, action: runsAs(req) } : req;
  if (d.limit !== undefined) {
    const wait = d.limit.wait(signer, view.action);
    if (wait > 0) return { kind: 'limited', retryAfter: wait, message: d.limit.message(wait) };
  }
  const nonceRefused = nonceWindowRefusal(d, req, signer);
  if (nonceRefused !== null) return { kind: 'rejected', error: nonceRefused };
  if (req.expiresAfter !== undefined && req.expiresAfter !== null && req.expiresAfter < d.now()) {
    return { kind: 'rejected', error: exchangeError('INVALID_ACTION', `Action expired: expiresAfter ${req.expiresAfter} is in the past`) };
  }
  const gated = d.gate?.(view) ?? null;
  if (gated !== null) return { kind: 'rejected', error: gated };
  if (d.mempool.full()) return { kind: 'unavailable', message: 'Mempool full, retry shortly' };
  const bytes = tx?.bytes ?? encodeRequest(req);
  const pending = d.mempool.add({
    bytes, hash: tx?.hash ?? txHash(bytes), signer, nonce: req.nonce, req,
    ...(r.recovered === undefined ? {} : { recovered: r.recovered }), ...(tx?.leaf === undefined ? {} : { leaf: tx.leaf }),
  });
  // The action binding's address, which a peer's admission recovers first: its hint (not for the
  // dialect, whose addresses are recovered under each chain).
  const first = req.dialect === undefined ? r.recovered?.addresses[0] : undefined;
  d.onAdmitted(bytes, first ?? undefined);
  return pending.then((result) => (result === null ? { kind: 'unavailable', message: 'Node halted before the block with this action committed' } : { kind: 'executed', result }));
}

/** The state machine's action a dialect request runs as (its own action when it does not translate: execution refuses it). */
function runsAs(req: ExchangeRequest): unknown {
  const t = svcActionOf(req.action, req.nonce);
  return 'error' in t ? req.action : t.action;
}

/** Why the recovered addresses do not make a known signer (no signature, not activated, not an agent), or null. */
function signerRefusal(d: Pick<AdmissionDeps, 'auth'>, req: ExchangeRequest, seen: readonly string[], signer: string | null): ExchangeError | null {
  if (req.dialect === 'hyperliquid' && (d.auth.hyperliquid ?? null) === null) {
    return exchangeError('INVALID_SIGNATURE', 'the Hyperliquid dialect is not enabled on this network (genesis auth.hyperliquidChains)');
  }
  if (seen.length === 0) return exchangeError('INVALID_SIGNATURE');
  if (signer !== null) return null;
  const recovered = seen.join(' or ');
  const hint = `recovered signer ${recovered}; expected ${req.dialect === 'hyperliquid' ? hyperliquidSigningHint(d.auth.hyperliquid) : signingHint(d.auth)}`;
  const code = req.vaultAddress === null ? 'ACCOUNT_NOT_ACTIVATED' : 'AGENT_NOT_AUTHORIZED';
  return exchangeError(code, undefined, { signer: seen[0] ?? '', hint });
}

/** The nonce against the window of the node clock, the mempool and the signer's used nonces in state, or null. */
function nonceWindowRefusal(d: Pick<AdmissionDeps, 'now' | 'nonceWindowMs' | 'mempool' | 'exchange'>, req: ExchangeRequest, signer: string): ExchangeError | null {
  const now = d.now();
  if (req.nonce < now - d.nonceWindowMs) return exchangeError('NONCE_TOO_OLD', undefined, { nonce: req.nonce, serverTime: now });
  if (req.nonce > now + d.nonceWindowMs) return exchangeError('NONCE_IN_FUTURE', undefined, { nonce: req.nonce, serverTime: now });
  if (d.mempool.hasNonce(signer, req.nonce)) return exchangeError('NONCE_USED', undefined, { nonce: req.nonce });
  const refusal = nonceRefusal(d.exchange.state.nonces.get(signer), req.nonce);
  return refusal === null ? null : { ...refusal, details: { nonce: req.nonce } };
}

/**
 * The checks of `admit` up to the mempool, for a signed request that never enters a block (a node-local
 * action such as creating an API key): the signer under every allowed binding (recovered off the
 * event loop, without encoding a transaction), activated or an approved agent of `vaultAddress`,
 * and the nonce within the window and not used on `/exchange`. Whether the nonce was used before
 * for the same node-local action is the caller's record.
 */
export async function verifySigned(d: Pick<AdmissionDeps, 'auth' | 'recovery' | 'exchange' | 'mempool' | 'now' | 'nonceWindowMs'>, req: ExchangeRequest): Promise<SignedVerdict> {
  const seen: string[] = [];
  let signer: string | null = null;
  for (const binding of allowedBindings(d.auth)) {
    const address = await d.recovery.recover(req, binding);
    if (address === null) continue;
    seen.push(address);
    signer = knownSigner(d.exchange, [{ address }], req.vaultAddress);
    if (signer !== null) break;
  }
  const refused = signerRefusal(d, req, seen, signer);
  if (refused !== null || signer === null) return { kind: 'rejected', error: refused ?? exchangeError('INVALID_SIGNATURE') };
  const nonceRefused = nonceWindowRefusal(d, req, signer);
  return nonceRefused === null ? { kind: 'ok', signer } : { kind: 'rejected', error: nonceRefused };
}
