/**
 * Issue 15 over HTTP, on the memory store and on PostgreSQL: the audit trail's filters and its
 * NDJSON export (streamed, same filters, `audit:read`), and the organization's failing deliveries
 * (`GET /deliveries`: every destination, newest first, `status` and `destinationId` filters).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Receiver from "../../adapters/test/support/receiver.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import type { StoreFactory } from "./support/problem.js"
import { expectProblem, onEveryStore, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const api = "/api/v1/org/org_acme"

const suite = (name: string, makeStore: StoreFactory) =>
  describe(`audit filters and export, failing deliveries (${name})`, () => {
    let host: TestHost
    let gone: Receiver.Receiver
    let healthy: Receiver.Receiver
    let closedPort: number
    beforeAll(async () => {
      gone = await Receiver.start({ mode: "plain", respond: () => ({ status: 410 }) })
      healthy = await Receiver.start({ mode: "plain" })
      closedPort = await Receiver.closedPort()
      host = await startTestHost({
        store: makeStore(),
        services: { allowUnsafeWebhookTargets: true },
        // one retry, an hour later: a failed attempt stays "failed" for the whole test
        deliveryWorker: { pollIntervalMs: 20, schedule: [3600], timeoutMs: 2_000 }
      })
    })
    afterAll(async () => {
      await host?.stop()
      await gone?.close()
      await healthy?.close()
    })

    const createHook = async (hookName: string, endpointUrl: string) => {
      const answer = await host.request("POST", `${api}/webhooks`, {
        body: { name: hookName, type: "chat", endpointUrl, scope: { kind: "organization" }, events: ["service.policy_group.published"] }
      })
      expect(answer.status, answer.text).toBe(201)
      return answer.body.id as string
    }

    describe("audit", () => {
      let snoozeId: string
      beforeAll(async () => {
        // a few rows of different actors, actions and resources
        const onboarded = await host.request("POST", `${api}/repositories`, {
          body: {
            vcsConnectionId: host.org.vcsConnections["acme"],
            externalRepoId: "1003",
            assignedTeamId: host.org.teams["Platform"],
            assignedRoutineId: host.org.routines["Platform/Weekly"],
            branchNames: ["main"]
          },
          key: secrets.automation
        })
        expect(onboarded.status, onboarded.text).toBe(201)
        const snooze = await host.request("POST", `${api}/snooze-requests`, {
          body: { repositoryId: onboarded.body.repository.id, fromImage: "nginx:1", reason: "r", until: "2999-01-01T00:00:00Z" }
        })
        expect(snooze.status, snooze.text).toBe(201)
        snoozeId = snooze.body.id
        // a refused write leaves a rejected row
        expect((await host.request("POST", `${api}/snooze-requests/${snoozeId}/reopen`)).status).toBe(409)
      })

      const all = async () => (await readAllPages(host, `${api}/audit-events`, { limit: 200 })).items
      const exported = (query: string, key?: string | null) =>
        host.request("GET", `${api}/audit-events/export${query}`, key !== undefined ? { key } : {})
      const lines = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

      it("filters by actor, action, resource and time; cursors page through the filtered list", async () => {
        const rows = await all()
        const ownerKey = rows.find((r) => r.action === "snooze_request.create")!.actor.apiKeyId as string
        const cases: Array<[string, (r: any) => boolean]> = [
          [`actor=${ownerKey}`, (r) => r.actor.apiKeyId === ownerKey],
          ["action=snooze_request.create", (r) => r.action === "snooze_request.create"],
          [`resourceType=snooze_request&resourceId=${snoozeId}`, (r) => r.resourceType === "snooze_request" && r.resourceId === snoozeId],
          ["action=reopenSnoozeRequest", (r) => r.action === "reopenSnoozeRequest"],
          [`from=${encodeURIComponent(rows[1].at)}&to=${encodeURIComponent(rows[0].at)}`, (r) => r.at >= rows[1].at && r.at < rows[0].at],
          ["from=2999-01-01T00:00:00Z", () => false]
        ]
        for (const [query, f] of cases) {
          const { items } = await readAllPages(host, `${api}/audit-events?${query}`, { limit: 1 })
          expect(items.map((r) => r.id), query).toEqual(rows.filter(f).map((r) => r.id))
        }
        expect(rows.filter((r) => r.action === "reopenSnoozeRequest")[0]).toMatchObject({ outcome: "rejected", resourceId: snoozeId })
        expectProblem(await host.request("GET", `${api}/audit-events?from=yesterday`), 400)
      })

      it("exports every matching row as NDJSON, newest first, with the list's filters", async () => {
        const answer = await exported("")
        expect(answer.status, answer.text).toBe(200)
        expect(answer.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
        const rows = await all()
        // rows may have been added by then (none here); the export equals the list at the same moment
        expect(lines(answer.text)).toEqual(rows)
        const filtered = await exported(`?resourceType=snooze_request&resourceId=${snoozeId}`)
        expect(lines(filtered.text).map((r) => r.id)).toEqual(
          rows.filter((r) => r.resourceType === "snooze_request" && r.resourceId === snoozeId).map((r) => r.id)
        )
        expect((await exported("?action=nothing-like-this")).text).toBe("")
      })

      it("export reads the store page by page: more rows than a page come out whole, in order", async () => {
        // each refused reopen writes one row: more than one export page (200 rows)
        for (let i = 0; i < 230; i++) await host.request("POST", `${api}/snooze-requests/${snoozeId}/reopen`)
        const rows = (await all()).filter((r) => r.action === "reopenSnoozeRequest")
        expect(rows.length).toBeGreaterThan(200)
        const answer = await exported("?action=reopenSnoozeRequest")
        expect(lines(answer.text).map((r) => r.id)).toEqual(rows.map((r) => r.id))
      })

      it("needs audit:read; another organization's key answers 404", async () => {
        expectProblem(await exported("", secrets.automation), 403)
        expectProblem(await host.request("GET", `${api}/audit-events?action=x`, { key: secrets.automation }), 403)
        expect((await exported("", secrets.readOnly)).status).toBe(200)
        expectProblem(await exported("", secrets.otherOrg), 404)
        expectProblem(await exported("", null), 401)
        expectProblem(await exported("?to=not-a-date"), 400)
      })
    })

    describe("deliveries across the organization", () => {
      let goneId: string
      let downId: string
      beforeAll(async () => {
        goneId = await createHook("gone", gone.url("/hook"))
        downId = await createHook("down", `http://127.0.0.1:${closedPort}/hook`)
        await createHook("healthy", healthy.url("/hook"))
        const published = await host.request("POST", `${api}/policy-groups/${host.org.policyGroups["Base images"]!.id}/publish`)
        expect(published.status, published.text).toBe(200)
      })

      const list = (query = "", key?: string) => host.request("GET", `${api}/deliveries${query}`, key !== undefined ? { key } : {})

      it("lists every failing destination's deliveries, newest first, with destination, type, attempts and last error", async () => {
        const items = await until("both failing deliveries", async () => {
          const answer = await list()
          expect(answer.status, answer.text).toBe(200)
          return answer.body.items.length === 2 ? answer.body.items as Array<any> : undefined
        })
        const byDestination = Object.fromEntries(items.map((d) => [d.destinationId, d]))
        expect(byDestination[goneId]).toMatchObject({
          destinationName: "gone",
          type: "service.policy_group.published",
          status: "dead",
          attempts: 1,
          nextAttemptAt: null,
          lastStatusCode: 410,
          lastError: { statusCode: 410, outcome: "disable", errorCode: null }
        })
        expect(byDestination[downId]).toMatchObject({
          destinationName: "down",
          type: "service.policy_group.published",
          status: "failed",
          attempts: 1,
          lastStatusCode: null,
          lastError: { statusCode: null, outcome: "retry", errorCode: expect.any(String) }
        })
        expect(byDestination[downId].nextAttemptAt).toEqual(expect.any(String))
        const sorted = [...items].sort((a, b) => a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)
        expect(items.map((d) => d.updatedAt)).toEqual(sorted.map((d) => d.updatedAt))
        // the healthy destination's delivery succeeded: not listed; the answer names no endpoint
        expect(JSON.stringify(items)).not.toContain(String(closedPort))
        expect(JSON.stringify(items)).not.toContain(String(gone.port))
      })

      it("filters by status and destination; cursors page through", async () => {
        expect((await list("?status=dead")).body.items.map((d: any) => d.destinationId)).toEqual([goneId])
        expect((await list("?status=failed")).body.items.map((d: any) => d.destinationId)).toEqual([downId])
        expect((await list(`?destinationId=${downId}`)).body.items.map((d: any) => d.status)).toEqual(["failed"])
        expect((await list(`?destinationId=${downId}&status=dead`)).body.items).toEqual([])
        expect((await list("?destinationId=wh_unknown")).body.items).toEqual([])
        const { items, pages } = await readAllPages(host, `${api}/deliveries`, { limit: 1 })
        expect(pages).toBe(2)
        expect(items).toEqual((await list()).body.items)
        expectProblem(await list("?status=pending"), 400)
      })

      it("needs webhooks:manage; another organization sees none of them", async () => {
        expectProblem(await list("", secrets.readOnly), 403)
        expectProblem(await list("", secrets.otherOrg), 404)
        const globex = await host.request("GET", "/api/v1/org/org_globex/deliveries", { key: secrets.otherOrg })
        expect(globex.status).toBe(200)
        expect(globex.body.items).toEqual([])
      })
    })
  })

await onEveryStore("audit-deliveries", (name, makeStore) => suite(name, makeStore), { pglite: true })
