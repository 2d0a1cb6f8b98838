/**
 * The stores' transaction: makes a workflow's state change, its audit row and its outbox rows
 * atomic (ARCHITECTURE "Data flow"): if the effect fails (or dies, or is interrupted), nothing of
 * it is kept. Every store of one layer writes through the same transaction, whichever store the
 * write goes to.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export class Transaction extends Context.Service<Transaction, {
  /** Runs `effect` atomically. Nested calls join the outer transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("@image-policy/core/Transaction") {}

/** `effect` in one transaction of the stores (joining the caller's, when it runs in one). */
export const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Transaction> =>
  Transaction.use((t) => t.transaction(effect))
