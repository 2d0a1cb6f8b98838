import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * Hashes API key secrets for storage and lookup. The adapters implement it with SHA-256 over
 * WebCrypto (`ApiKeyHash`); the core never sees a stored secret, only its hash.
 */
export class SecretHasher extends Context.Service<SecretHasher, {
  readonly hash: (secret: string) => Effect.Effect<string>
}>()("@image-policy/core/SecretHasher") {}
