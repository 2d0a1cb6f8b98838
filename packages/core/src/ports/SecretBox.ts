import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** A sealed value could not be opened (wrong key, corrupted row). Never carries the value or the key. */
export class SecretUnavailable extends Schema.TaggedError<SecretUnavailable>()("SecretUnavailable", {
  reason: Schema.Literals(["malformed", "decrypt-failed", "bad-key"])
}) {
  override get message() {
    return `secret unavailable: ${this.reason}`
  }
}

/**
 * Encryption at rest for secrets the service must read back: webhook endpoint URLs and signing
 * secrets (spec 2). The adapters implement it with AES-256-GCM over WebCrypto (`SecretBox`).
 */
export class SecretBox extends Context.Service<SecretBox, {
  readonly seal: (plaintext: string) => Effect.Effect<string>
  readonly open: (sealed: string) => Effect.Effect<string, SecretUnavailable>
}>()("@image-policy/core/SecretBox") {}
