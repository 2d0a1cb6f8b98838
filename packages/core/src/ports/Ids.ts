import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { IdOfKind, Kind } from "../Id.js"

/**
 * Source of identifiers and secret randomness. The core never calls `Math.random` or
 * `crypto`: adapters provide a cryptographically secure implementation, tests a seeded one.
 */
export class Ids extends Context.Service<Ids, {
  /** A fresh random id of the given kind, e.g. `repo_01h…`. */
  readonly next: <K extends Kind>(kind: K) => Effect.Effect<IdOfKind[K]>
  /** `n` cryptographically secure random bytes (API key secrets, signing secrets). */
  readonly randomBytes: (n: number) => Effect.Effect<Uint8Array>
}>()("@image-policy/core/Ids") {}
