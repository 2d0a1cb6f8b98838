/** Storage contract: snooze requests (`SnoozeStore`). */
import { assert } from "@effect/vitest"
import { type Id, SnoozeRequest } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, newId, stamp } from "./support.js"

export const snoozes = (it: ContractIt, { store, newOrg }: Contract) => {
  it.effect("snooze requests: insert, update, list, and one repository's requests", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const s: SnoozeRequest.SnoozeRequest = {
        id: newId("snoozeRequest"),
        repositoryId: newId("repository"),
        fromImage: "nginx:1",
        reason: "vendor",
        until: "2026-03-01T00:00:00.000Z",
        status: "pending",
        createdAt: stamp(),
        reviewedAt: null,
        reviewComment: null
      }
      yield* store.snoozeRequests.insert(org.id, s)
      const approved = { ...s, status: "approved" as const, reviewedAt: "2026-01-05T00:00:00.000Z", reviewComment: "ok" }
      yield* store.snoozeRequests.update(org.id, approved)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.snoozeRequests.get(org.id, s.id)), approved)
      assert.deepStrictEqual((yield* store.snoozeRequests.list(org.id, { limit: 5 })).items, [approved])

      // one repository's requests, oldest first, whatever their status; nothing of another repository or organization
      const later: SnoozeRequest.SnoozeRequest = {
        ...s,
        id: newId<Id.SnoozeRequestId>("snoozeRequest"),
        fromImage: "redis:7",
        status: "rejected",
        createdAt: stamp()
      }
      const elsewhere: SnoozeRequest.SnoozeRequest = {
        ...s,
        id: newId<Id.SnoozeRequestId>("snoozeRequest"),
        repositoryId: newId<Id.RepositoryId>("repository"),
        createdAt: stamp()
      }
      for (const r of [later, elsewhere]) yield* store.snoozeRequests.insert(org.id, r)
      assert.deepStrictEqual(yield* store.snoozeRequests.listByRepository(org.id, s.repositoryId), [approved, later])
      assert.deepStrictEqual(yield* store.snoozeRequests.listByRepository(org.id, elsewhere.repositoryId), [elsewhere])
      const other = yield* newOrg()
      assert.deepStrictEqual(yield* store.snoozeRequests.listByRepository(other.id, s.repositoryId), [])
    }))

  const request = (
    status: SnoozeRequest.SnoozeStatus,
    repositoryId: Id.RepositoryId,
    until = "2026-03-01T00:00:00.000Z"
  ): SnoozeRequest.SnoozeRequest => ({
    id: newId("snoozeRequest"),
    repositoryId,
    fromImage: "nginx:1",
    reason: "vendor",
    until,
    status,
    createdAt: stamp(),
    reviewedAt: null,
    reviewComment: null
  })

  it.effect("snooze requests: the list filters by status and repository, and its cursors page through the filtered list", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const [a, b] = [newId<Id.RepositoryId>("repository"), newId<Id.RepositoryId>("repository")]
      const rows = [
        request("pending", a),
        request("approved", a),
        request("approved", b),
        request("rejected", a),
        request("approved", a),
        request("expired", b),
        request("approved", a)
      ]
      for (const r of rows) yield* store.snoozeRequests.insert(org.id, r)
      const ids = (filter: SnoozeRequest.SnoozeFilter) =>
        Effect.map(allPages((p) => store.snoozeRequests.list(org.id, p, filter), 2), ({ items }) => items.map((r) => r.id))
      const expected = (filter: SnoozeRequest.SnoozeFilter) => rows.filter((r) => SnoozeRequest.matchesFilter(filter, r)).map((r) => r.id)
      for (
        const filter of [{}, { status: "approved" as const }, { repositoryId: a }, { status: "approved" as const, repositoryId: a }, {
          status: "expired" as const,
          repositoryId: a
        }, { repositoryId: "repo_unknown" }]
      ) {
        assert.deepStrictEqual(yield* ids(filter), expected(filter), JSON.stringify(filter))
      }
      assert.strictEqual(expected({ status: "approved", repositoryId: a }).length, 3)
      const other = yield* newOrg()
      assert.deepStrictEqual((yield* store.snoozeRequests.list(other.id, { limit: 10 }, { status: "approved" })).items, [])
    }))

  it.effect("snooze requests: a transition is a compare-and-set on the status; only the first of two writers moves it", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const pending = request("pending", newId("repository"))
      yield* store.snoozeRequests.insert(org.id, pending)
      const approved = { ...pending, status: "approved" as const, reviewedAt: stamp(), reviewComment: null }
      const rejected = { ...pending, status: "rejected" as const, reviewedAt: stamp(), reviewComment: "no" }
      assert.isTrue(yield* store.snoozeRequests.transition(org.id, approved, "pending"))
      assert.isFalse(yield* store.snoozeRequests.transition(org.id, rejected, "pending"), "the status moved")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.snoozeRequests.get(org.id, pending.id)), approved)
      const other = yield* newOrg()
      assert.isFalse(yield* store.snoozeRequests.transition(other.id, rejected, "approved"), "another organization's request")
      assert.isFalse(yield* store.snoozeRequests.transition(org.id, request("pending", newId("repository")), "pending"), "no such request")
      // what the list filters on follows the transition
      assert.deepStrictEqual((yield* store.snoozeRequests.list(org.id, { limit: 10 }, { status: "approved" })).items, [approved])
      assert.deepStrictEqual((yield* store.snoozeRequests.list(org.id, { limit: 10 }, { status: "pending" })).items, [])
    }))

  it.effect("snooze requests: the expiry read finds approved requests past their until, in every organization, earliest first", () =>
    Effect.gen(function*() {
      const [org1, org2] = [yield* newOrg(), yield* newOrg()]
      const repo = newId<Id.RepositoryId>("repository")
      const late = request("approved", repo, "1990-01-03T00:00:00.000Z")
      const early = request("approved", repo, "1990-01-01T00:00:00.000Z")
      const future = request("approved", repo, "2999-01-01T00:00:00.000Z")
      const pendingPast = request("pending", repo, "1990-01-01T00:00:00.000Z")
      const rejectedPast = request("rejected", repo, "1990-01-01T00:00:00.000Z")
      yield* store.snoozeRequests.insert(org1.id, late)
      yield* store.snoozeRequests.insert(org2.id, early)
      for (const r of [future, pendingPast, rejectedPast]) yield* store.snoozeRequests.insert(org1.id, r)
      const ours = new Set<string>([late, early, future, pendingPast, rejectedPast].map((r) => r.id))
      const due = (now: string) =>
        Effect.map(store.snoozeRequests.dueForExpiry({ now: new Date(now), limit: 10_000 }), (rows) => rows.filter((r) => ours.has(r.id)))
      assert.deepStrictEqual(yield* due("1990-01-02T00:00:00.000Z"), [{ orgId: org2.id, id: early.id }])
      assert.deepStrictEqual(
        yield* due("1990-01-03T00:00:00.000Z"),
        [{ orgId: org2.id, id: early.id }, { orgId: org1.id, id: late.id }],
        "until equal to now is due"
      )
      yield* store.snoozeRequests.transition(org2.id, { ...early, status: "expired" }, "approved")
      assert.deepStrictEqual(
        yield* due("2000-01-01T00:00:00.000Z"),
        [{ orgId: org1.id, id: late.id }],
        "an expired request is not due again"
      )
    }))
}
