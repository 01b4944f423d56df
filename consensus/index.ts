// consensus/: block format, the consensus/application seam, validator keys, and engines.
export * from './block.ts';
export type { ConsensusApp, ConsensusEngine, CommittedHead } from './engine.ts';
export { SoloEngine, type SoloOptions } from './solo.ts';
export { generateValidatorKey, validatorKeyFromPem, verifyValidatorSignature, type ValidatorKey } from './validator-key.ts';
