// The bridge contract's interface as human-readable ABI text (held equal to the compiled ABI of
// contracts/Bridge.sol by a test, so the node needs no compiler to run). Apart from its ethers
// Interface (abi.ts), so the node's public surface exports it without loading ethers.
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
