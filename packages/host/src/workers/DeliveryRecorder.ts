/**
 * Group commit of the delivery worker's attempt records: what the lanes of one pass finish while
 * a `recordMany` statement is in flight goes to the store in the next one, so a store with round
 * trips (PostgreSQL) writes one statement for many attempts instead of one each, with no timer
 * and no wait when a single lane records (it writes at once, alone).
 *
 * `record` returns once its own record is committed (or failed with its batch), so a lane still
 * sends a destination's next delivery only after the previous one's outcome is stored, and an
 * attempt, its result and the delivery's next state still commit together (one statement).
 *
 * One lane leads at a time: the lane that finds no flush running writes every pending record,
 * then hands the lead to the first lane that queued meanwhile; each lane writes at most one batch.
 */
import type { AttemptRecord } from "@image-policy/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

export interface Recorder {
  readonly record: (record: AttemptRecord) => Effect.Effect<void>
  /** Records waiting for the batch in flight to end (for tests). */
  readonly queued: () => number
}

interface Entry {
  readonly record: AttemptRecord
  /**
   * true: recorded by another lane's batch; false: this lane leads the next batch. None for the
   * lane that leads at once (nothing to wait for: a synchronous store never makes another lane wait).
   */
  readonly done: Deferred.Deferred<boolean> | undefined
}

export const make = (recordMany: (records: ReadonlyArray<AttemptRecord>) => Effect.Effect<void>): Recorder => {
  let pending: Array<Entry> = []
  let flushing = false

  const flush = Effect.suspend(() => {
    const batch = pending
    pending = []
    return recordMany(batch.map((e) => e.record)).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          const result = Exit.isSuccess(exit) ? Effect.succeed(true) : Effect.failCause(exit.cause)
          for (const e of batch) if (e.done !== undefined) Deferred.doneUnsafe(e.done, result)
          // the lead passes on even after a failure, so the waiting lanes are never stranded
          const next = pending[0]
          if (next === undefined) flushing = false
          else Deferred.doneUnsafe(next.done!, Effect.succeed(false))
        })
      )
    )
  })

  const record = (record: AttemptRecord): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (!flushing) {
        flushing = true
        pending.push({ record, done: undefined })
        return flush
      }
      const done = Deferred.makeUnsafe<boolean>()
      pending.push({ record, done })
      return Effect.flatMap(Deferred.await(done), (recorded) => recorded ? Effect.void : flush)
    })

  return { record, queued: () => pending.length }
}
