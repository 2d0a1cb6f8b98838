import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * Hashes and checks the passwords members sign in with (issue 17). Unlike API keys (32 random
 * bytes, `SecretHasher`), passwords are chosen by people and guessable, so the adapter uses a slow,
 * memory-hard KDF (scrypt, adapters `ScryptPasswordHasher`) and encodes its parameters with each
 * hash, so they can be raised later without invalidating stored passwords. The core never sees a
 * password after it is hashed; nothing here is logged.
 */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  /** An encoded hash of `password` with a fresh random salt and the current parameters. */
  readonly hash: (password: string) => Effect.Effect<string>
  /**
   * Whether `password` matches `encoded`. `null` (no such account, or no password set) still runs
   * the KDF, against a dummy hash, and answers `false`: a wrong email takes as long as a wrong password.
   */
  readonly verify: (password: string, encoded: string | null) => Effect.Effect<boolean>
}>()("@image-policy/core/PasswordHasher") {}
