/** @image-policy/host: the `/api/v1` HTTP service of image-policy, embeddable in your own process. */
export { Api } from "@image-policy/client/api/Api"
export * as App from "./App.js"
export * as Boot from "./Boot.js"
export * as RateLimit from "./http/RateLimit.js"
export * as OpenApiDocument from "./OpenApiDocument.js"
// `App.ServiceOptions.metrics`: an embedder that serves the app itself turns GET /metrics on with `HostMetrics.make()`
export * as HostMetrics from "./metrics/HostMetrics.js"
export * as NodeRuntime from "./runtime/node.js"
// `NodeRuntime.start({ telemetry })`: OTLP export settings from the OTEL_* variables (`Otlp.fromEnv`)
export * as Otlp from "./metrics/Otlp.js"
export { demoOrgId, demoSeed } from "./seed/demo.js"
export * as Seed from "./seed/Seed.js"
