// The part of sodium-native (libsodium's N-API binding, no bundled types) this project uses.
declare module 'sodium-native' {
  /** True when `signature` is `publicKey`'s Ed25519 signature of `message`. */
  export function crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  const sodium: { crypto_sign_verify_detached: typeof crypto_sign_verify_detached };
  export default sodium;
}
