// Calls and gas estimates against a committed block's state, on a throw-away copy of it: the
// transaction is run as if signed by `from` (no signature, nonce or balance checks), with state
// overrides applied first. Nothing here touches the chain's own state.
import { createBlock, type Block } from '@ethereumjs/block';
import { createTx, type TypedTransaction } from '@ethereumjs/tx';
import type {
  Address} from '@ethereumjs/util';
import { bigIntToBytes, createAddressFromString, createZeroAddress, hexToBytes, setLengthLeft,
} from '@ethereumjs/util';
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { EvmChain } from './chain.ts';
import type { Tracer } from './trace.ts';

export interface CallRequest {
  readonly from?: string;
  readonly to?: string | null;
  readonly gas?: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly value?: bigint;
  readonly data?: string;
  /** EIP-2930 access list (makes the run a type-1 or type-2 transaction). */
  readonly accessList?: readonly { readonly address: string; readonly storageKeys: readonly string[] }[];
}

export interface AccountOverride {
  readonly balance?: bigint;
  readonly nonce?: bigint;
  readonly code?: string;
  /** Replaces the whole storage. */
  readonly state?: Readonly<Record<string, string>>;
  /** Changes only the slots named. */
  readonly stateDiff?: Readonly<Record<string, string>>;
}

export type StateOverrides = Readonly<Record<string, AccountOverride>>;

/** EIP-7825 (Osaka): no transaction may ask for more gas than 2^24. */
export const MAX_TX_GAS = 16_777_216n;

export class CallSession {
  private constructor(
    private readonly chain: EvmChain,
    readonly vm: VM,
    /** The block context runs see (eth_simulateV1 moves it from one simulated block to the next). */
    public block: Block,
  ) {}

  /** A session over the state after `at`, in the context of that block. */
  static async open(chain: EvmChain, at: Block, overrides: StateOverrides | undefined, withFees: boolean): Promise<CallSession> {
    const vm = await chain.vmAt(at.header.stateRoot, Number(at.header.number));
    if (overrides !== undefined) await applyOverrides(vm, overrides);
    // Without fee fields a call runs with base fee 0, as geth does, so `from` needs no funds.
    const header = { ...at.header.toJSON(), baseFeePerGas: withFees ? at.header.baseFeePerGas : 0n };
    const block = createBlock({ header }, { common: chain.common });
    return new CallSession(chain, vm, block);
  }

  get gasCap(): bigint {
    const limit = this.block.header.gasLimit;
    return limit < MAX_TX_GAS ? limit : MAX_TX_GAS;
  }

  /** Applies state overrides to the session's state (eth_simulateV1, per simulated block). */
  applyOverrides(overrides: StateOverrides): Promise<void> {
    return applyOverrides(this.vm, overrides);
  }

  /** Runs the request with `gas` and keeps its changes (eth_simulateV1's sequence of calls). */
  async runKept(req: CallRequest, gas: bigint, validate: boolean): Promise<RunTxResult> {
    // Under an outer checkpoint never committed: kept changes stay in memory, never in the trie's database.
    if (!this.holding) {
      await this.vm.stateManager.checkpoint();
      this.holding = true;
    }
    const tx = this.tx(req, gas);
    return runTx(this.vm, { tx, block: this.block, skipNonce: !validate, skipBalance: !validate, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
  }

  /** Runs the request with `gas`, leaving the session's state as it was; `tracer` listens to it. */
  async run(req: CallRequest, gas: bigint, tracer?: Tracer): Promise<RunTxResult> {
    const tx = this.tx(req, gas);
    const sm = this.vm.stateManager;
    await sm.checkpoint();
    tracer?.attach(this.vm.evm);
    try {
      return await runTx(this.vm, { tx, block: this.block, skipNonce: true, skipBalance: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true, ...(this.accessList ? { reportAccessList: true } : {}) });
    } finally {
      tracer?.detach(this.vm.evm);
      await sm.revert();
    }
  }

  private holding = false;

  /** Whether runs report the accounts and slots they touched (eth_createAccessList). */
  accessList = false;

  private tx(req: CallRequest, gas: bigint): TypedTransaction {
    const from = req.from === undefined ? createZeroAddress() : createAddressFromString(req.from);
    const base = {
      gasLimit: gas,
      to: req.to === undefined || req.to === null ? undefined : createAddressFromString(req.to),
      value: req.value ?? 0n,
      data: req.data === undefined ? new Uint8Array(0) : hexToBytes(req.data as `0x${string}`),
    };
    const fee = req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined
      ? { type: 2, maxFeePerGas: req.maxFeePerGas ?? req.maxPriorityFeePerGas ?? 0n, maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n }
      : { type: req.accessList === undefined ? 0 : 1, gasPrice: req.gasPrice ?? 0n };
    const list = req.accessList === undefined ? {} : { accessList: req.accessList.map((e) => ({ address: e.address as `0x${string}`, storageKeys: e.storageKeys.map((k) => k as `0x${string}`) })) };
    const tx = createTx({ ...base, ...fee, ...list }, { common: this.chain.txCommon, freeze: false });
    // Impersonation: the unsigned transaction is run as if `from` had signed it.
    tx.getSenderAddress = () => from;
    return tx;
  }
}

async function applyOverrides(vm: VM, overrides: StateOverrides): Promise<void> {
  const sm = vm.stateManager;
  for (const [addr, o] of Object.entries(overrides)) {
    const address: Address = createAddressFromString(addr);
    if (o.balance !== undefined || o.nonce !== undefined) {
      await sm.modifyAccountFields(address, { ...(o.balance === undefined ? {} : { balance: o.balance }), ...(o.nonce === undefined ? {} : { nonce: o.nonce }) });
    }
    if (o.code !== undefined) await sm.putCode(address, hexToBytes(o.code as `0x${string}`));
    if (o.state !== undefined) await sm.clearStorage(address);
    for (const [slot, value] of Object.entries({ ...(o.state ?? {}), ...(o.stateDiff ?? {}) })) {
      await sm.putStorage(address, setLengthLeft(bigIntToBytes(BigInt(slot)), 32), setLengthLeft(bigIntToBytes(BigInt(value)), 32));
    }
  }
}
