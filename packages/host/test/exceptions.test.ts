/**
 * Snooze requests (exceptions) over HTTP (spec 3, 6; contracts 4, 5, 6): create, list, review,
 * reopen, the state machine's refusals, and the `service.snooze_request.created` event written to
 * the outbox, on the memory store and on PostgreSQL.
 *
 * The outbox has no HTTP route yet, so the one outbox assertion reads the store behind the host:
 * - PostgreSQL: the committed rows of `outbox_events` (Migrations.ts), queried with `pg` directly.
 * - memory: the host runs over a memory store instance this file builds (`MemoryStore.make`), and
 *   `outbox.append` of that instance is wrapped to keep a copy of every event appended before it
 *   delegates to the real store. The memory store has no "list events" read (only `getEvent` by an
 *   id the HTTP answer does not carry), and a failed transaction's events would also be copied, so
 *   the assertion reads only the events of the 201 it just received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { memorySetup, postgresSetup, type Setup } from "./support/observedOutbox.js"
import { expectProblem } from "./support/problem.js"

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()
const snoozePath = "/api/v1/org/org_acme/snooze-requests"

const suite = (name: string, setup: Setup) =>
  describe(`snooze requests over HTTP (${name})`, () => {
    let host: TestHost
    let repositoryId: string
    beforeAll(async () => {
      host = await startTestHost({ store: setup.store() })
      const onboarded = await host.request("POST", "/api/v1/org/org_acme/repositories", {
        body: {
          vcsConnectionId: host.org.vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: host.org.teams["Platform"],
          assignedRoutineId: host.org.routines["Platform/Weekly"],
          branchNames: ["main"]
        }
      })
      expect(onboarded.status, onboarded.text).toBe(201)
      repositoryId = onboarded.body.repository.id
    })
    afterAll(() => host?.stop())

    const create = (body: Record<string, unknown>, key?: string) =>
      host.request("POST", snoozePath, { body: { repositoryId, ...body }, ...(key !== undefined ? { key } : {}) })
    const review = (id: string, body: unknown, key?: string) =>
      host.request("POST", `${snoozePath}/${id}/review`, { body, ...(key !== undefined ? { key } : {}) })
    const reopen = (id: string, key?: string) => host.request("POST", `${snoozePath}/${id}/reopen`, key !== undefined ? { key } : {})
    const list = async () => {
      const answer = await host.request("GET", `${snoozePath}?limit=200`)
      expect(answer.status).toBe(200)
      return answer.body.items as Array<any>
    }
    const pending = async (fromImage: string) => {
      const answer = await create({ fromImage, reason: "waiting for the vendor fix", until: future(14) })
      expect(answer.status, answer.text).toBe(201)
      return answer.body
    }

    it("creates a pending request: 201 with the contracted shape, and lists it", async () => {
      const until = future(30)
      const before = Date.now()
      const answer = await create({ fromImage: "node:18", reason: "  upgrade blocked by native module  ", until })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({
        id: expect.any(String),
        repositoryId,
        fromImage: "node:18",
        reason: "upgrade blocked by native module",
        status: "pending",
        createdAt: expect.any(String)
      })
      expect(Date.parse(answer.body.until)).toBe(Date.parse(until))
      // another zone names the same instant
      const zoned = await create({ fromImage: "node:16", reason: "r", until: "2031-06-30T23:30:00+02:00" })
      expect(zoned.status).toBe(201)
      expect(zoned.body.until).toBe("2031-06-30T21:30:00.000Z")
      expect(Date.parse(answer.body.createdAt)).toBeGreaterThanOrEqual(before - 1000)
      expect(answer.body.id).not.toBe(repositoryId)
      const listed = (await list()).filter((r) => r.id === answer.body.id)
      expect(listed).toEqual([answer.body])
    })

    it("writes service.snooze_request.created with exactly the data of spec 6", async () => {
      const answer = await create({ fromImage: "nginx:1.24", reason: "cert rollout first", until: future(7) })
      expect(answer.status).toBe(201)
      const events = (await setup.outbox()).filter((e) =>
        e.type === "service.snooze_request.created" && (e.data as any).snooze_request_id === answer.body.id
      )
      expect(events).toHaveLength(1)
      const event = events[0]!
      expect(event.subject).toBe(`exception_review/${answer.body.id}`)
      expect(event.correlationId).toBe(answer.headers.get("x-request-id"))
      expect(Object.keys(event.data as object).sort()).toEqual(
        ["action", "changed_at", "current_status", "previous_status", "repository_id", "snooze_request_id"]
      )
      expect(event.data).toEqual({
        snooze_request_id: answer.body.id,
        previous_status: null,
        current_status: "pending",
        action: "created",
        repository_id: repositoryId,
        changed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
      })
      expect(Date.parse((event.data as any).changed_at)).toBe(Date.parse(answer.body.createdAt))
      // the payload names no actor, key, reason text or image
      const text = JSON.stringify(event)
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret)
      expect(text).not.toContain("cert rollout first")
      expect(text).not.toContain(host.org.apiKeys["owner"]!)
    })

    it("until must be a future ISO 8601 date-time: a past, unparsable or vague value is a 400 naming until", async () => {
      const before = (await list()).length
      const eventsBefore = (await setup.outbox()).length
      const past = new Date(Date.now() - 60_000).toISOString()
      for (
        const until of [past, "not a date", "", "June 2031", "foo 2031", "2031-01-01", "2031-01-01T00:00:00", "2031-02-30T00:00:00Z", 12]
      ) {
        expectProblem(await create({ fromImage: "redis:6", reason: "r", until }), 400, { paths: ["until"] })
      }
      expectProblem(await create({ fromImage: "redis:6", reason: "r" }), 400, { paths: ["until"] })
      expect(await list()).toHaveLength(before)
      expect(await setup.outbox()).toHaveLength(eventsBefore)
    })

    it("an unknown, malformed or foreign repositoryId in the body is a 400 naming repositoryId", async () => {
      const before = (await list()).length
      const unknown = `repo_${"0".repeat(26)}`
      for (const id of [unknown, "repo_nope", 42]) {
        expectProblem(await create({ repositoryId: id, fromImage: "redis:6", reason: "r", until: future(1) }), 400, {
          paths: ["repositoryId"]
        })
      }
      // a repository tracked by another organization is unknown here
      const globex = await host.request("POST", "/api/v1/org/org_globex/repositories", {
        key: secrets.otherOrg,
        body: {
          vcsConnectionId: host.ids[1]!.vcsConnections["globex"],
          externalRepoId: "2001",
          assignedTeamId: host.ids[1]!.teams["Ops"],
          assignedRoutineId: host.ids[1]!.routines["Ops/Weekly"],
          branchNames: ["main"]
        }
      })
      expect(globex.status, globex.text).toBe(201)
      expectProblem(await create({ repositoryId: globex.body.repository.id, fromImage: "redis:6", reason: "r", until: future(1) }), 400, {
        paths: ["repositoryId"]
      })
      expect(await list()).toHaveLength(before)
    })

    it("other body problems are 400s naming their field", async () => {
      expectProblem(await create({ fromImage: "", reason: "r", until: future(1) }), 400, { paths: ["fromImage"] })
      expectProblem(await create({ fromImage: "Not A Ref!", reason: "r", until: future(1) }), 400, { paths: ["fromImage"] })
      expectProblem(await create({ fromImage: "redis:6", reason: "   ", until: future(1) }), 400, { paths: ["reason"] })
      expectProblem(await create({ fromImage: "redis:6", until: future(1) }), 400, { paths: ["reason"] })
    })

    it("text no store can hold is refused: 400 naming the field in the body, 404 for such an id in the path", async () => {
      const before = (await list()).length
      expectProblem(await create({ fromImage: "redis:6", reason: "wait\u0000", until: future(1) }), 400, { paths: ["reason"] })
      expectProblem(await create({ fromImage: "redis:6", reason: "\ud800 wait", until: future(1) }), 400, { paths: ["reason"] })
      expectProblem(await create({ repositoryId: "repo_\u0000", fromImage: "redis:6", reason: "r", until: future(1) }), 400, {
        paths: ["repositoryId"]
      })
      expectProblem(await review("%00", { decision: "approve" }), 404)
      expectProblem(await reopen("snz_%00"), 404)
      expect(await list()).toHaveLength(before)
    })

    it("approve and reject need exceptions:review; each moves a pending request once", async () => {
      const a = await pending("python:3.9")
      const approved = await review(a.id, { decision: "approve", comment: "ok until the fix ships" })
      expect(approved.status).toBe(200)
      expect(approved.body).toMatchObject({
        id: a.id,
        status: "approved",
        repositoryId,
        fromImage: "python:3.9",
        until: a.until,
        createdAt: a.createdAt
      })

      const r = await pending("python:3.8")
      const rejected = await review(r.id, { decision: "reject" })
      expect(rejected.status).toBe(200)
      expect(rejected.body).toMatchObject({ id: r.id, status: "rejected" })

      const byId = new Map((await list()).map((x) => [x.id, x]))
      expect(byId.get(a.id).status).toBe("approved")
      expect(byId.get(r.id).status).toBe("rejected")

      const reviewed = (await setup.outbox()).filter((e) => e.type === "service.snooze_request.reviewed")
      expect(reviewed.map((e) => e.data)).toEqual(expect.arrayContaining([
        expect.objectContaining({ snooze_request_id: a.id, previous_status: "pending", current_status: "approved", action: "reviewed" }),
        expect.objectContaining({ snooze_request_id: r.id, previous_status: "pending", current_status: "rejected", action: "reviewed" })
      ]))
    })

    it("reopen moves a rejected request back to pending, which can be reviewed again", async () => {
      const r = await pending("golang:1.20")
      expect((await review(r.id, { decision: "reject" })).status).toBe(200)
      const reopened = await reopen(r.id)
      expect(reopened.status).toBe(200)
      expect(reopened.body).toMatchObject({ id: r.id, status: "pending" })
      const again = await review(r.id, { decision: "approve" })
      expect(again.status).toBe(200)
      expect(again.body.status).toBe("approved")
      const reopenedEvents = (await setup.outbox()).filter((e) =>
        e.type === "service.snooze_request.reopened" && (e.data as any).snooze_request_id === r.id
      )
      expect(reopenedEvents.map((e) => e.data)).toEqual([
        expect.objectContaining({ previous_status: "rejected", current_status: "pending", action: "reopened" })
      ])
    })

    it("invalid transitions answer 409 and change nothing", async () => {
      const p = await pending("alpine:3.17")
      expectProblem(await reopen(p.id), 409, { type: "/problems/invalid-snooze-transition" })
      expect((await review(p.id, { decision: "approve" })).status).toBe(200)
      const eventsBefore = (await setup.outbox()).length
      expectProblem(await review(p.id, { decision: "reject" }), 409)
      expectProblem(await review(p.id, { decision: "approve" }), 409)
      expectProblem(await reopen(p.id), 409)
      const r = await pending("alpine:3.16")
      expect((await review(r.id, { decision: "reject" })).status).toBe(200)
      const eventsMid = (await setup.outbox()).length
      expectProblem(await review(r.id, { decision: "approve" }), 409)
      const byId = new Map((await list()).map((x) => [x.id, x]))
      expect(byId.get(p.id).status).toBe("approved")
      expect(byId.get(r.id).status).toBe("rejected")
      expect(eventsMid).toBe(eventsBefore + 2)
      expect((await setup.outbox()).length).toBe(eventsMid)
    })

    it("an unknown id answers 404; the review body is validated", async () => {
      const unknown = `snz_${"0".repeat(26)}`
      expectProblem(await review(unknown, { decision: "approve" }), 404, { type: "/problems/snooze-request-not-found" })
      expectProblem(await review("whatever", { decision: "approve" }), 404)
      expectProblem(await reopen(unknown), 404)
      const p = await pending("ubuntu:20.04")
      expectProblem(await review(p.id, { decision: "maybe" }), 400, { paths: ["decision"] })
      expectProblem(await review(p.id, {}), 400, { paths: ["decision"] })
      expect((await list()).find((x) => x.id === p.id).status).toBe("pending")
    })

    it("permissions: read-only lists but cannot create or review; automation has no exceptions access; another org sees nothing", async () => {
      const p = await pending("debian:11")
      const read = await host.request("GET", snoozePath, { key: secrets.readOnly })
      expect(read.status).toBe(200)
      expectProblem(await create({ fromImage: "debian:11", reason: "r", until: future(1) }, secrets.readOnly), 403)
      expectProblem(await review(p.id, { decision: "approve" }, secrets.readOnly), 403)
      expectProblem(await reopen(p.id, secrets.readOnly), 403)
      expectProblem(await host.request("GET", snoozePath, { key: secrets.automation }), 403)
      expectProblem(await create({ fromImage: "debian:11", reason: "r", until: future(1) }, secrets.automation), 403)
      // a foreign key on this org's request: 404 (its org), and its own org does not show it
      expectProblem(await review(p.id, { decision: "approve" }, secrets.otherOrg), 404)
      const foreign = await host.request("POST", `/api/v1/org/org_globex/snooze-requests/${p.id}/review`, {
        key: secrets.otherOrg,
        body: { decision: "approve" }
      })
      expectProblem(foreign, 404)
      const globexList = await host.request("GET", "/api/v1/org/org_globex/snooze-requests", { key: secrets.otherOrg })
      expect(globexList.status).toBe(200)
      expect(globexList.body.items).toEqual([])
      expect((await list()).find((x) => x.id === p.id).status).toBe("pending")
    })

    it("lists oldest first and pages with the returned cursor", async () => {
      const all = await list()
      expect(all.length).toBeGreaterThan(3)
      const created = all.map((x) => x.createdAt)
      expect([...created].sort()).toEqual(created)
      const first = await host.request("GET", `${snoozePath}?limit=2`)
      expect(first.body.items).toEqual(all.slice(0, 2))
      const second = await host.request("GET", `${snoozePath}?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`)
      expect(second.body.items).toEqual(all.slice(2, 4))
    })
  })

suite("memory", memorySetup())

await pgDescribe("http-exceptions", (url) => {
  suite("postgres", postgresSetup(url))
})
