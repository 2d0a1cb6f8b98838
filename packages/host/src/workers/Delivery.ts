/**
 * The webhook delivery worker: claims due deliveries from the outbox (leased, `SKIP LOCKED` on
 * PostgreSQL, so several hosts can run it at once), sends each through the core's `deliver`, and
 * sleeps when nothing is due. Deliveries of one destination in a batch go one after another, so a
 * destination sees its events in order and one slow receiver holds one slot, not the whole pool.
 * A crash loses nothing: an unfinished delivery's lease expires and another pass sends it again
 * (at-least-once; receivers deduplicate by `webhook-id`).
 */
import { Delivery, Store, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

export interface Options extends Workflows.Webhooks.DeliveryConfig {
  readonly workerId: string
  readonly batchSize: number
  /** Destinations served in parallel within a batch. */
  readonly concurrency: number
  readonly pollIntervalMs: number
}

export const defaults = (publicUrl: string, workerId: string): Options => ({
  publicUrl,
  workerId,
  timeoutMs: 10_000,
  schedule: Delivery.defaultRetrySchedule,
  batchSize: 32,
  concurrency: 8,
  pollIntervalMs: 250
})

/** Long enough for a batch whose every attempt in one destination's lane times out. */
const leaseMs = (options: Options) => options.timeoutMs * options.batchSize + 30_000

/** Claims and delivers one batch; answers how many deliveries it attempted. */
export const runOnce = (options: Options) =>
  Effect.gen(function*() {
    const store = yield* Store
    const now = new Date(yield* Clock.currentTimeMillis)
    const claimed = yield* store.outbox.claim({ worker: options.workerId, now, leaseMs: leaseMs(options), limit: options.batchSize })
    if (claimed.length === 0) return 0
    const lanes = new Map<string, Array<(typeof claimed)[number]>>()
    for (const c of claimed) {
      const lane = `${c.orgId}|${c.delivery.webhookId}`
      lanes.set(lane, [...(lanes.get(lane) ?? []), c])
    }
    yield* Effect.forEach(
      lanes.values(),
      (lane) =>
        Effect.forEach(lane, (c) =>
          Workflows.Webhooks.deliver(c, options).pipe(
            // a defect in one delivery must not stop the others; its lease expires and it is retried
            Effect.catchAllCause((cause) => Effect.logError("webhook delivery failed unexpectedly").pipe(
              Effect.annotateLogs({ eventId: c.delivery.eventId, webhookId: c.delivery.webhookId, defect: String(cause._tag) })
            ))
          ), { discard: true }),
      { concurrency: options.concurrency, discard: true }
    )
    return claimed.length
  })

/** Runs until interrupted. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    while (true) {
      const attempted = yield* runOnce(options).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logError("webhook worker pass failed").pipe(Effect.annotateLogs({ defect: String(cause._tag) })), 0))
      )
      if (attempted === 0) yield* Effect.sleep(Duration.millis(options.pollIntervalMs))
    }
  })
