/**
 * The webhook delivery worker: claims due deliveries from the outbox (leased, `SKIP LOCKED` on
 * PostgreSQL, so several hosts can run it at once), sends each through the core's `deliver`, and
 * sleeps when nothing is due. Deliveries of one destination in a batch go one after another, so a
 * destination sees its events in order and one slow receiver holds one slot, not the whole pool.
 * A crash loses nothing: an unfinished delivery's lease expires and another pass sends it again
 * (at-least-once; receivers deduplicate by `webhook-id`).
 *
 * Leases: an attempt is only started while it can end (time out and be recorded) before its lease
 * does, so a worker never sends a delivery another worker may already have taken over, whatever
 * the lease. What a lane cannot start in time waits for the lease to expire and is claimed again.
 */
import { AesGcmSecretBox } from "@image-policy/adapters"
import { DeliveryPolicy, type Id, OutboxStore, SecretBox, type Webhook, WebhookStore, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as HostMetrics from "../metrics/HostMetrics.js"
import * as Defect from "./Defect.js"
import * as DeliveryRecorder from "./DeliveryRecorder.js"

export interface Options extends Workflows.WebhookDeliveries.DeliveryConfig {
  readonly workerId: string
  /** Deliveries claimed at once. */
  readonly batchSize: number
  /** Destinations served in parallel within a batch. */
  readonly concurrency: number
  readonly pollIntervalMs: number
  /**
   * How long a claim is held: a crashed worker's deliveries are sent again after this. At least
   * `2 * (timeoutMs + 1 s)` is used, so at least half of every lease is left for starting attempts.
   */
  readonly leaseMs: number
}

export const defaults = (publicUrl: string, workerId: string): Options => ({
  publicUrl,
  workerId,
  timeoutMs: 10_000,
  schedule: DeliveryPolicy.defaultRetrySchedule,
  // a claim costs about the same for 1 row as for hundreds (one statement; the memory store scans
  // every delivery), so large batches; the lease guard bounds how long one lane can hold a batch
  batchSize: 256,
  // on loopback one worker's CPU is the limit from about 16 lanes on; remote receivers are
  // latency-bound (deliveries/s ≈ lanes / answer time), so more lanes help there
  concurrency: 32,
  pollIntervalMs: 250,
  // what `timeoutMs * batchSize + 30 s` gave with the earlier defaults (10 s, 32): the start guard
  // (module comment) makes a lease shorter than a whole lane of timeouts safe
  leaseMs: 350_000
})

/** Time an attempt needs after its time limit to have recorded its answer (one transaction). */
const RECORD_MARGIN_MS = 1_000

/** The lease actually used: never shorter than two attempts and their records. */
export const leaseMs = (options: Options): number => Math.max(options.leaseMs, 2 * (options.timeoutMs + RECORD_MARGIN_MS))

/**
 * How long a lane uses its destination as read: a change to a destination (disabled, deleted, new
 * URL or secret) applies to the attempts that start this long after it at the latest.
 */
const DESTINATION_MAX_AGE_MS = 1_000

interface CachedDestination {
  readonly readAt: number
  readonly value: Option.Option<Webhook.WebhookDestination>
}

const outcomeOf = (status: "pending" | "succeeded" | "dead"): HostMetrics.DeliveryOutcome => status === "pending" ? "retry" : status

const pass = (options: Options, box: typeof SecretBox.Service, metrics: HostMetrics.Registry | undefined) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
    const webhooks = yield* WebhookStore
    const claimedAt = yield* Clock.currentTimeMillis
    const lease = leaseMs(options)
    const claimed = yield* outbox.claim({ worker: options.workerId, now: new Date(claimedAt), leaseMs: lease, limit: options.batchSize })
    if (claimed.length === 0) return 0
    // an attempt started later could still be running when another worker takes the delivery over
    const lastStart = claimedAt + lease - options.timeoutMs - RECORD_MARGIN_MS
    const lanes = new Map<string, Array<(typeof claimed)[number]>>()
    for (const c of claimed) {
      const key = `${c.orgId}|${c.delivery.webhookId}`
      const lane = lanes.get(key)
      if (lane === undefined) lanes.set(key, [c])
      else lane.push(c)
    }
    let attempted = 0
    const recorder = DeliveryRecorder.make(outbox.recordMany)
    yield* Effect.forEach(
      lanes.values(),
      (lane) =>
        Effect.gen(function*() {
          let destination: CachedDestination | undefined
          for (const c of lane) {
            // the rest of the lane waits for its lease to expire, still in order
            const now = yield* Clock.currentTimeMillis
            if (now > lastStart) return
            attempted++
            const outcome = yield* Effect.gen(function*() {
              // a lane is one destination: read once, again after DESTINATION_MAX_AGE_MS
              if (destination === undefined || now - destination.readAt > DESTINATION_MAX_AGE_MS) {
                destination = { readAt: now, value: yield* webhooks.get(c.orgId as Id.OrgId, c.delivery.webhookId) }
              }
              const done = yield* Workflows.WebhookDeliveries.attemptDelivery(c, destination.value, options)
              // a 410 disables the destination in the record's transaction (and the lane reads it
              // again, so its next deliveries become dead letters unsent); every other record is batched
              if (done.disable !== undefined) {
                destination = undefined
                return yield* Workflows.WebhookDeliveries.recordOutcome(done)
              }
              yield* recorder.record(done.record)
              return done.record.next.status
            }).pipe(
              Effect.map(outcomeOf),
              // a defect in one delivery must not stop the others; its lease expires and it is retried
              Effect.catchCause((cause) =>
                Effect.as(
                  Effect.logError("webhook delivery failed unexpectedly").pipe(
                    Effect.annotateLogs({ eventId: c.delivery.eventId, webhookId: c.delivery.webhookId, defect: Defect.kindOf(cause) })
                  ),
                  "error" as const
                )
              )
            )
            if (metrics !== undefined) HostMetrics.recordDelivery(metrics, outcome)
          }
        }),
      { concurrency: options.concurrency, discard: true }
    ).pipe(Effect.provideService(SecretBox, box))
    return attempted
  })

/** Runs until interrupted. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    const box = AesGcmSecretBox.openedCache(yield* SecretBox)
    const metrics = yield* HostMetrics.HostMetrics
    while (true) {
      const attempted = yield* pass(options, box, metrics).pipe(
        Effect.catchCause((cause) =>
          Effect.as(Effect.logError("webhook worker pass failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), 0)
        )
      )
      if (attempted === 0) yield* Effect.sleep(Duration.millis(options.pollIntervalMs))
    }
  })
