/**
 * Prometheus metrics at GET /metrics (issue 16): off by default (404), on with a registry
 * (`serve --metrics`); requests counted by route template (never the raw path) and status with a
 * latency histogram, and the gauges read from the store at scrape time, on memory and PostgreSQL.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { StoreConfig } from "@image-policy/adapters"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import * as Receiver from "../../adapters/test/support/receiver.js"
import * as HostMetrics from "../src/metrics/HostMetrics.js"
import * as ServeOptions from "../src/runtime/ServeOptions.js"
import { startTestHost, type TestHost } from "./support/harness.js"
import { memoryStore, postgresStore, type StoreFactory } from "./support/problem.js"
import { until } from "./support/until.js"

/** The sample lines of one series name, `name{labels} value`, as label text and value. */
const samples = (text: string, name: string) =>
  text.split("\n").flatMap((line) => {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line)
    return match === null ? [] : [{ labels: match[1] ?? "", value: Number(match[2]) }]
  })

const valueOf = (text: string, name: string, labels = "") => {
  const found = samples(text, name).filter((s) => s.labels === labels)
  expect(found, `${name}${labels}`).toHaveLength(1)
  return found[0]!.value
}

const teams = "/api/v1/org/org_acme/teams"

const suite = (name: string, makeStore: StoreFactory) =>
  describe(`metrics (${name})`, () => {
    let host: TestHost
    let off: TestHost
    beforeAll(async () => {
      // the host without metrics on the memory store: the seed's fixed keys are unique per database
      ;[host, off] = await Promise.all([
        startTestHost({ store: makeStore(), services: { metrics: HostMetrics.make() } }),
        startTestHost({ store: memoryStore() })
      ])
    })
    afterAll(() => Promise.all([host?.stop(), off?.stop()]))

    it("is off by default: GET /metrics is 404", async () => {
      const answer = await off.request("GET", "/metrics", { key: null })
      expect(answer.status).toBe(404)
    })

    it("counts requests by route template and status, with a latency histogram, without an API key", async () => {
      expect((await host.request("GET", teams)).status).toBe(200)
      expect((await host.request("GET", teams)).status).toBe(200)
      expect((await host.request("GET", "/api/v1/org/org_nowhere/teams")).status).toBe(404)
      expect((await host.request("GET", teams, { key: null })).status).toBe(401)
      expect((await host.request("GET", "/no/such/route-123")).status).toBe(404)

      const answer = await host.request("GET", "/metrics", { key: null })
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      const text = answer.text
      const requests = samples(text, "image_policy_http_requests_total")
      const route = requests.map((s) => /route="([^"]*)"/.exec(s.labels)?.[1]).find((r) => r?.endsWith("/teams"))
      expect(route).toBe("/api/v1/org/:orgId/teams")
      const labels = (status: number) => `{method="GET",route="${route}",status="${status}"}`
      expect(valueOf(text, "image_policy_http_requests_total", labels(200))).toBe(2)
      // an unknown organization is the same series template: never one series per id
      expect(valueOf(text, "image_policy_http_requests_total", labels(404))).toBe(1)
      expect(valueOf(text, "image_policy_http_requests_total", labels(401))).toBe(1)
      expect(valueOf(text, "image_policy_http_requests_total", `{method="GET",route="unmatched",status="404"}`)).toBe(1)
      expect(text).not.toContain("org_acme")
      expect(text).not.toContain("org_nowhere")
      expect(text).not.toContain("route-123")

      expect(text).toContain("# TYPE image_policy_http_request_duration_seconds histogram")
      const le = (bound: string) => `{method="GET",route="${route}",status="200",le="${bound}"}`
      expect(valueOf(text, "image_policy_http_request_duration_seconds_bucket", le("+Inf"))).toBe(2)
      expect(valueOf(text, "image_policy_http_request_duration_seconds_bucket", le("10"))).toBe(2)
      expect(valueOf(text, "image_policy_http_request_duration_seconds_count", labels(200))).toBe(2)
      expect(valueOf(text, "image_policy_http_request_duration_seconds_sum", labels(200))).toBeGreaterThan(0)

      // a scrape counts itself once answered: the second one sees the first
      const again = (await host.request("GET", "/metrics", { key: null })).text
      expect(valueOf(again, "image_policy_http_requests_total", `{method="GET",route="/metrics",status="200"}`)).toBe(1)
    })

    it("reads the outbox, scan queue and sync gauges from the store at scrape time", async () => {
      const before = (await host.request("GET", "/metrics", { key: null })).text
      // onboarding a repository queues one scan per tracked branch; no scan worker runs in this host
      const onboarded = await host.request("POST", "/api/v1/org/org_acme/repositories", {
        body: {
          vcsConnectionId: host.org.vcsConnections["acme"],
          externalRepoId: "1002",
          assignedTeamId: host.org.teams["Platform"],
          assignedRoutineId: host.org.routines["Platform/Weekly"],
          branchNames: ["main", "develop"]
        }
      })
      expect(onboarded.status).toBe(201)
      const text = (await host.request("GET", "/metrics", { key: null })).text
      for (const gauge of ["outbox_pending_deliveries", "outbox_oldest_pending_age_seconds", "sync_lag_seconds"]) {
        expect(text).toContain(`# TYPE image_policy_${gauge} gauge`)
        expect(valueOf(text, `image_policy_${gauge}`)).toBeGreaterThanOrEqual(0)
      }
      const queued = valueOf(text, "image_policy_scan_queue_depth", `{state="queued"}`)
      const running = valueOf(text, "image_policy_scan_queue_depth", `{state="running"}`)
      expect(queued - valueOf(before, "image_policy_scan_queue_depth", `{state="queued"}`)).toBe(2)
      expect(running).toBe(0)
      // the seed has an external phase; no sync worker runs, so none has synced yet
      const phases = valueOf(text, "image_policy_sync_external_phases")
      expect(phases).toBeGreaterThan(0)
      expect(valueOf(text, "image_policy_sync_never_synced_phases")).toBe(phases)
      expect(valueOf(text, "image_policy_sync_lag_seconds")).toBe(0)
    })

    it("shows the store's connections on a SQL store (none on memory)", async () => {
      const text = (await host.request("GET", "/metrics", { key: null })).text
      if (name === "memory") {
        expect(text).not.toContain("image_policy_db_pool")
        return
      }
      // postgresStore opens at most 4; the scrape's own connection is idle once it has read
      expect(valueOf(text, "image_policy_db_pool_max_connections")).toBe(4)
      const idle = valueOf(text, "image_policy_db_pool_connections", `{state="idle"}`)
      const used = valueOf(text, "image_policy_db_pool_connections", `{state="used"}`)
      expect(idle).toBeGreaterThanOrEqual(1)
      expect(idle + used).toBeLessThanOrEqual(4)
      // @effect/sql-pg does not tell how many statements wait for a connection (docs/operations.md)
      expect(text).not.toContain("image_policy_db_pool_waiting")
    })
  })

describe("metrics: webhook deliveries by outcome (memory)", () => {
  let host: TestHost
  let receiver: Receiver.Receiver
  beforeAll(async () => {
    receiver = await Receiver.start({ mode: "generic" })
    host = await startTestHost({
      services: { metrics: HostMetrics.make(), allowUnsafeWebhookTargets: true },
      deliveryWorker: { pollIntervalMs: 20, timeoutMs: 2_000 }
    })
  })
  afterAll(async () => {
    await host?.stop()
    await receiver?.close()
  })

  it("the delivery worker counts what it delivered; the outbox gauges drain", async () => {
    const api = "/api/v1/org/org_acme"
    const hook = await host.request("POST", `${api}/webhooks`, {
      body: {
        name: "metrics",
        type: "generic",
        endpointUrl: receiver.url("/hooks/metrics"),
        audienceTeamId: host.org.teams["Platform"],
        scope: { kind: "organization" },
        events: ["service.snooze_request.created"]
      }
    })
    expect(hook.status).toBe(201)
    receiver.setSecret(hook.body.signingSecret)
    const repository = await host.request("POST", `${api}/repositories`, {
      body: {
        vcsConnectionId: host.org.vcsConnections["acme"],
        externalRepoId: "1003",
        assignedTeamId: host.org.teams["Platform"],
        assignedRoutineId: host.org.routines["Platform/Weekly"],
        branchNames: ["main"]
      }
    })
    expect(repository.status).toBe(201)
    const snooze = await host.request("POST", `${api}/snooze-requests`, {
      body: { repositoryId: repository.body.repository.id, fromImage: "node:18", reason: "metrics", until: "2999-01-01T00:00:00Z" }
    })
    expect(snooze.status).toBe(201)
    await until("one delivery", () => receiver.deliveries.length >= 1)
    let text = ""
    await until("the counter", async () => {
      text = (await host.request("GET", "/metrics", { key: null })).text
      return samples(text, "image_policy_webhook_deliveries_total").length > 0
    })
    expect(samples(text, "image_policy_webhook_deliveries_total")).toEqual([{ labels: `{outcome="succeeded"}`, value: 1 }])
    expect(valueOf(text, "image_policy_outbox_pending_deliveries")).toBe(0)
    expect(valueOf(text, "image_policy_outbox_oldest_pending_age_seconds")).toBe(0)
  })
})

describe("metrics: serve --metrics", () => {
  const resolve = (metrics: boolean, env: Record<string, string>) =>
    Effect.runPromise(
      ServeOptions.resolve(
        {
          port: 0,
          host: "127.0.0.1",
          store: Result.getOrThrow(StoreConfig.parse("memory")),
          seed: Option.none(),
          seedUpdate: false,
          demo: false,
          publicUrl: undefined,
          rateLimit: null,
          tracing: false,
          noAccessLog: false,
          instanceId: undefined,
          shutdownTimeout: 10,
          sessionIdleTimeout: 43_200_000,
          sessionMaxAge: 604_800_000,
          metrics
        },
        env,
        undefined
      ).pipe(Effect.provide(NodeServices.layer))
    )

  it("the flag or IMAGE_POLICY_METRICS=1 gives the host a registry of its own; nothing else does", async () => {
    const [flag, one, yes, none, zero] = await Promise.all([
      resolve(true, {}),
      resolve(false, { IMAGE_POLICY_METRICS: "1" }),
      resolve(false, { IMAGE_POLICY_METRICS: "true" }),
      resolve(false, {}),
      resolve(false, { IMAGE_POLICY_METRICS: "0" })
    ])
    expect(flag.metrics).toBeDefined()
    expect(one.metrics).toBeDefined()
    expect(yes.metrics).toBeDefined()
    expect(flag.metrics).not.toBe(one.metrics)
    expect(none.metrics).toBeUndefined()
    expect(zero.metrics).toBeUndefined()
  })

  it("OTEL_EXPORTER_OTLP_ENDPOINT turns OTLP export on; GET /metrics stays with the flag", async () => {
    const [otlp, both] = await Promise.all([
      resolve(false, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }),
      resolve(true, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })
    ])
    expect(otlp.telemetry?.traces?.protocol).toBe("http/protobuf")
    expect(otlp.telemetry?.metrics?.protocol).toBe("http/protobuf")
    expect(otlp.metrics).toBeUndefined()
    expect(both.metrics?.prometheus).toBe(true)
    expect((await resolve(false, {})).telemetry).toBeUndefined()
  })
})

describe("metrics: the registry", () => {
  it("counts deliveries by outcome and keeps two hosts' series apart", () => {
    const one = HostMetrics.make()
    const two = HostMetrics.make()
    HostMetrics.recordDelivery(one, "succeeded")
    HostMetrics.recordDelivery(one, "succeeded")
    HostMetrics.recordDelivery(one, "retry")
    const text = HostMetrics.render(one)
    expect(text).toContain("# TYPE image_policy_webhook_deliveries_total counter")
    expect(valueOf(text, "image_policy_webhook_deliveries_total", `{outcome="succeeded"}`)).toBe(2)
    expect(valueOf(text, "image_policy_webhook_deliveries_total", `{outcome="retry"}`)).toBe(1)
    expect(HostMetrics.render(two)).toBe("")
  })

  it("sync lag is now minus the oldest lastSyncedAt; the oldest pending event's age in seconds", () => {
    const registry = HostMetrics.make()
    const now = Date.parse("2026-01-01T00:10:00.000Z")
    HostMetrics.setReadings(registry, {
      now,
      pendingDeliveries: 3,
      oldestPendingAt: "2026-01-01T00:09:30.000Z",
      scansQueued: 2,
      scansRunning: 1,
      lastSyncedAt: ["2026-01-01T00:09:00.000Z", null, "2026-01-01T00:05:00.000Z"]
    })
    const text = HostMetrics.render(registry)
    expect(valueOf(text, "image_policy_outbox_pending_deliveries")).toBe(3)
    expect(valueOf(text, "image_policy_outbox_oldest_pending_age_seconds")).toBe(30)
    expect(valueOf(text, "image_policy_sync_lag_seconds")).toBe(300)
    expect(valueOf(text, "image_policy_sync_never_synced_phases")).toBe(1)
    expect(valueOf(text, "image_policy_sync_external_phases")).toBe(3)
  })
})

suite("memory", memoryStore)

await pgDescribe("http-metrics", (url) => {
  suite("postgres", postgresStore(url))
})
