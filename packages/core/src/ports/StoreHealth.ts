/**
 * What readiness asks of a store (`GET /readyz`): can it be queried now, and is its schema the one
 * this build expects. A store answers without failing: an unreachable store is a state to report,
 * not an error to recover from, and the answer never carries a connection string or a driver
 * message (readiness is served without a key).
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export interface StoreStatus {
  /** A cheap query answered. */
  readonly reachable: boolean
  /** Migrations this build knows that the store has not recorded (empty when current, or when not reachable). */
  readonly pendingMigrations: ReadonlyArray<string>
}

export class StoreHealth extends Context.Service<StoreHealth, {
  readonly check: Effect.Effect<StoreStatus>
}>()("@image-policy/core/StoreHealth") {}
