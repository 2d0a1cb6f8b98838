/**
 * A connection's secrets (its API token, the secret that signs its push webhooks): kept in the
 * store sealed with the core's `SecretBox` and opened for one use only, or named by an environment
 * variable. The sealed value wins when a row holds both. Why a secret is unavailable is answered
 * as a reason for the log; the value itself is never logged or answered.
 */
import { type SecretBox } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as ProviderHttp from "./ProviderHttp.js"

export interface SecretSource {
  /** The `v1.…` sealed form, as stored. */
  readonly sealed?: string | undefined
  /** The environment variable that holds the value. */
  readonly envName?: string | undefined
}

export type SecretRead =
  | { readonly _tag: "Found"; readonly value: string; readonly source: string }
  /** `reason` for the log: `not-configured`, `no-secret-box`, `sealed-<name>-<SecretBox reason>`, `empty`. */
  | { readonly _tag: "Missing"; readonly reason: string }

const missing = (reason: string): SecretRead => ({ _tag: "Missing", reason })

/** Opens or reads the secret now; empty or blank values count as missing. `name` goes into reasons (`token`). */
export const read = (
  name: string,
  source: SecretSource,
  env: ProviderHttp.Env,
  box: typeof SecretBox.Service | undefined
): Effect.Effect<SecretRead> => {
  const found = (value: string, from: string): SecretRead => value.trim() === "" ? missing("empty") : { _tag: "Found", value, source: from }
  const sealed = source.sealed
  if (sealed !== undefined) {
    if (box === undefined) return Effect.succeed(missing("no-secret-box"))
    return box.open(sealed).pipe(
      Effect.map((value) => found(value, `sealed:${sealed}`)),
      Effect.catch((e) => Effect.succeed(missing(`sealed-${name}-${e.reason}`)))
    )
  }
  if (source.envName === undefined) return Effect.succeed(missing("not-configured"))
  const value = env(source.envName)
  return Effect.succeed(value === undefined ? missing("not-configured") : found(value, `env:${source.envName}`))
}
