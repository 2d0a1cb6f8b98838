/**
 * The snooze expiry worker (contracts 6): every `tickMs` (default 30 s) it expires the approved
 * snooze requests of every organization whose `until` has passed, each in its own transaction with
 * its audit row (`snooze_request.expire`, actor `system`/`snooze-expiry`) and its
 * `service.snooze_request.status_changed` event (previous `approved`, current `expired`).
 *
 * Nothing waits for it: an approved request stops counting the moment its `until` passes, since
 * every reader compares `until` with the clock itself (`SnoozeRequest.isActive`); the worker makes
 * the stored status and the event follow. Every host runs the timer, but each pass (the interval's
 * start, aligned to the epoch) is a scheduled run (Schedule.ts) done by the host that claims it.
 * Even two passes at once would be harmless: each expiry is a compare-and-set on the request's
 * status (a conditional UPDATE on PostgreSQL), so a request expires, and is announced, once.
 */
import { Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Defect from "./Defect.js"
import * as Schedule from "./Schedule.js"

export interface Options extends Schedule.ClaimOptions {
  /** How often a pass looks for approved requests past their `until` (one pass per interval across hosts). */
  readonly tickMs: number
  /** How often this host looks for a pass to do (at most `tickMs`). */
  readonly checkMs: number
  /** Requests expired per tick at most; a larger backlog continues on the next tick. */
  readonly batch: number
}

export const defaults = (workerId: string): Options => ({
  workerId,
  tickMs: 30_000,
  batch: 100,
  checkMs: Schedule.defaultCheckMs,
  leaseMs: Schedule.defaultLeaseMs
})

/** One tick: answers how many requests it expired. */
export const tick = (options: Options) =>
  Effect.gen(function*() {
    const nowMs = yield* Clock.currentTimeMillis
    const expired = yield* Workflows.SnoozeRequests.expireDueSnoozeRequests({
      limit: options.batch,
      correlationId: `snooze-expiry-${options.workerId}-${nowMs}`
    }).pipe(Effect.withSpan("SnoozeExpiryWorker.tick"))
    if (expired > 0) yield* Effect.logInfo("snooze requests expired").pipe(Effect.annotateLogs({ expired }))
    return expired
  })

/** Runs until interrupted: one pass per `tickMs` across hosts, the current one at start unless done. */
export const run = (options: Options) =>
  Schedule.every(
    options,
    "snooze-expiry",
    options.tickMs,
    options.checkMs,
    tick(options),
    (cause) => Effect.logError("snooze expiry tick failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) }))
  )
