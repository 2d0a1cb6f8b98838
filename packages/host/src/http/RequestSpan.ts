/**
 * The request's span, when spans are exported (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `--tracing`): the
 * platform opens it (method, path, status, no headers; every query value redacted, metrics/Otlp.ts)
 * before the route is known, so the lifecycle names it after the route template once the API
 * matched one (`GET /api/v1/org/:orgId/teams`, never the path with its ids) and adds the request id.
 */
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import type { Info } from "./RequestInfo.js"

/** Whether requests get spans someone can see: off, the platform opens none and the lifecycle looks for none. */
export const recorded: Effect.Effect<boolean> = Effect.map(
  Effect.all([References.TracerEnabled, Tracer.Tracer]),
  ([enabled, tracer]) => enabled && tracer !== Tracer.nativeTracer
)

export const requestIdAttribute = "image_policy.request_id"

export const annotate = (span: Tracer.AnySpan | undefined, method: string, info: Info): void => {
  if (span?._tag !== "Span") return
  span.attribute(requestIdAttribute, info.id)
  if (info.route === undefined) return
  span.attribute("http.route", info.route)
  // Effect's Span has no rename; the OTLP span keeps its name in a plain field read when it ends.
  // The semantic conventions name a server span `METHOD route`; without a route it keeps `METHOD`.
  Reflect.set(span, "name", `${method} ${info.route}`)
}
