/**
 * OpenTelemetry export over OTLP/HTTP, on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`) is set: a span per request and per
 * SQL statement (and the workers' main operations), and the instruments of `GET /metrics`
 * (HostMetrics.ts) as OTLP metrics.
 *
 * Effect 4's own exporters (`effect/observability`: OtlpTracer, OtlpMetrics) do the work: no
 * OpenTelemetry SDK package, and they read Effect's spans and metrics directly, which
 * `@effect/opentelemetry` would bridge into an SDK first (docs/operations.md says why). They read
 * the standard `OTEL_*` variables themselves; this module decides whether a signal is on, checks
 * what would otherwise fail later with the value in the message (an endpoint or a header may hold
 * a credential), and keeps the exporters' own log lines free of URLs and headers.
 */
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { FetchHttpClient, UrlParams } from "effect/http"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import { OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type * as HostMetrics from "./HostMetrics.js"
import * as Readings from "./Readings.js"

export type Protocol = "http/protobuf" | "http/json"

export interface Signal {
  readonly protocol: Protocol
}

export interface Settings {
  /** Spans are exported (a span per request, per SQL statement, per worker operation). */
  readonly traces: Signal | undefined
  /** The host's metrics are exported every `metricsIntervalMs`. */
  readonly metrics: (Signal & { readonly intervalMs: number }) | undefined
  readonly serviceName: string
  /** The `OTEL_*` variables the exporters read (and nothing else of the environment). */
  readonly env: Readonly<Record<string, string>>
}

export const defaultServiceName = "image-policy"

/** Effect's exporter default when `OTEL_METRIC_EXPORT_INTERVAL` is not set. */
export const defaultMetricsIntervalMs = 10_000

type Env = Readonly<Record<string, string | undefined>>

const nonEmpty = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

/** `key=value,key=value` with percent-encoded parts (the W3C baggage form the OTEL_* variables use). */
const isKeyValueList = (text: string): boolean =>
  text.split(",").every((pair) => {
    if (pair.trim() === "") return true
    const at = pair.indexOf("=")
    if (at <= 0) return false
    try {
      decodeURIComponent(pair.slice(0, at))
      decodeURIComponent(pair.slice(at + 1))
      return true
    } catch {
      return false
    }
  })

const keyValue = (text: string | undefined, key: string): string | undefined => {
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at > 0 && decodeURIComponent(pair.slice(0, at)).trim() === key) return decodeURIComponent(pair.slice(at + 1)).trim()
  }
  return undefined
}

const isHttpUrl = (text: string): boolean => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)

/**
 * What to export, from the environment; `undefined` when nothing is (no endpoint, `OTEL_SDK_DISABLED=true`,
 * or both signals' exporters `none`). A failure names the variable, never its value.
 */
export const fromEnv = (env: Env): Result.Result<Settings | undefined, string> => {
  if (nonEmpty(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return Result.succeed(undefined)
  const base = nonEmpty(env, "OTEL_EXPORTER_OTLP_ENDPOINT")
  if (base !== undefined && !isHttpUrl(base)) return Result.fail("OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL")
  for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_RESOURCE_ATTRIBUTES"]) {
    const text = nonEmpty(env, name)
    if (text !== undefined && !isKeyValueList(text)) return Result.fail(`${name} must be key=value pairs separated by commas`)
  }
  const signal = (name: "TRACES" | "METRICS"): Result.Result<Signal | undefined, string> => {
    const own = nonEmpty(env, `OTEL_EXPORTER_OTLP_${name}_ENDPOINT`)
    if (own !== undefined && !isHttpUrl(own)) return Result.fail(`OTEL_EXPORTER_OTLP_${name}_ENDPOINT must be an http:// or https:// URL`)
    const headers = nonEmpty(env, `OTEL_EXPORTER_OTLP_${name}_HEADERS`)
    if (headers !== undefined && !isKeyValueList(headers)) {
      return Result.fail(`OTEL_EXPORTER_OTLP_${name}_HEADERS must be key=value pairs separated by commas`)
    }
    // the specification's default exporter is otlp
    const exporters = (nonEmpty(env, `OTEL_${name}_EXPORTER`) ?? "otlp").split(",").map((e) => e.trim().toLowerCase())
    if ((own ?? base) === undefined || !exporters.includes("otlp")) return Result.succeed(undefined)
    const protocol = nonEmpty(env, `OTEL_EXPORTER_OTLP_${name}_PROTOCOL`) ?? nonEmpty(env, "OTEL_EXPORTER_OTLP_PROTOCOL") ??
      "http/protobuf"
    if (protocol !== "http/protobuf" && protocol !== "http/json") {
      return Result.fail(
        `OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf and http/json are supported (not grpc: use the collector's HTTP port, 4318)`
      )
    }
    return Result.succeed({ protocol })
  }
  return Result.flatMap(
    signal("TRACES"),
    (traces) =>
      Result.flatMap(signal("METRICS"), (metrics): Result.Result<Settings | undefined, string> => {
        if (traces === undefined && metrics === undefined) return Result.succeed(undefined)
        const interval = nonEmpty(env, "OTEL_METRIC_EXPORT_INTERVAL")
        const intervalMs = interval === undefined ? defaultMetricsIntervalMs : Number(interval)
        if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
          return Result.fail("OTEL_METRIC_EXPORT_INTERVAL must be a positive number of milliseconds")
        }
        const otel: Record<string, string> = {}
        for (const [key, value] of Object.entries(env)) if (key.startsWith("OTEL_") && value !== undefined) otel[key] = value
        return Result.succeed({
          traces,
          metrics: metrics === undefined ? undefined : { ...metrics, intervalMs },
          serviceName: nonEmpty(env, "OTEL_SERVICE_NAME") ?? keyValue(nonEmpty(env, "OTEL_RESOURCE_ATTRIBUTES"), "service.name") ??
            defaultServiceName,
          // the exporters only export a signal whose exporter list names otlp: make the default explicit
          env: { OTEL_TRACES_EXPORTER: "otlp", OTEL_METRICS_EXPORTER: "otlp", ...otel }
        })
      })
  )
}

/** What is logged at start: which signals go out, in which encoding; never the endpoint or headers. */
export const describe = (settings: Settings) => ({
  traces: settings.traces?.protocol ?? "off",
  metrics: settings.metrics?.protocol ?? "off",
  serviceName: settings.serviceName
})

const serialization = (signal: Signal) => signal.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf

/**
 * The exporters log a failed export with the request in the cause (its URL, its headers): this
 * logger writes one warning instead, at the level the operator chose to see warnings.
 */
const exportFailureLogger = Effect.gen(function*() {
  const loggers = yield* References.CurrentLoggers
  const minimum = yield* References.MinimumLogLevel
  const warn = LogLevel.isGreaterThanOrEqualTo("Warn", minimum)
  return Logger.make<unknown, void>((entry) => {
    if (!warn) return
    const line = { ...entry, logLevel: "Warn" as const, cause: Cause.empty, message: "OTLP export failed; retrying in 60 s" }
    for (const logger of loggers) logger.log(line)
  })
})

const exporterLogging = Layer.unwrap(
  Effect.map(exportFailureLogger, (logger) => Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, "Debug")))
)

/**
 * The exporters, as a layer giving the `Tracer` (when traces are on) and running the metrics export
 * of `registry` (when metrics are on), with the store gauges read before each export interval.
 * The exporters flush when the layer's scope closes (at most 3 s each).
 */
export const layer = (settings: Settings, registry: HostMetrics.Registry | undefined) => {
  const resource = { serviceName: settings.serviceName }
  const traces = settings.traces === undefined
    ? Layer.empty
    : Layer.merge(
      OtlpTracer.layerFromConfig({ resource }).pipe(Layer.provide(serialization(settings.traces))),
      // a request span records the URL; a query value may be a token someone put there
      Layer.succeed(UrlParams.CurrentRedactedNames, [/(?:)/])
    )
  const metricsSignal = settings.metrics
  const metrics = metricsSignal === undefined || registry === undefined
    ? Layer.empty
    : Layer.mergeAll(
      OtlpMetrics.layerFromConfig({ resource }).pipe(
        Layer.provide([serialization(metricsSignal), Layer.succeedContext(registry.context as Context.Context<Metric.MetricRegistry>)])
      ),
      Layer.effectDiscard(Effect.gen(function*() {
        const refresh = Effect.ignore(yield* Readings.make(registry))
        yield* refresh
        yield* Effect.forkScoped(Effect.repeat(refresh, Schedule.spaced(Duration.millis(metricsSignal.intervalMs))))
      }))
    )
  return Layer.mergeAll(traces, metrics).pipe(
    Layer.provide([
      FetchHttpClient.layer,
      ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...settings.env } })),
      exporterLogging
    ])
  )
}
