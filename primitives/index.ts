// Shared primitives: exact decimals, bytes and addresses, canonical JSON, hashing and signatures.
export * from './decimal.ts';
export * from './bytes.ts';
export * from './canonical-json.ts';
export * from './canonical-bytes.ts';
export { isPlain } from './canonical-shape.ts';
export * from './crypto.ts';
export * from './eip712.ts';
export * from './ed25519.ts';
export * from './stage-meter.ts';
export * from './metrics.ts';
export * from './level-write.ts';
