// API keys (`/v1/api-keys`): node-local credentials, never in consensus state. An address creates
// one with an EIP-712 signed request (the same signature check as `/exchange`, without a block);
// the answer carries the secret once. Listing and revoking are HMAC-signed with a key of the same
// address (hmac.ts). A valid key also lifts historical reads to the authenticated or staker tier
// (limits.ts). The store is declared here and supplied by node/ (node/api-keys.ts).
import { normalizeAddress, type Address } from '../primitives/index.ts';
import type { NodeApi } from './api.ts';
import { HttpError, badRequest, httpErrorOf } from './http-errors.ts';
import { HMAC_HEADERS, checkHmacTimestamp, hmacMatches, hmacMessage, type HmacHeaders } from './hmac.ts';
import { MAX_ACTION_DEPTH, jsonDepth, requireField, signedFields } from './request-checks.ts';

export interface ApiKeyRecord {
  /** The public key id: 32 hex digits. */
  readonly apiKey: string;
  readonly address: Address;
  readonly name: string;
  /** Unix ms. */
  readonly createdAt: number;
  /** Unix ms; null while the key is valid. */
  readonly revokedAt: number | null;
}

export interface ApiKeyStore {
  /** A new key of the address, and its secret (given to the client once, never stored). */
  create(address: Address, name: string, now: number): Promise<{ record: ApiKeyRecord; secret: string }>;
  get(apiKey: string): ApiKeyRecord | undefined;
  /** The key's secret (derived, not stored); null when the key is unknown. */
  secretOf(apiKey: string): string | null;
  /** The address's keys, oldest first, revoked ones included. */
  list(address: Address): ApiKeyRecord[];
  /** Marks the key revoked (idempotent); undefined when it is unknown. */
  revoke(apiKey: string, now: number): Promise<ApiKeyRecord | undefined>;
  /**
   * Records the nonce of a create request by this signer; false when the signer used it before
   * (kept for the nonce window, across restarts).
   */
  useNonce(signer: Address, nonce: number, now: number): Promise<boolean>;
}

/** Valid (not revoked) keys one address may hold at once. */
export const MAX_ACTIVE_KEYS_PER_ADDRESS = 50;
/** Longest key name, characters. */
export const MAX_KEY_NAME = 64;

const API_KEY_RE = /^[0-9a-f]{32}$/;

const hasControlCharacter = (s: string): boolean => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** A request as the key endpoints need it. */
export interface SignedHttpRequest {
  readonly method: string;
  /** The path as sent, with its query string. */
  readonly pathWithQuery: string;
  readonly body: Uint8Array;
  readonly hmac: HmacHeaders;
}

/**
 * The valid key that signed the request, or 401: a missing header, a timestamp outside the
 * 30-second window (with `details {server_time, provided}`), an unknown key, a wrong signature,
 * a revoked key (in that order). The timestamp is checked first, so a client with a wrong clock
 * learns it at once.
 */
export function authenticateApiKey(store: ApiKeyStore, req: SignedHttpRequest, nowMs: number): ApiKeyRecord {
  const { key, sign, timestamp } = req.hmac;
  for (const [header, value] of [[HMAC_HEADERS.key, key], [HMAC_HEADERS.sign, sign], [HMAC_HEADERS.timestamp, timestamp]] as const) {
    if (value === '') throw new HttpError('unauthorized', `Missing header ${header.toUpperCase()}`, { field: header.toUpperCase() });
  }
  checkHmacTimestamp(timestamp, nowMs);
  const record = API_KEY_RE.test(key) ? store.get(key) : undefined;
  const secret = record === undefined ? null : store.secretOf(key);
  if (record === undefined || secret === null) throw new HttpError('unauthorized', 'Unknown API key');
  if (!hmacMatches(secret, hmacMessage(timestamp, req.method, req.pathWithQuery, req.body), sign)) {
    throw new HttpError('unauthorized', 'Invalid signature', {
      hint: 'EX-API-SIGN = base64(HMAC-SHA256(secret, EX-API-TIMESTAMP + METHOD + path with query + raw body)), the secret string as the HMAC key',
    });
  }
  // Only the key's holder learns that it was revoked.
  if (record.revokedAt !== null) throw new HttpError('unauthorized', 'API key revoked');
  return record;
}

/** A key as listed (never its secret). */
export function keyView(r: ApiKeyRecord) {
  return {
    api_key: r.apiKey,
    address: r.address,
    name: r.name,
    created_at: new Date(r.createdAt).toISOString(),
    revoked: r.revokedAt !== null,
    revoked_at: r.revokedAt === null ? null : new Date(r.revokedAt).toISOString(),
  };
}

/**
 * POST /v1/api-keys: `{action: {type: "createApiKey", name?}, nonce, signature, vaultAddress?}`,
 * signed like `/exchange`. The key belongs to the account signed for: the signer, or
 * `vaultAddress` when an approved agent signs. The nonce must lie in the 60-second window and is
 * usable once (also refused when the signer used it on `/exchange`).
 */
export async function createApiKey(api: NodeApi, store: ApiKeyStore, body: Record<string, unknown>, now: number) {
  if (jsonDepth(body.action, MAX_ACTION_DEPTH) > MAX_ACTION_DEPTH) throw badRequest('Invalid field action: nested too deeply', { field: 'action' });
  const action = requireField(body, 'action');
  if (typeof action !== 'object' || Array.isArray(action)) throw badRequest('Invalid field action: expected an object', { field: 'action' });
  const a = action as Record<string, unknown>;
  if (a.type !== 'createApiKey') throw badRequest('Invalid field action.type: expected "createApiKey"', { field: 'action.type' });
  const name = a.name ?? '';
  if (typeof name !== 'string' || name.length > MAX_KEY_NAME || hasControlCharacter(name)) {
    throw badRequest(`Invalid field action.name: a string of at most ${MAX_KEY_NAME} characters without control characters`, { field: 'action.name' });
  }
  const { nonce, signature, vaultAddress } = signedFields(body);
  const verdict = await api.verifySigned({ action, nonce, signature, vaultAddress });
  if (verdict.kind === 'rejected') throw httpErrorOf(verdict.error) ?? new HttpError('unauthorized', verdict.error.message, verdict.error.details);
  const owner = vaultAddress ?? verdict.signer;
  if (store.list(owner).filter((k) => k.revokedAt === null).length >= MAX_ACTIVE_KEYS_PER_ADDRESS) {
    throw badRequest(`At most ${MAX_ACTIVE_KEYS_PER_ADDRESS} valid API keys per address: revoke one first`);
  }
  if (!(await store.useNonce(verdict.signer, nonce, now))) throw new HttpError('unauthorized', 'Nonce already used', { nonce });
  const { record, secret } = await store.create(owner, name, now);
  return { api_key: record.apiKey, secret, address: record.address, name: record.name, created_at: new Date(record.createdAt).toISOString() };
}

/** GET /v1/api-keys/:address: the address's keys; only a key of that address may ask (403). */
export function listApiKeys(store: ApiKeyStore, caller: ApiKeyRecord, rawAddress: string) {
  const address = normalizeAddress(rawAddress);
  if (address === null) throw badRequest('Invalid address: expected a 0x-prefixed 20-byte hex address', { field: 'address' });
  if (address !== caller.address) throw new HttpError('forbidden', 'An API key may list only the keys of its own address');
  return { address, api_keys: store.list(address).map(keyView) };
}

/** POST /v1/api-keys/:api_key/revoke: a key of the same address revokes it (itself included). */
export async function revokeApiKey(store: ApiKeyStore, caller: ApiKeyRecord, apiKey: string, now: number) {
  const target = API_KEY_RE.test(apiKey) ? store.get(apiKey) : undefined;
  if (target === undefined) throw new HttpError('not_found', `Unknown API key: ${apiKey}`);
  if (target.address !== caller.address) throw new HttpError('forbidden', 'An API key may revoke only keys of its own address');
  const revoked = await store.revoke(apiKey, now);
  if (revoked === undefined) throw new HttpError('not_found', `Unknown API key: ${apiKey}`);
  return keyView(revoked);
}
