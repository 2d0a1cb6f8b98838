/**
 * The gauges that need a store read (outbox backlog, scan queue, sync lag, the store's connections),
 * read on demand: at each scrape of `GET /metrics`, and before each OTLP metrics export (Otlp.ts).
 * A few reads per reading instead of work on every write.
 */
import { StorePool } from "@image-policy/adapters"
import { OutboxStore, PolicyStore, ScanStore } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HostMetrics from "./HostMetrics.js"

/** Captures the stores once; the effect it gives reads them and sets the registry's gauges. */
export const make = (registry: HostMetrics.Registry) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
    const scans = yield* ScanStore
    const policies = yield* PolicyStore
    const pool = yield* StorePool.PoolStats
    return Effect.gen(function*() {
      const backlog = yield* outbox.backlog()
      const queue = yield* scans.queueDepth()
      const phases = yield* policies.policyGroups.externalPhases()
      HostMetrics.setReadings(registry, {
        now: yield* Clock.currentTimeMillis,
        pendingDeliveries: backlog.pending,
        oldestPendingAt: backlog.oldestPendingAt,
        scansQueued: queue.queued,
        scansRunning: queue.running,
        lastSyncedAt: phases.map((p) => p.external.lastSyncedAt),
        pool: pool === undefined ? undefined : yield* pool.read
      })
    })
  })
