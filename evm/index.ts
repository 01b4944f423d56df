// evm/: the embedded EVM (ethereumjs) and its view of exchange state. Not wired yet: the devnet
// serves no JSON-RPC until the EVM issue lands; `--rpc-port` is accepted and reserved for it.
export {};
