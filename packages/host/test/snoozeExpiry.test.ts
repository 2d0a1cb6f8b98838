/**
 * Snooze requests of issue 15 over HTTP, on the memory store and on PostgreSQL: reading one
 * request, the list's `status` and `repositoryId` filters with their cursors, and the expiry
 * worker (an approved request past its `until` becomes `expired`, with its audit row and its
 * `service.snooze_request.status_changed` event, once, even with two workers at it).
 *
 * The outbox has no read route: as in exceptions.test.ts, the memory setup wraps the store's
 * `outbox.append` to keep a copy of the events, and the PostgreSQL setup reads `outbox_events`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { dayMs, shiftedClock } from "./support/clock.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { memorySetup, postgresSetup, type Setup } from "./support/observedOutbox.js"
import { expectProblem } from "./support/problem.js"
import { auditRows, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const snoozePath = "/api/v1/org/org_acme/snooze-requests"

const suite = (name: string, setup: Setup) =>
  describe(`snooze requests: read, filters, expiry (${name})`, () => {
    const clock = shiftedClock()
    let host: TestHost
    // a second host on the same store with its own expiry worker (PostgreSQL: two hosts on one database)
    let second: TestHost | undefined
    const repositoryIds: Array<string> = []
    const store = setup.store()
    beforeAll(async () => {
      host = await startTestHost({ store, clock: clock.clock, snoozeExpiryWorker: { tickMs: 50 } })
      for (const externalRepoId of ["1001", "1002"]) {
        const onboarded = await host.request("POST", "/api/v1/org/org_acme/repositories", {
          body: {
            vcsConnectionId: host.org.vcsConnections["acme"],
            externalRepoId,
            assignedTeamId: host.org.teams["Platform"],
            assignedRoutineId: host.org.routines["Platform/Weekly"],
            branchNames: ["main"]
          }
        })
        expect(onboarded.status, onboarded.text).toBe(201)
        repositoryIds.push(onboarded.body.repository.id)
      }
      if (name === "postgres") {
        second = await startTestHost({ store, clock: clock.clock, snoozeExpiryWorker: { tickMs: 50 }, seed: { organizations: [] } })
      }
    })
    afterAll(async () => {
      await second?.stop()
      await host?.stop()
    })

    const create = async (repositoryId: string, days: number, fromImage = "nginx:1.25") => {
      const answer = await host.request("POST", snoozePath, {
        body: { repositoryId, fromImage, reason: "vendor fix pending", until: new Date(clock.now() + days * dayMs).toISOString() }
      })
      expect(answer.status, answer.text).toBe(201)
      return answer.body
    }
    const review = async (id: string, decision: "approve" | "reject") => {
      const answer = await host.request("POST", `${snoozePath}/${id}/review`, { body: { decision } })
      expect(answer.status, answer.text).toBe(200)
      return answer.body
    }
    const get = (id: string, key?: string) => host.request("GET", `${snoozePath}/${id}`, key !== undefined ? { key } : {})

    it("GET /snooze-requests/{id} answers the request as listed; unknown, foreign and malformed ids are 404s", async () => {
      const created = await create(repositoryIds[0]!, 30)
      const read = await get(created.id)
      expect(read.status, read.text).toBe(200)
      expect(read.body).toEqual(created)
      expect((await get(created.id, secrets.readOnly)).status).toBe(200)
      expectProblem(await get("snz_doesnotexist"), 404)
      expectProblem(await get("not an id"), 404)
      expectProblem(await host.request("GET", `/api/v1/org/org_globex/snooze-requests/${created.id}`, { key: secrets.otherOrg }), 404)
      // a key without exceptions:read
      expectProblem(await get(created.id, secrets.automation), 403)
    })

    it("the list filters by status and repository, and its cursors page through the filtered list", async () => {
      const [a, b] = repositoryIds as [string, string]
      const made = [
        await create(a, 10, "redis:7"),
        await create(b, 10, "redis:7"),
        await create(a, 10, "node:20"),
        await create(a, 10, "node:22"),
        await create(b, 10, "node:22")
      ]
      await review(made[0].id, "approve")
      await review(made[2].id, "approve")
      await review(made[3].id, "reject")
      await review(made[4].id, "approve")
      const all = (await readAllPages(host, snoozePath, { limit: 200 })).items
      const expected = (f: (r: any) => boolean) => all.filter(f).map((r) => r.id)
      for (
        const [query, f] of [
          ["status=approved", (r: any) => r.status === "approved"],
          [`repositoryId=${a}`, (r: any) => r.repositoryId === a],
          [`status=approved&repositoryId=${a}`, (r: any) => r.status === "approved" && r.repositoryId === a],
          [`status=pending&repositoryId=${b}`, (r: any) => r.status === "pending" && r.repositoryId === b],
          ["repositoryId=repo_unknown", () => false]
        ] as const
      ) {
        const { items, pages } = await readAllPages(host, `${snoozePath}?${query}`, { limit: 1 })
        expect(items.map((r) => r.id), query).toEqual(expected(f))
        expect(pages).toBeGreaterThanOrEqual(items.length)
      }
      expect(expected((r) => r.status === "approved" && r.repositoryId === a)).toEqual(expect.arrayContaining([made[0].id, made[2].id]))
      expectProblem(await host.request("GET", `${snoozePath}?status=sleeping`), 400)
    })

    it("an approved request past its until becomes expired by the worker: audit row, status_changed event, once", async () => {
      const request = await create(repositoryIds[1]!, 1, "postgres:16")
      const approved = await review(request.id, "approve")
      expect(approved.status).toBe("approved")
      // not due yet: the worker leaves it alone
      await new Promise((r) => setTimeout(r, 200))
      expect((await get(request.id)).body.status).toBe("approved")
      clock.advance(2 * dayMs)
      const expired = await until("the request to expire", async () => {
        const read = await get(request.id)
        return read.body.status === "expired" ? read.body : undefined
      })
      expect(expired).toEqual({ ...approved, status: "expired" })
      expect((await readAllPages(host, `${snoozePath}?status=expired`)).items.map((r) => r.id)).toContain(request.id)
      // let other ticks (and the second host's worker) run: still one event and one audit row
      await new Promise((r) => setTimeout(r, 300))
      const events = (await setup.outbox()).filter((e) =>
        e.type === "service.snooze_request.status_changed" && (e.data as any).snooze_request_id === request.id
      )
      expect(events).toHaveLength(1)
      expect(events[0]!.subject).toBe(`exception_review/${request.id}`)
      expect(events[0]!.data).toEqual({
        snooze_request_id: request.id,
        previous_status: "approved",
        current_status: "expired",
        action: "status_changed",
        repository_id: repositoryIds[1],
        changed_at: expect.any(String)
      })
      const rows = (await auditRows(host)).filter((r) => r.resourceId === request.id && r.action === "snooze_request.expire")
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({
        actor: { kind: "system", name: "snooze-expiry" },
        resourceType: "snooze_request",
        outcome: "success"
      })
      // the audit filter finds it by its system actor
      const byActor = (await readAllPages(host, `/api/v1/org/org_acme/audit-events?actor=snooze-expiry&resourceId=${request.id}`)).items
      expect(byActor.map((r) => r.id)).toEqual([rows[0].id])

      // every transition emits its event: review, reopen (from expired) and expiry
      const reopened = await host.request("POST", `${snoozePath}/${request.id}/reopen`)
      expect(reopened.status, reopened.text).toBe(200)
      const types = (await setup.outbox()).filter((e) => (e.data as any).snooze_request_id === request.id).map((e) => e.type).sort()
      expect(types).toEqual([
        "service.snooze_request.created",
        "service.snooze_request.reopened",
        "service.snooze_request.reviewed",
        "service.snooze_request.status_changed"
      ])
    })

    it("a rejected or pending request past its until is not expired", async () => {
      const pending = await create(repositoryIds[0]!, 1, "mysql:8")
      const rejected = await review((await create(repositoryIds[0]!, 1, "mysql:9")).id, "reject")
      clock.advance(2 * dayMs)
      await new Promise((r) => setTimeout(r, 300))
      expect((await get(pending.id)).body.status).toBe("pending")
      expect((await get(rejected.id)).body.status).toBe("rejected")
    })
  })

suite("memory", memorySetup())

await pgDescribe("http-snooze-expiry", (url) => {
  suite("postgres", postgresSetup(url))
})
