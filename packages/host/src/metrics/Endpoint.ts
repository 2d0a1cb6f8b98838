/**
 * `GET /metrics`: the host's registry (HostMetrics.ts) in the Prometheus text format, with the
 * gauges that need a store read (outbox backlog, scan queue, sync lag) read at scrape time: a few
 * reads per scrape instead of work on every write. Registered only when metrics are on; no API key
 * (a scraper has none), so operators keep it off the public network (docs/operations.md).
 */
import { OutboxStore, PolicyStore, ScanStore } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import { RequestInfo } from "../http/RequestInfo.js"
import * as HostMetrics from "./HostMetrics.js"

export const path = "/metrics"

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const registry = yield* HostMetrics.HostMetrics
  if (registry === undefined) return
  const router = yield* HttpRouter.HttpRouter
  const outbox = yield* OutboxStore
  const scans = yield* ScanStore
  const policies = yield* PolicyStore
  yield* router.add(
    "GET",
    path,
    Effect.gen(function*() {
      // the lifecycle labels this request's own series with it
      const info = yield* RequestInfo
      if (info !== undefined) info.route = path
      const backlog = yield* outbox.backlog()
      const queue = yield* scans.queueDepth()
      const phases = yield* policies.policyGroups.externalPhases()
      HostMetrics.setReadings(registry, {
        now: yield* Clock.currentTimeMillis,
        pendingDeliveries: backlog.pending,
        oldestPendingAt: backlog.oldestPendingAt,
        scansQueued: queue.queued,
        scansRunning: queue.running,
        lastSyncedAt: phases.map((p) => p.external.lastSyncedAt)
      })
      return HttpServerResponse.text(HostMetrics.render(registry), { contentType: HostMetrics.contentType })
    })
  )
}))
