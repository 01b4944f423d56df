// The part of sodium-native (libsodium's N-API binding, no bundled types) this project uses.
declare module 'sodium-native' {
  /** True when `signature` is `publicKey`'s Ed25519 signature of `message`. */
  export function crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /** Writes `secretKey`'s (seed then public key, 64 bytes) Ed25519 signature of `message` into `signature` (64 bytes). */
  export function crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  const sodium: { crypto_sign_verify_detached: typeof crypto_sign_verify_detached; crypto_sign_detached: typeof crypto_sign_detached };
  export default sodium;
}
