// consensus/: block format, the consensus/application seam, validator keys, and engines.
export * from './block.ts';
export type { ConsensusApp, ConsensusEngine, CommittedHead, ValidatorSource } from './engine.ts';
export { SoloEngine, type SoloOptions } from './solo.ts';
export {
  generateValidatorKey, validatorKeyFromPem, validatorKeyFromSeed, verifyValidatorSignature, type ValidatorKey,
} from './validator-key.ts';
export * from './types.ts';
export * from './signing.ts';
export * from './vote-keeper.ts';
export * from './round-state.ts';
export * from './driver.ts';
export * from './certificate.ts';
export * from './evidence.ts';
export * from './block-codec.ts';
export * from './sign-guard.ts';
export * from './wal.ts';
export * from './replica.ts';
export * from './wire.ts';
export * from './bft-engine.ts';
export { Libp2pTransport, peerIdOfSeed, FrameDecoder, frame, type P2pOptions } from './p2p.ts';
