/**
 * `GET /metrics`: the host's registry (HostMetrics.ts) in the Prometheus text format, with the
 * gauges that need a store read (Readings.ts) read at scrape time. Registered only when metrics are
 * on (`serve --metrics`; a registry made for OTLP alone is not served); no API key
 * (a scraper has none), so operators keep it off the public network (docs/operations.md).
 */
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import { RequestInfo } from "../http/RequestInfo.js"
import * as HostMetrics from "./HostMetrics.js"
import * as Readings from "./Readings.js"

export const path = "/metrics"

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const registry = yield* HostMetrics.HostMetrics
  if (registry === undefined || !registry.prometheus) return
  const router = yield* HttpRouter.HttpRouter
  const refresh = yield* Readings.make(registry)
  yield* router.add(
    "GET",
    path,
    Effect.gen(function*() {
      // the lifecycle labels this request's own series with it
      const info = yield* RequestInfo
      if (info !== undefined) info.route = path
      yield* refresh
      return HttpServerResponse.text(HostMetrics.render(registry), { contentType: HostMetrics.contentType })
    })
  )
}))
