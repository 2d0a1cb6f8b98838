/**
 * OpenTelemetry export over OTLP/HTTP (issue 16): the built bin with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * pointing at a collector stand-in (a node:http server taking /v1/traces and /v1/metrics) sends a
 * span per request named after its route template, with its status and request id, and the
 * metrics of `GET /metrics`; in JSON when asked, in protobuf by default. Nothing of a key, a
 * query value, the endpoint or the exporter's headers reaches the payloads or the log. The Deno
 * entry exports the same way. Without an endpoint nothing is exported (`Otlp.fromEnv`).
 */
import * as Result from "effect/Result"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as Otlp from "../src/metrics/Otlp.js"
import { ensureBuilt, root } from "./support/build.js"
import { bin, cleanEnv, run } from "./support/cli.js"
import { until } from "./support/until.js"

interface Received {
  readonly path: string
  readonly contentType: string
  readonly authorization: string | undefined
  readonly body: Buffer
}

/** A collector stand-in: answers 200 to every POST and keeps what it got. */
const collector = async () => {
  const received: Array<Received> = []
  const server: HttpServer = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        contentType: request.headers["content-type"] ?? "",
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks)
      })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

interface Host {
  readonly child: ChildProcess
  readonly output: () => string
  readonly url: string
  readonly key: string
  readonly orgId: string
}

const children: Array<ChildProcess> = []
const closers: Array<() => Promise<void>> = []

const denoArgs = ["run", "-A", "--unstable-no-legacy-abort", join(root, "packages/host/dist/runtime/deno.js")]

/** `serve --store memory --demo` on a free port with these OTEL_* variables, on Node (the bin) or Deno. */
const serve = async (env: Record<string, string>, runtime: "node" | "deno" = "node"): Promise<Host> => {
  const args = ["--store", "memory", "--port", "0", "--demo"]
  const child = runtime === "node"
    ? spawn(process.execPath, [bin, "serve", ...args], { cwd: root, env: cleanEnv(env) })
    : spawn(join(root, "node_modules/.bin/deno"), [...denoArgs, ...args], { cwd: root, env: cleanEnv(env) })
  children.push(child)
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const [, url, orgId, key] = await until("the demo banner", () => {
    if (child.exitCode !== null) throw new Error(`the host exited:\n${out}`)
    return /demo is running at (\S+)[\s\S]*demo organization\s+(\S+)[\s\S]*demo API key\s+(\S+)/.exec(out) ?? undefined
  }, 60_000)
  return { child, output: () => out, url: url!, key: key!, orgId: orgId! }
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null) {
      child.kill("SIGTERM")
      await new Promise((resolve) => child.once("exit", resolve))
    }
  }
})
afterAll(() => Promise.all(closers.map((close) => close())))

type AnyValue = { readonly stringValue?: string; readonly intValue?: number | string; readonly asDouble?: number }
interface KeyValue {
  readonly key: string
  readonly value: AnyValue
}
interface Span {
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<KeyValue>
}

const attribute = (attributes: ReadonlyArray<KeyValue>, key: string) => {
  const value = attributes.find((a) => a.key === key)?.value
  return value === undefined ? undefined : value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue))
}

const json = (received: ReadonlyArray<Received>, path: string) =>
  received.filter((r) => r.path === path).map((r) => JSON.parse(r.body.toString("utf8")))

const spansOf = (received: ReadonlyArray<Received>): Array<Span> =>
  json(received, "/v1/traces").flatMap((p) => p.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)))

const metricsOf = (received: ReadonlyArray<Received>): Array<any> =>
  json(received, "/v1/metrics").flatMap((p) => p.resourceMetrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics)))

/** `url` in `text` as a URL of its own: the host's own `http://127.0.0.1:41234` does not mention `…:4123`. */
const mentions = (text: string, url: string) => new RegExp(`${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![0-9])`).test(text)

// short export intervals, so the test waits for the exports it asserts instead of the defaults (5 s, 10 s)
const fast = { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_METRIC_EXPORT_INTERVAL: "200" }
const teamsRoute = "/api/v1/org/:orgId/teams"

describe("OTLP export (built bin)", () => {
  // the built CLI, rebuilt when a source is newer (support/build.ts)
  beforeAll(ensureBuilt, 600_000)

  it("sends a span per request named after its route template, and the host's metrics, as OTLP/HTTP JSON", async () => {
    const otel = await collector()
    closers.push(otel.close)
    const host = await serve({
      ...fast,
      OTEL_EXPORTER_OTLP_ENDPOINT: otel.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-credential-123",
      OTEL_SERVICE_NAME: "policy-under-test"
    })
    const teams = `${host.url}/api/v1/org/${host.orgId}/teams`
    const ok = await fetch(`${teams}?limit=5&token=query-secret-456`, { headers: { "x-api-key": host.key } })
    expect(ok.status).toBe(200)
    const requestId = ok.headers.get("x-request-id")
    expect((await fetch(teams)).status).toBe(401)
    // outside /api every GET path is the console's page: an unknown API path is the route-less 404
    expect((await fetch(`${host.url}/api/v1/no/such/route`)).status).toBe(404)
    // only OTLP is on: the Prometheus endpoint stays off
    expect((await fetch(`${host.url}/metrics`)).status).toBe(404)

    const server = (status: number) =>
      spansOf(otel.received).find((s) => s.kind === 2 && attribute(s.attributes, "http.response.status_code") === status)
    const answered = await until(
      "the request spans",
      () => server(200) !== undefined && server(401) !== undefined && server(404) !== undefined
    )
    expect(answered).toBe(true)
    const span = server(200)!
    expect(span.name).toBe(`GET ${teamsRoute}`)
    expect(attribute(span.attributes, "http.route")).toBe(teamsRoute)
    expect(attribute(span.attributes, "http.request.method")).toBe("GET")
    expect(attribute(span.attributes, "image_policy.request_id")).toBe(requestId)
    expect(attribute(span.attributes, "url.query")).toBe("limit=REDACTED&token=REDACTED")
    expect(server(401)!.name).toBe(`GET ${teamsRoute}`)
    // no API route matched: the span keeps the method alone, never the raw path as its name; the route
    // is the console's catch-all template (it answers unknown /api paths with the 404 problem)
    expect(server(404)!.name).toBe("GET")
    expect(attribute(server(404)!.attributes, "http.route")).toBe("/*")
    // the workflow's own spans hang below the request's
    expect(spansOf(otel.received).some((s) => s.name === "organization.listTeams")).toBe(true)

    const requests = await until(
      "the request counter in an OTLP metrics export",
      () =>
        metricsOf(otel.received).filter((m) => m.name === "image_policy_http_requests_total").flatMap((m) => m.sum.dataPoints)
          .find((p: any) => attribute(p.attributes, "route") === teamsRoute && attribute(p.attributes, "status") === "200")
    )
    expect(requests.asDouble ?? Number(requests.asInt)).toBe(1)
    const names = new Set(metricsOf(otel.received).map((m) => m.name))
    for (
      const name of [
        "image_policy_http_request_duration_seconds",
        "image_policy_outbox_pending_deliveries",
        "image_policy_scan_queue_depth"
      ]
    ) {
      expect(names).toContain(name)
    }

    const resource = json(otel.received, "/v1/traces")[0].resourceSpans[0].resource.attributes
    expect(attribute(resource, "service.name")).toBe("policy-under-test")
    expect(otel.received.every((r) => r.authorization === "Bearer collector-credential-123" && r.contentType === "application/json"))
      .toBe(true)
    const payloads = otel.received.map((r) => r.body.toString("utf8")).join("\n")
    for (const secret of [host.key, "query-secret-456", "collector-credential-123"]) expect(payloads).not.toContain(secret)
    expect(host.output()).toContain("exporting telemetry over OTLP")
    expect(mentions(host.output(), otel.url)).toBe(false)
    expect(host.output()).not.toContain("collector-credential-123")
  }, 90_000)

  it("speaks OTLP/HTTP protobuf by default", async () => {
    const otel = await collector()
    closers.push(otel.close)
    const host = await serve({ ...fast, OTEL_EXPORTER_OTLP_ENDPOINT: otel.url })
    expect((await fetch(`${host.url}/api/v1/org/${host.orgId}/teams`, { headers: { "x-api-key": host.key } })).status).toBe(200)
    // protobuf keeps strings as their bytes: the span name and the series name can be found in them
    const has = (path: string, text: string) => otel.received.some((r) => r.path === path && r.body.includes(text))
    await until(
      "a protobuf span and a protobuf metrics export",
      () => has("/v1/traces", `GET ${teamsRoute}`) && has("/v1/metrics", "image_policy_http_requests_total")
    )
    expect(otel.received.every((r) => r.contentType === "application/x-protobuf")).toBe(true)
  }, 90_000)

  it("exports from the Deno entry too", async () => {
    const otel = await collector()
    closers.push(otel.close)
    const host = await serve({ ...fast, OTEL_EXPORTER_OTLP_ENDPOINT: otel.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, "deno")
    const answer = await fetch(`${host.url}/api/v1/org/${host.orgId}/teams`, { headers: { "x-api-key": host.key } })
    expect(answer.status).toBe(200)
    const span = await until("the request span from Deno", () => spansOf(otel.received).find((s) => s.name === `GET ${teamsRoute}`))
    expect(attribute(span.attributes, "image_policy.request_id")).toBe(answer.headers.get("x-request-id"))
    await until("a metrics export from Deno", () => metricsOf(otel.received).some((m) => m.name === "image_policy_http_requests_total"))
  }, 90_000)

  it("a collector that does not answer: requests are served, one warning per signal names no URL or header", async () => {
    // a port nothing listens on any more
    const gone = await collector()
    await gone.close()
    const host = await serve({ ...fast, OTEL_EXPORTER_OTLP_ENDPOINT: gone.url, OTEL_EXPORTER_OTLP_HEADERS: "x-token=header-secret-321" })
    expect((await fetch(`${host.url}/api/v1/org/${host.orgId}/teams`, { headers: { "x-api-key": host.key } })).status).toBe(200)
    const warnings = () => host.output().split("\n").filter((line) => line.includes("OTLP export failed"))
    // the exporter retries a few times (about a second apart) before it pauses the signal
    await until("a warning per signal", () => warnings().length >= 2, 30_000)
    expect(warnings().map((line) => JSON.parse(line).annotations.module).sort()).toEqual(["OtlpMetrics", "OtlpTracer"])
    expect(mentions(host.output(), gone.url)).toBe(false)
    expect(host.output()).not.toContain("header-secret-321")
  }, 90_000)

  it("refuses a bad endpoint or an unsupported protocol at start, without echoing the value", async () => {
    const badUrl = await run(["serve", "--store", "memory", "--port", "0"], { OTEL_EXPORTER_OTLP_ENDPOINT: "collector with secret-789" })
    expect(badUrl.code).toBe(1)
    expect(badUrl.stderr).toContain("OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL")
    expect(badUrl.stderr + badUrl.stdout).not.toContain("secret-789")
    const grpc = await run(["serve", "--store", "memory", "--port", "0"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
    })
    expect(grpc.code).toBe(1)
    expect(grpc.stderr).toContain("only http/protobuf and http/json are supported")
  }, 60_000)
})

describe("Otlp.fromEnv", () => {
  const settings = (env: Record<string, string>) => Result.getOrThrow(Otlp.fromEnv(env))

  it("exports nothing without an endpoint, or when the SDK is disabled", () => {
    expect(settings({})).toBeUndefined()
    expect(settings({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_HEADERS: "a=b" })).toBeUndefined()
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined()
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" }))
      .toBeUndefined()
  })

  it("turns each signal on by its own endpoint or the shared one, protobuf unless told otherwise", () => {
    const both = settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })!
    expect(both.traces).toEqual({ protocol: "http/protobuf" })
    expect(both.metrics).toEqual({ protocol: "http/protobuf", intervalMs: Otlp.defaultMetricsIntervalMs })
    expect(both.serviceName).toBe(Otlp.defaultServiceName)
    const tracesOnly = settings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c/v1/traces",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json"
    })!
    expect(tracesOnly.traces).toEqual({ protocol: "http/json" })
    expect(tracesOnly.metrics).toBeUndefined()
    const metricsOnly = settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })!
    expect(metricsOnly.traces).toBeUndefined()
    expect(metricsOnly.metrics?.protocol).toBe("http/protobuf")
  })

  it("names the service from OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES, else image-policy", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }
    expect(settings({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attributes,env=prod" })!.serviceName).toBe(
      "from-attributes"
    )
    expect(settings({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: "service.name=a", OTEL_SERVICE_NAME: "b" })!.serviceName).toBe("b")
  })

  it("fails on a malformed value naming the variable only", () => {
    const failure = (env: Record<string, string>) => Result.match(Otlp.fromEnv(env), { onFailure: (m) => m, onSuccess: () => "ok" })
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://c" })).toBe("OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL")
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_HEADERS: "token" })).toBe(
      "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas"
    )
    expect(failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_METRIC_EXPORT_INTERVAL: "soon" })).toContain(
      "OTEL_METRIC_EXPORT_INTERVAL"
    )
  })
})
