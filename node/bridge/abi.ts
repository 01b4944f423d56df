// The bridge contract's interface as the relayer uses it (held equal to the compiled ABI of
// contracts/Bridge.sol by a test, so the node needs no compiler to run).
import { Interface } from 'ethers';

export const BRIDGE_ABI = [
  'event Deposit(uint64 indexed depositId, address indexed from, address indexed user, uint256 amount)',
  'event Withdrawal(bytes32 indexed id, address indexed destination, uint256 amount)',
  'event ValidatorSetUpdated(uint64 indexed nonce, address[] signers, uint256[] powers)',
  'function signers() view returns (address[] list, uint256[] powers)',
  'function validatorSetNonce() view returns (uint64)',
  'function updateValidatorSet(address[] newSigners, uint256[] newPowers, uint64 nonce, bytes[] signatures)',
  'function deposit(uint256 amount, address user)',
  'function withdraw(bytes32 id, address destination, uint256 amount, uint64 deadline, bytes[] signatures)',
  'function withdrawn(bytes32) view returns (bool)',
  'function token() view returns (address)',
  'function serviceChainId() view returns (uint64)',
] as const;

export const bridgeInterface = new Interface(BRIDGE_ABI);
export const DEPOSIT_TOPIC = bridgeInterface.getEvent('Deposit')?.topicHash as string;
export const WITHDRAWAL_TOPIC = bridgeInterface.getEvent('Withdrawal')?.topicHash as string;
export const VALIDATOR_SET_TOPIC = bridgeInterface.getEvent('ValidatorSetUpdated')?.topicHash as string;
