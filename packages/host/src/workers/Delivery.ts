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
import { Delivery, OutboxStore, SecretBox, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Defect from "./Defect.js"

export interface Options extends Workflows.Webhooks.DeliveryConfig {
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
  schedule: Delivery.defaultRetrySchedule,
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
export const leaseMs = (options: Options): number =>
  Math.max(options.leaseMs, 2 * (options.timeoutMs + RECORD_MARGIN_MS))

/** How many opened values the worker keeps, and for how long (see `openedCache`). */
const OPENED_CAPACITY = 1_024
const OPENED_TTL_MS = 60_000

/**
 * A `SecretBox` that remembers what it opened, for the worker's deliveries only. Every attempt
 * opens its destination's endpoint URL and signing secret, and two AES-GCM opens through WebCrypto
 * cost as much CPU as the rest of the core's `deliver`. The key is the sealed text itself:
 * replacing the endpoint or rotating the secret stores a new sealed value (a fresh IV), so a stale
 * plaintext is never used. Entries are dropped after a minute, or when more than 1,024 are held
 * (oldest first), so a deleted destination's secrets do not stay in memory for long; they were in
 * memory for every attempt anyway.
 */
export const openedCache = (box: typeof SecretBox.Service): typeof SecretBox.Service => {
  const opened = new Map<string, { readonly plaintext: string; readonly until: number }>()
  return SecretBox.of({
    seal: box.seal,
    open: (sealed) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = opened.get(sealed)
        if (hit !== undefined && hit.until > now) return Effect.succeed(hit.plaintext)
        return Effect.tap(box.open(sealed), (plaintext) =>
          Effect.sync(() => {
            opened.delete(sealed)
            opened.set(sealed, { plaintext, until: now + OPENED_TTL_MS })
            if (opened.size > OPENED_CAPACITY) opened.delete(opened.keys().next().value!)
          }))
      })
  })
}

/** Claims and delivers one batch; answers how many deliveries it attempted. */
export const runOnce = (options: Options) => Effect.flatMap(SecretBox, (box) => pass(options, openedCache(box)))

const pass = (options: Options, box: typeof SecretBox.Service) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
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
    yield* Effect.forEach(
      lanes.values(),
      (lane) =>
        Effect.gen(function*() {
          for (const c of lane) {
            // the rest of the lane waits for its lease to expire, still in order
            if ((yield* Clock.currentTimeMillis) > lastStart) return
            attempted++
            yield* Workflows.Webhooks.deliver(c, options).pipe(
              // a defect in one delivery must not stop the others; its lease expires and it is retried
              Effect.catchCause((cause) =>
                Effect.logError("webhook delivery failed unexpectedly").pipe(
                  Effect.annotateLogs({ eventId: c.delivery.eventId, webhookId: c.delivery.webhookId, defect: Defect.kindOf(cause) })
                )
              )
            )
          }
        }),
      { concurrency: options.concurrency, discard: true }
    ).pipe(Effect.provideService(SecretBox, box))
    return attempted
  })

/** Runs until interrupted. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    const box = openedCache(yield* SecretBox)
    while (true) {
      const attempted = yield* pass(options, box).pipe(
        Effect.catchCause((cause) =>
          Effect.as(Effect.logError("webhook worker pass failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), 0))
      )
      if (attempted === 0) yield* Effect.sleep(Duration.millis(options.pollIntervalMs))
    }
  })
