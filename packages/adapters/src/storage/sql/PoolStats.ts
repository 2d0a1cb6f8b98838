/**
 * How busy a SQL store's connections are, for the host's metrics (`image_policy_db_pool_*`). A
 * SQL client layer provides it beside its `SqlClient`, and the SQL store passes it on with the
 * stores; the memory store has no connections and provides none (the reference stays undefined).
 *
 * PostgreSQL: `@effect/sql-pg` 4.0.5 keeps its pool private (no size, idle or waiter count), so
 * the reading comes from the server: this pool's sessions in `pg_stat_activity`, found by the
 * `application_name` the client gives every connection of this process. How many statements wait
 * for a free connection inside the process is not visible there, so `waiting` is unknown.
 * PGlite: one session behind a semaphore; the client counts the holders and the waiters itself.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export interface Reading {
  /** Connections the pool may open. */
  readonly max: number
  /** Open connections nobody is using. */
  readonly idle: number
  /** Open connections running a statement or holding a transaction. */
  readonly used: number
  /** Statements or transactions waiting for a connection; `undefined` when the client cannot tell. */
  readonly waiting: number | undefined
}

export interface PoolStats {
  /** A reading now; `undefined` when the store cannot be asked (e.g. the server does not answer). */
  readonly read: Effect.Effect<Reading | undefined>
}

/** Undefined for a store without connections (memory). */
export const PoolStats = Context.Reference<PoolStats | undefined>("@image-policy/adapters/PoolStats", {
  defaultValue: () => undefined
})
