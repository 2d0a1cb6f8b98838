/** Storage contract: snooze requests (`SnoozeStore`). */
import { assert } from "@effect/vitest"
import type { Id, SnoozeRequest } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Contract, type ContractIt, newId, stamp } from "./support.js"

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
}
