/**
 * The host's own metrics, rendered as Prometheus text at `GET /metrics` (`serve --metrics`): one
 * registry per host, so two hosts in one process (tests, an embedder) never mix their series, and
 * the instruments the request lifecycle, the delivery worker and the scrape update. Off by
 * default: without a registry (`HostMetrics` undefined) nothing is recorded and the request path
 * does no more work than before.
 */
import type { StorePool } from "@image-policy/adapters"
import * as Context from "effect/Context"
import * as Metric from "effect/Metric"
import { PrometheusMetrics } from "effect/observability"

export interface Registry {
  /** `GET /metrics` serves this registry (`serve --metrics`); false when only OTLP exports it (Otlp.ts). */
  readonly prometheus: boolean
  /** A context holding this host's own `Metric.MetricRegistry`: every instrument is updated in it. */
  readonly context: Context.Context<never>
  /**
   * The request series made so far, by method, route and status: one metric object per series,
   * so its registry key is computed once (`Metric.withAttributes` would compute it per update).
   */
  readonly requests: Map<string, RequestSeries>
  readonly deliveries: Map<string, Metric.Counter<number>>
}

interface RequestSeries {
  readonly count: Metric.Counter<number>
  readonly duration: Metric.Histogram<number>
}

export const make = (options: { readonly prometheus?: boolean } = {}): Registry => ({
  prometheus: options.prometheus ?? true,
  context: Context.make(Metric.MetricRegistry, new Map()),
  requests: new Map(),
  deliveries: new Map()
})

/** This host's registry, or undefined when metrics are off (the default). */
export const HostMetrics = Context.Reference<Registry | undefined>("@image-policy/host/HostMetrics", {
  defaultValue: () => undefined
})

/** Every series name starts with this (`image_policy_http_requests_total`, ...), in Prometheus and OTLP alike. */
export const prefix = "image_policy"

const named = (name: string) => `${prefix}_${name}`

/** Request latency buckets in seconds: 1 ms to 10 s (the API answers in ms; reports and imports take longer). */
export const durationBuckets: ReadonlyArray<number> = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The route label of a request no route matched (never the raw path: ids would make a series each). */
export const unmatchedRoute = "unmatched"

/** Counts one answered request under its route template and status, with its latency. */
export const recordRequest = (
  registry: Registry,
  method: string,
  route: string | undefined,
  status: number,
  seconds: number
): void => {
  const routeLabel = route ?? unmatchedRoute
  const key = `${method} ${routeLabel} ${status}`
  let series = registry.requests.get(key)
  if (series === undefined) {
    const attributes = { method, route: routeLabel, status: String(status) }
    series = {
      count: Metric.counter(named("http_requests_total"), {
        description: "HTTP requests answered, by route template and status",
        attributes,
        // monotonic: an OTLP sum that only grows, as a Prometheus counter does
        incremental: true
      }),
      duration: Metric.histogram(named("http_request_duration_seconds"), {
        description: "HTTP request latency until the response is made, by route template and status",
        attributes,
        boundaries: durationBuckets
      })
    }
    registry.requests.set(key, series)
  }
  series.count.updateUnsafe(1, registry.context)
  series.duration.updateUnsafe(seconds, registry.context)
}

/** How one webhook delivery attempt ended: its delivery's next state, or `error` for a defect. */
export type DeliveryOutcome = "succeeded" | "retry" | "dead" | "error"

export const recordDelivery = (registry: Registry, outcome: DeliveryOutcome): void => {
  let counter = registry.deliveries.get(outcome)
  if (counter === undefined) {
    counter = Metric.counter(named("webhook_deliveries_total"), {
      description: "webhook delivery attempts by outcome (succeeded, retry, dead, error) made by this host",
      attributes: { outcome },
      incremental: true
    })
    registry.deliveries.set(outcome, counter)
  }
  counter.updateUnsafe(1, registry.context)
}

/** What the scrape reads from the stores (a few reads per scrape, never per write). */
export interface Readings {
  readonly now: number
  readonly pendingDeliveries: number
  readonly oldestPendingAt: string | null
  readonly scansQueued: number
  readonly scansRunning: number
  /** `lastSyncedAt` of every external phase (`null`: never synced). */
  readonly lastSyncedAt: ReadonlyArray<string | null>
  /** The SQL store's connections (StorePool); undefined for the memory store, which has none. */
  readonly pool?: StorePool.Reading | undefined
}

const gauge = (name: string, description: string, attributes?: Record<string, string>) =>
  Metric.gauge(named(name), { description, attributes })

const gauges = {
  pending: gauge("outbox_pending_deliveries", "webhook deliveries waiting to be sent (every organization)"),
  oldestAge: gauge(
    "outbox_oldest_pending_age_seconds",
    "age of the oldest event with a pending delivery (0 when none is pending)"
  ),
  queued: gauge("scan_queue_depth", "branch scans queued or running (every organization)", { state: "queued" }),
  running: gauge("scan_queue_depth", "branch scans queued or running (every organization)", { state: "running" }),
  phases: gauge("sync_external_phases", "external policy phases (polled by the sync worker)"),
  neverSynced: gauge("sync_never_synced_phases", "external policy phases never synced successfully"),
  lag: gauge(
    "sync_lag_seconds",
    "now minus the oldest lastSyncedAt among the external phases that have synced (0 when none has)"
  ),
  poolIdle: gauge("db_pool_connections", "open store connections of this host, by state", { state: "idle" }),
  poolUsed: gauge("db_pool_connections", "open store connections of this host, by state", { state: "used" }),
  poolMax: gauge("db_pool_max_connections", "store connections this host may open"),
  poolWaiting: gauge("db_pool_waiting", "statements and transactions of this host waiting for a store connection (PGlite only)")
}

const ageSeconds = (now: number, iso: string | null): number => {
  const at = iso === null ? Number.NaN : Date.parse(iso)
  return Number.isNaN(at) ? 0 : Math.max(0, (now - at) / 1000)
}

/** Sets the gauges from a scrape's store reads. */
export const setReadings = (registry: Registry, readings: Readings): void => {
  const { context } = registry
  gauges.pending.updateUnsafe(readings.pendingDeliveries, context)
  gauges.oldestAge.updateUnsafe(ageSeconds(readings.now, readings.oldestPendingAt), context)
  gauges.queued.updateUnsafe(readings.scansQueued, context)
  gauges.running.updateUnsafe(readings.scansRunning, context)
  const synced = readings.lastSyncedAt.filter((at): at is string => at !== null && !Number.isNaN(Date.parse(at)))
  gauges.phases.updateUnsafe(readings.lastSyncedAt.length, context)
  gauges.neverSynced.updateUnsafe(readings.lastSyncedAt.length - synced.length, context)
  const oldest = synced.reduce<string | null>((a, b) => a === null || Date.parse(b) < Date.parse(a) ? b : a, null)
  gauges.lag.updateUnsafe(ageSeconds(readings.now, oldest), context)
  const pool = readings.pool
  if (pool !== undefined) {
    gauges.poolIdle.updateUnsafe(pool.idle, context)
    gauges.poolUsed.updateUnsafe(pool.used, context)
    gauges.poolMax.updateUnsafe(pool.max, context)
    if (pool.waiting !== undefined) gauges.poolWaiting.updateUnsafe(pool.waiting, context)
  }
}

/** The registry in the Prometheus text exposition format (Effect's own formatter). */
export const render = (registry: Registry): string => PrometheusMetrics.formatUnsafe(registry.context)

export const contentType = "text/plain; version=0.0.4; charset=utf-8"
