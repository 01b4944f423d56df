// POST /exchange: signs each action with a fresh nonce and sends it. Typed helpers return the
// response's data and throw ActionError when the node answers `status: err`; per-order failures
// stay values in `statuses`, as the spec has them.
import { ActionError } from './errors.ts';
import type { HttpTransport } from './http.ts';
import type { NonceSource } from './nonce.ts';
import { signRequest, ZERO_ADDRESS, type Signer, type SigningOptions } from './signing.ts';
import type {
  ApiKeyCreated, CancelStatus, ExchangeAction, ExchangeResponse, Grouping, OrderStatus, OrderWire, PairDeployResult,
  SignedRequest, SpotDeployPairAction, SpotDeployTokenAction, TokenDeployResult, WithdrawResult,
} from './types.ts';

export interface ExchangeClientOptions extends SigningOptions {
  readonly signer: Signer;
  readonly nonces: NonceSource;
  /** Set when an agent signs for a main address (or a master for its sub-account). */
  readonly vaultAddress?: string | null;
}

export class ExchangeClient {
  readonly signer: Signer;
  readonly vaultAddress: string | null;

  constructor(
    readonly http: HttpTransport,
    private readonly opts: ExchangeClientOptions,
  ) {
    this.signer = opts.signer;
    this.vaultAddress = opts.vaultAddress ?? null;
  }

  /** The address whose account the actions act on. */
  get account(): string {
    return (this.vaultAddress ?? this.signer.address).toLowerCase();
  }

  /** Signs `action` with the next nonce (or the one given). */
  sign<A extends ExchangeAction>(action: A, nonce = this.opts.nonces.next()): Promise<SignedRequest<A>> {
    return signRequest(this.opts.signer, action, nonce, this.vaultAddress, this.opts);
  }

  /** Sends a signed request to a path taking `/exchange` bodies (`/exchange`, `/v1/orders`, `/v1/orders/cancel`). */
  sendSigned<D>(req: SignedRequest, path = '/exchange'): Promise<ExchangeResponse<D>> {
    return this.http.post<ExchangeResponse<D>>(path, req);
  }

  /** Signs and sends; the envelope as the node answered it. */
  async send<D = unknown>(action: ExchangeAction, path = '/exchange'): Promise<ExchangeResponse<D>> {
    return this.sendSigned<D>(await this.sign(action), path);
  }

  /** Signs and sends; the `data` of an `ok` answer, or ActionError with the node's message. */
  async submit<D = unknown>(action: ExchangeAction, path = '/exchange'): Promise<D> {
    return dataOf(await this.send<D>(action, path));
  }

  async order(orders: OrderWire[], grouping: Grouping = 'na', builder?: { b: string; f: number }): Promise<OrderStatus[]> {
    const action = builder === undefined ? { type: 'order' as const, orders, grouping } : { type: 'order' as const, orders, grouping, builder };
    return (await this.submit<{ statuses: OrderStatus[] }>(action)).statuses;
  }

  async cancel(cancels: { a: number; o: number }[]): Promise<CancelStatus[]> {
    return (await this.submit<{ statuses: CancelStatus[] }>({ type: 'cancel', cancels })).statuses;
  }

  async cancelByCloid(cancels: { asset: number; cloid: string }[]): Promise<CancelStatus[]> {
    return (await this.submit<{ statuses: CancelStatus[] }>({ type: 'cancelByCloid', cancels })).statuses;
  }

  /** Changes a resting order (by oid or cloid); resolves when the node accepted it. */
  async modify(oid: number | string, order: OrderWire): Promise<void> {
    await this.submit({ type: 'modify', oid, order });
  }

  async batchModify(modifies: { oid: number | string; order: OrderWire }[]): Promise<OrderStatus[]> {
    return (await this.submit<{ statuses: OrderStatus[] }>({ type: 'batchModify', modifies })).statuses;
  }

  async usdTransfer(destination: string, amount: string): Promise<void> {
    await this.submit({ type: 'usdTransfer', destination, amount });
  }

  withdraw(destination: string, amount: string, chainId?: number): Promise<WithdrawResult> {
    return this.submit<WithdrawResult>(chainId === undefined ? { type: 'withdraw', destination, amount } : { type: 'withdraw', destination, amount, chainId });
  }

  async updateLeverage(asset: number, leverage: number, isCross = true): Promise<void> {
    await this.submit({ type: 'updateLeverage', asset, isCross, leverage });
  }

  async updateIsolatedMargin(asset: number, isBuy: boolean, ntli: number): Promise<void> {
    await this.submit({ type: 'updateIsolatedMargin', asset, isBuy, ntli });
  }

  /** Authorizes `agentAddress` to sign for this account (main wallet only); `name` "" is the unnamed agent. */
  async approveAgent(agentAddress: string, name = ''): Promise<void> {
    const nonce = this.opts.nonces.next();
    await this.sendChecked(await this.sign({ type: 'approveAgent', agentAddress: agentAddress.toLowerCase(), agentName: name, nonce }, nonce));
  }

  /** Revokes the agent registered under `name` (approves the zero address under it). */
  revokeAgent(name = ''): Promise<void> {
    return this.approveAgent(ZERO_ADDRESS, name);
  }

  deployToken(fields: Omit<SpotDeployTokenAction, 'type' | 'deployType'>): Promise<TokenDeployResult> {
    return this.submit<TokenDeployResult>({ type: 'spotDeploy', deployType: 'token', ...fields });
  }

  deployPair(fields: Omit<SpotDeployPairAction, 'type' | 'deployType'>): Promise<PairDeployResult> {
    return this.submit<PairDeployResult>({ type: 'spotDeploy', deployType: 'pair', ...fields });
  }

  async spotSend(destination: string, token: string, amount: string): Promise<void> {
    await this.submit({ type: 'spotSend', destination, token, amount });
  }

  /** Cancels every open order at `time` (ms), or clears the schedule when absent. */
  async scheduleCancel(time?: number): Promise<void> {
    await this.submit(time === undefined ? { type: 'scheduleCancel' } : { type: 'scheduleCancel', time });
  }

  async noop(): Promise<void> {
    await this.submit({ type: 'noop' });
  }

  async approveBuilderFee(builder: string, maxFeeRate: string): Promise<void> {
    const nonce = this.opts.nonces.next();
    await this.sendChecked(await this.sign({ type: 'approveBuilderFee', builder, maxFeeRate, nonce }, nonce));
  }

  async createSubAccount(name: string): Promise<unknown> {
    return this.submit({ type: 'createSubAccount', name });
  }

  async subAccountTransfer(subAccountUser: string, isDeposit: boolean, usdMicro: number): Promise<void> {
    await this.submit({ type: 'subAccountTransfer', subAccountUser, isDeposit, usd: usdMicro });
  }

  async stakingDeposit(wei: number): Promise<void> {
    await this.submit({ type: 'cDeposit', wei });
  }

  async stakingWithdraw(wei: number): Promise<void> {
    await this.submit({ type: 'cWithdraw', wei });
  }

  async delegate(validator: string, wei: number, isUndelegate = false): Promise<void> {
    await this.submit({ type: 'tokenDelegate', validator, wei, isUndelegate });
  }

  async registerReferrer(code: string): Promise<void> {
    await this.submit({ type: 'registerReferrer', code });
  }

  async setReferrer(code: string): Promise<void> {
    await this.submit({ type: 'setReferrer', code });
  }

  /** `POST /v1/api-keys`: a node-local API key for this account; the secret is shown once. */
  async createApiKey(name = ''): Promise<ApiKeyCreated> {
    // Not an exchange action: the node checks its signature the same way, never executes it.
    const req = await this.sign({ type: 'createApiKey', name } as unknown as ExchangeAction);
    return this.http.post<ApiKeyCreated>('/v1/api-keys', req);
  }

  private async sendChecked(req: SignedRequest): Promise<void> {
    dataOf(await this.sendSigned(req));
  }
}

/** The data of an ok envelope; ActionError carrying the node's message otherwise. */
export function dataOf<D>(res: ExchangeResponse<D>): D {
  if (res.status === 'err') throw new ActionError(res.response);
  return res.response.data as D;
}
