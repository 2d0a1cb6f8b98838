/**
 * Liveness and readiness (issue 16): `GET /healthz` and `GET /readyz` at the root, without a key,
 * answering no secret; readiness is a 503 problem naming the failing check when the store does not
 * answer, its migrations are behind, or a worker stopped. On the memory store and on PostgreSQL.
 */
import { MemoryStore } from "@image-policy/adapters"
import { StoreHealth } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PgClient from "../../adapters/src/storage/sql/PgClient.js"
import * as StoreConfig from "../../adapters/src/storage/StoreConfig.js"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import * as App from "../src/App.js"
import * as Workers from "../src/workers/Running.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { expectJson, expectProblem, onEveryStore } from "./support/suites.js"

/** The answer must not carry a key, a store URL or a driver message. */
const expectNoSecret = (text: string) => {
  expect(text).not.toMatch(/postgres(ql)?:\/\//)
  expect(text).not.toContain(secrets.owner)
  expect(text).not.toMatch(/password|ECONNREFUSED|stack/i)
}

await onEveryStore("health", (storeName, makeStore) => {
  describe(`health probes (${storeName})`, () => {
    let host: TestHost
    // the delivery worker runs (the harness's default), so readiness has a worker to report
    beforeAll(async () => {
      host = await startTestHost({ store: makeStore() })
    })
    afterAll(() => host?.stop())

    it("GET /healthz answers 200 { status: ok } without a key, and with a wrong one", async () => {
      expect(expectJson(await host.request("GET", "/healthz", { key: null }), 200)).toEqual({ status: "ok" })
      expect(expectJson(await host.request("GET", "/healthz", { key: "junk-key-that-is-not-valid-0123456789" }), 200)).toEqual({
        status: "ok"
      })
    })

    it("GET /readyz answers 200 with the store, migrations and workers checks", async () => {
      const answer = await host.request("GET", "/readyz", { key: null })
      const body = expectJson(answer, 200)
      expect(body.status).toBe("ready")
      expect(body.checks.map((c: any) => [c.name, c.ok])).toEqual([["store", true], ["migrations", true], ["workers", true]])
      expect(body.checks.find((c: any) => c.name === "workers").detail).toContain("webhookDelivery")
      expectNoSecret(answer.text)
    })

    it("the probes are not under /api/v1", async () => {
      expectProblem(await host.request("GET", "/api/v1/healthz", { key: null }), 404)
      expectProblem(await host.request("GET", "/api/v1/readyz", { key: null }), 404)
    })
  })

  describe(`readiness when the store does not answer (${storeName})`, () => {
    let host: TestHost
    beforeAll(async () => {
      const unreachable = Layer.succeed(StoreHealth, { check: Effect.succeed({ reachable: false, pendingMigrations: [] }) })
      host = await startTestHost({ store: Layer.merge(makeStore(), unreachable) })
    })
    afterAll(() => host?.stop())

    it("GET /readyz answers a 503 problem naming the store (and migrations, unknown), while /healthz stays 200", async () => {
      const answer = await host.request("GET", "/readyz", { key: null })
      const problem = expectProblem(answer, 503, { type: "/problems/not-ready" })
      expect(problem.errors.map((e: any) => e.path)).toEqual(["store", "migrations"])
      expect(problem.detail).toContain("store")
      expectNoSecret(answer.text)
      expect((await host.request("GET", "/healthz", { key: null })).status).toBe(200)
    })
  })
})

await pgDescribe("http-health-migrations", (url) => {
  describe("readiness when a migration is missing (PostgreSQL)", () => {
    let host: TestHost
    beforeAll(async () => {
      host = await startTestHost({ store: StoreConfig.migrated(PgClient.layerFromUrl(url, { maxConnections: 2 })) })
      // as if another build's migration had not run on this store
      const client = new Pg.Client({ connectionString: url })
      await client.connect()
      await client.query("DELETE FROM image_policy_migrations WHERE migration_id = (SELECT max(migration_id) FROM image_policy_migrations)")
      await client.end()
    })
    afterAll(() => host?.stop())

    it("GET /readyz answers a 503 problem naming the pending migration", async () => {
      const answer = await host.request("GET", "/readyz", { key: null })
      const problem = expectProblem(answer, 503, { type: "/problems/not-ready" })
      expect(problem.errors).toEqual([{ path: "migrations", message: expect.stringMatching(/^pending: \d{4}_\w+/) }])
      expectNoSecret(answer.text)
    })
  })
})

describe("running workers", () => {
  it("a worker whose fiber ended is reported stopped", async () => {
    const workers = Workers.make()
    const ended = Effect.runFork(Effect.void)
    await Effect.runPromise(Fiber.await(ended))
    const running = Effect.runFork(Effect.never)
    workers.add("ended", ended)
    workers.add("running", running)
    expect(workers.status()).toEqual([{ name: "ended", running: false }, { name: "running", running: true }])
    await Effect.runPromise(Fiber.interrupt(running))
  })
})

describe("the web handler (Deno, any fetch runtime)", () => {
  it("serves /healthz and /readyz at the root; with no worker started, workers are ready", async () => {
    const { dispose, handler } = App.webHandler({ ...App.defaults, accessLog: false }, MemoryStore.layer)
    try {
      const live = await handler(new Request("http://localhost/healthz"))
      expect(live.status).toBe(200)
      expect(await live.json()).toEqual({ status: "ok" })
      const ready = await handler(new Request("http://localhost/readyz"))
      expect(ready.status).toBe(200)
      const body: any = await ready.json()
      expect(body.checks.find((c: any) => c.name === "workers")).toEqual({
        name: "workers",
        ok: true,
        detail: "this process runs no worker"
      })
    } finally {
      await dispose()
    }
  })
})
