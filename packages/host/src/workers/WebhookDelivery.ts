/**
 * The webhook delivery worker: claims due deliveries from the outbox (leased, `SKIP LOCKED` on
 * PostgreSQL, so several hosts can run it at once), sends each through the core's
 * `attemptDelivery`, records what the lanes finish together (workers/DeliveryRecorder.ts: one
 * `recordMany` for the records that arrive while one is written), and sleeps when nothing is due. Deliveries of one destination in a batch go one after another, so a
 * destination sees its events in order and one slow receiver holds one slot, not the whole pool.
 * A crash loses nothing: an unfinished delivery's lease expires and another pass sends it again
 * (at-least-once; receivers deduplicate by `webhook-id`).
 *
 * Leases follow the work: they are short (30 s) and a heartbeat renews those of the batch still
 * in flight (every 10 s, one statement for the whole batch), so a crashed worker's deliveries are
 * taken up within a lease, and a restarted host takes them up at once (runtime/node.ts releases
 * what its previous process held).
 *
 * Start guard: an attempt is only started while it can end (time out and be recorded) before its
 * lease does, as last renewed, and never once the renewal found the lease lost: so a worker never
 * sends a delivery another worker may already have taken over, whatever the lease and however late
 * a renewal. What a lane cannot start in time is released at the end of the pass, still due.
 *
 * Graceful stop (workers/Stopping.ts): no new claim and no new attempt; the attempts in flight end
 * and are recorded, the pass releases the rest.
 */
import { AesGcmSecretBox } from "@image-policy/adapters"
import {
  type DeliveryKey,
  DeliveryPolicy,
  type Id,
  type Outbox,
  OutboxStore,
  SecretBox,
  type Webhook,
  WebhookStore,
  Workflows
} from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as HostMetrics from "../metrics/HostMetrics.js"
import * as Defect from "./Defect.js"
import * as DeliveryRecorder from "./DeliveryRecorder.js"
import * as Stopping from "./Stopping.js"

export interface Options extends Workflows.WebhookDeliveries.DeliveryConfig {
  readonly workerId: string
  /** Deliveries claimed at once. */
  readonly batchSize: number
  /** Destinations served in parallel within a batch. */
  readonly concurrency: number
  readonly pollIntervalMs: number
  /**
   * How long a claim or its renewal holds a delivery: a crashed worker's deliveries are sent again
   * after at most this. At least `2 * (timeoutMs + 1 s)` is used, so at least half of every lease
   * is left for starting attempts.
   */
  readonly leaseMs: number
  /**
   * How often the leases of a batch in flight are renewed (`leaseMs` again from then). At most
   * half of what a lease leaves for starting attempts is used, so a lane never waits for a renewal.
   */
  readonly renewEveryMs: number
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
  // renewed while the batch is in flight (heartbeat), so a crash holds its deliveries this long at most
  leaseMs: 30_000,
  renewEveryMs: 10_000
})

/** Time an attempt needs after its time limit to have recorded its answer (one transaction). */
const RECORD_MARGIN_MS = 1_000

/** The lease actually used: never shorter than two attempts and their records. */
export const leaseMs = (options: Options): number => Math.max(options.leaseMs, 2 * (options.timeoutMs + RECORD_MARGIN_MS))

/** The renewal period actually used: a renewed lease always leaves time to start attempts before the next one. */
export const renewEveryMs = (options: Options): number =>
  Math.max(1, Math.min(options.renewEveryMs, Math.floor((leaseMs(options) - options.timeoutMs - RECORD_MARGIN_MS) / 2)))

const keyOf = (c: Outbox.ClaimedWebhookDelivery): DeliveryKey => ({ orgId: c.orgId, eventId: c.event.id, webhookId: c.delivery.webhookId })
const nameOf = (k: DeliveryKey) => `${k.orgId}|${k.eventId}|${k.webhookId}`

/**
 * What a worker knows of the leases of one claimed batch: when they end as last renewed, which of
 * its deliveries are not finished yet, and which the renewal found taken (recorded, or another
 * worker's: never attempted again here).
 */
interface BatchLeases {
  until: number
  readonly open: Map<string, DeliveryKey>
  readonly lost: Set<string>
}

/** Renews the open leases of `leases` every `renewEveryMs` until interrupted; never fails. */
const heartbeat = (options: Options, leases: BatchLeases) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
    const lease = leaseMs(options)
    while (true) {
      yield* Effect.sleep(Duration.millis(renewEveryMs(options)))
      if (leases.open.size === 0) continue
      const now = yield* Clock.currentTimeMillis
      const keys = [...leases.open.values()]
      const renewed = yield* outbox.renew({ worker: options.workerId, now: new Date(now), leaseMs: lease, deliveries: keys }).pipe(
        // a failed renewal extends nothing: the start guard lets the lanes run out the lease they have
        Effect.catchCause((cause) =>
          Effect.as(
            Effect.logWarning("webhook lease renewal failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })),
            undefined
          )
        )
      )
      if (renewed === undefined) continue
      const held = new Set(renewed.map(nameOf))
      for (const k of keys) if (!held.has(nameOf(k))) leases.lost.add(nameOf(k))
      leases.until = now + lease
    }
  })

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

const pass = (
  options: Options,
  box: typeof SecretBox.Service,
  metrics: HostMetrics.Registry | undefined,
  stopping: Deferred.Deferred<void>
) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
    const webhooks = yield* WebhookStore
    const claimedAt = yield* Clock.currentTimeMillis
    const lease = leaseMs(options)
    const claimed = yield* outbox.claim({ worker: options.workerId, now: new Date(claimedAt), leaseMs: lease, limit: options.batchSize })
    if (claimed.length === 0) return 0
    const leases: BatchLeases = {
      until: claimedAt + lease,
      open: new Map(claimed.map((c) => [nameOf(keyOf(c)), keyOf(c)])),
      lost: new Set()
    }
    const lanes = new Map<string, Array<(typeof claimed)[number]>>()
    for (const c of claimed) {
      const key = `${c.orgId}|${c.delivery.webhookId}`
      const lane = lanes.get(key)
      if (lane === undefined) lanes.set(key, [c])
      else lane.push(c)
    }
    let attempted = 0
    const recorder = DeliveryRecorder.make(outbox.recordMany)
    const sendAll = Effect.forEach(
      lanes.values(),
      (lane) =>
        Effect.gen(function*() {
          let destination: CachedDestination | undefined
          for (const c of lane) {
            const name = nameOf(keyOf(c))
            const now = yield* Clock.currentTimeMillis
            // the start guard (module comment); the rest of the lane is released below, still in order
            if (Stopping.requested(stopping) || leases.lost.has(name) || now > leases.until - options.timeoutMs - RECORD_MARGIN_MS) return
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
            // attempted: recorded, or (a defect) left to its lease, unrenewed, so it cannot spin
            leases.open.delete(name)
            if (metrics !== undefined) HostMetrics.recordDelivery(metrics, outcome)
          }
        }),
      { concurrency: options.concurrency, discard: true }
    ).pipe(Effect.provideService(SecretBox, box))
    // the heartbeat lives as long as the batch's lanes
    yield* Effect.raceFirst(sendAll, Effect.andThen(heartbeat(options, leases), Effect.never))
    // what a lane did not start (stopping, a lease lost or run out) is due again at once for any worker;
    // only this worker's own leases are freed (one statement, and only then: not on the common path)
    if ([...leases.open.keys()].some((name) => !leases.lost.has(name))) {
      yield* outbox.release({ owner: options.workerId })
    }
    return attempted
  })

/** Runs until interrupted, or until a graceful stop is requested and the batch in flight is done. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    const box = AesGcmSecretBox.openedCache(yield* SecretBox)
    const metrics = yield* HostMetrics.HostMetrics
    const stopping = yield* Stopping.Stopping
    while (!Stopping.requested(stopping)) {
      const attempted = yield* pass(options, box, metrics, stopping).pipe(
        Effect.catchCause((cause) =>
          Effect.as(Effect.logError("webhook worker pass failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), 0)
        )
      )
      if (attempted === 0) yield* Effect.raceFirst(Effect.sleep(Duration.millis(options.pollIntervalMs)), Deferred.await(stopping))
    }
  })
