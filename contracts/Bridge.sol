// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The svc bridge on an external EVM chain. It holds deposited USDC and releases a withdrawal
/// only on signatures of validators holding more than 2/3 of the voting power it knows, over the
/// withdrawal's whole content (EIP-712 `Withdrawal`, bound to this chain and this contract), each
/// withdrawal id at most once and not after its deadline (after which svc refunds it).
contract SvcBridge {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant WITHDRAWAL_TYPEHASH =
        keccak256("Withdrawal(uint64 serviceChainId,bytes32 id,address destination,uint256 amount,uint64 deadline)");
    bytes32 private constant VALIDATOR_SET_TYPEHASH =
        keccak256("ValidatorSet(uint64 serviceChainId,uint64 nonce,bytes32 signersHash,bytes32 powersHash)");
    /// Signatures with s above half the curve order are refused (one signature per key and digest).
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// The bridged token (USDC, 6 decimals).
    address public immutable token;
    /// The svc chain whose validators sign (its chain id, 42069 on a devnet).
    uint64 public immutable serviceChainId;

    /// Validator signers in ascending address order, and their voting power.
    address[] private signerList;
    mapping(address => uint256) public powerOf;
    uint256 public totalPower;
    /// Number of validator-set updates applied.
    uint64 public validatorSetNonce;

    /// Withdrawal ids already paid.
    mapping(bytes32 => bool) public withdrawn;
    /// Deposits so far; the next deposit's id.
    uint64 public depositCount;

    event Deposit(uint64 indexed depositId, address indexed from, address indexed user, uint256 amount);
    event Withdrawal(bytes32 indexed id, address indexed destination, uint256 amount);
    event ValidatorSetUpdated(uint64 indexed nonce, address[] signers, uint256[] powers);

    constructor(address token_, uint64 serviceChainId_, address[] memory signers_, uint256[] memory powers_) {
        require(token_.code.length > 0, "token is not a contract");
        token = token_;
        serviceChainId = serviceChainId_;
        _setValidators(signers_, powers_);
    }

    function signers() external view returns (address[] memory list, uint256[] memory powers) {
        list = signerList;
        powers = new uint256[](list.length);
        for (uint256 i = 0; i < list.length; i++) powers[i] = powerOf[list[i]];
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("SvcBridge"), keccak256("1"), block.chainid, address(this)));
    }

    /// Takes `amount` of the token from the caller (approve it first) for svc address `user`.
    function deposit(uint256 amount, address user) external {
        require(amount > 0, "amount is zero");
        require(user != address(0), "user is the zero address");
        uint256 before = _balance();
        _call(abi.encodeWithSelector(0x23b872dd, msg.sender, address(this), amount)); // transferFrom
        require(_balance() - before == amount, "token moved a different amount");
        emit Deposit(depositCount++, msg.sender, user, amount);
    }

    /// Pays withdrawal `id` to `destination`; anyone may submit it with the validators' signatures
    /// in ascending order of their signers' addresses.
    function withdraw(bytes32 id, address destination, uint256 amount, uint64 deadline, bytes[] calldata signatures) external {
        require(!withdrawn[id], "already withdrawn");
        require(block.timestamp <= deadline, "deadline passed");
        require(destination != address(0), "destination is the zero address");
        bytes32 structHash = keccak256(abi.encode(WITHDRAWAL_TYPEHASH, serviceChainId, id, destination, amount, deadline));
        _requireQuorum(_digest(structHash), signatures);
        withdrawn[id] = true;
        _call(abi.encodeWithSelector(0xa9059cbb, destination, amount)); // transfer
        emit Withdrawal(id, destination, amount);
    }

    /// Replaces the validator set, signed by more than 2/3 of the current one.
    function updateValidatorSet(address[] calldata newSigners, uint256[] calldata newPowers, uint64 nonce, bytes[] calldata signatures) external {
        require(nonce == validatorSetNonce + 1, "wrong validator set nonce");
        bytes32 structHash = keccak256(abi.encode(
            VALIDATOR_SET_TYPEHASH, serviceChainId, nonce, keccak256(abi.encodePacked(newSigners)), keccak256(abi.encodePacked(newPowers))
        ));
        _requireQuorum(_digest(structHash), signatures);
        for (uint256 i = 0; i < signerList.length; i++) delete powerOf[signerList[i]];
        _setValidators(newSigners, newPowers);
        validatorSetNonce = nonce;
        emit ValidatorSetUpdated(nonce, newSigners, newPowers);
    }

    function _setValidators(address[] memory list, uint256[] memory powers) private {
        require(list.length > 0 && list.length == powers.length, "bad validator set");
        uint256 total = 0;
        address last = address(0);
        for (uint256 i = 0; i < list.length; i++) {
            require(list[i] > last, "signers not ascending");
            require(powers[i] > 0, "zero power");
            last = list[i];
            powerOf[list[i]] = powers[i];
            total += powers[i];
        }
        signerList = list;
        totalPower = total;
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), structHash));
    }

    function _requireQuorum(bytes32 digest, bytes[] calldata signatures) private view {
        uint256 signed = 0;
        address last = address(0);
        for (uint256 i = 0; i < signatures.length; i++) {
            address s = _recover(digest, signatures[i]);
            require(s > last, "signatures not in ascending signer order");
            last = s;
            signed += powerOf[s];
        }
        require(signed * 3 > totalPower * 2, "not enough voting power");
    }

    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address) {
        require(sig.length == 65, "signature is not 65 bytes");
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        require(uint256(s) <= HALF_N, "signature s is high");
        require(v == 27 || v == 28, "signature v is not 27 or 28");
        address signer = ecrecover(digest, v, r, s);
        require(signer != address(0), "bad signature");
        return signer;
    }

    function _balance() private view returns (uint256) {
        (bool ok, bytes memory data) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this))); // balanceOf
        require(ok && data.length >= 32, "balanceOf failed");
        return abi.decode(data, (uint256));
    }

    /// A token call that must succeed and return true or nothing (tokens that return no bool).
    function _call(bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "token transfer failed");
    }
}
