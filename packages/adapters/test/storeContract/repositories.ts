/** Storage contract: VCS connections, repositories and assignments (`RepositoryStore`). */
import { assert } from "@effect/vitest"
import { type Id, Repository } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { type Contract, type ContractIt, newId } from "./support.js"

export const repositories = (it: ContractIt, { options, store, newOrg, team, routine, connection, repository }: Contract) => {
  it.effect("repositories: round trip, filter by id, tracked ids, scan status, duplicate tracking refused", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const t = team("Platform")
      const r = routine(t.id)
      const c = connection()
      yield* store.vcsConnections.insert(org.id, c, { fixture: { repositories: [] } })
      assert.deepStrictEqual(Option.getOrThrow(yield* store.vcsConnections.settings(org.id, c.id)), { fixture: { repositories: [] } })
      const repo = repository(c.id, "1001", t.id, r.id)
      yield* store.repositories.insert(org.id, repo)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.repositories.get(org.id, repo.id)), repo)
      const dup = yield* Effect.result(store.repositories.insert(org.id, repository(c.id, "1001", t.id, r.id)))
      assert.isTrue(Result.isFailure(dup) && dup.failure._tag === "RepositoryAlreadyTracked" && dup.failure.repositoryId === repo.id)
      const other = repository(c.id, "1002", t.id, r.id)
      yield* store.repositories.insert(org.id, other)
      assert.deepStrictEqual((yield* store.repositories.list(org.id, { limit: 50 }, { repositoryId: other.id })).items, [other])
      assert.deepStrictEqual([...(yield* store.repositories.trackedExternalIds(org.id, c.id))].sort(), ["1001", "1002"])
      // a provider's verdict moves a connection between active and error, never over the owner's inactive
      const statusNow = () => Effect.map(store.vcsConnections.get(org.id, c.id), (x) => Option.getOrThrow(x).status)
      yield* store.vcsConnections.setHealth(org.id, c.id, "error")
      assert.strictEqual(yield* statusNow(), "error")
      yield* store.vcsConnections.setHealth(org.id, c.id, "active")
      assert.strictEqual(yield* statusNow(), "active")
      yield* store.vcsConnections.setStatus(org.id, c.id, "inactive")
      assert.strictEqual(yield* statusNow(), "inactive")
      yield* store.vcsConnections.setHealth(org.id, c.id, "active")
      yield* store.vcsConnections.setHealth(org.id, c.id, "error")
      assert.strictEqual(yield* statusNow(), "inactive", "the owner's inactive stays")
      const elsewhere = yield* newOrg()
      yield* store.vcsConnections.setHealth(elsewhere.id, c.id, "active")
      assert.strictEqual(yield* statusNow(), "inactive", "another organization's id changes nothing")
    }))

  it.effect("assignments: replacement equals the request; empty clears", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repoId = newId<Id.RepositoryId>("repository")
      const request = [
        { policyGroupId: newId<Id.PolicyGroupId>("policyGroup"), branchNames: ["main", "release"] },
        { policyGroupId: newId<Id.PolicyGroupId>("policyGroup"), branchNames: ["main"] }
      ]
      yield* store.assignments.replace(org.id, repoId, request)
      assert.deepStrictEqual(yield* store.assignments.get(org.id, repoId), request)
      yield* store.assignments.replace(org.id, repoId, request.slice(1))
      assert.deepStrictEqual(yield* store.assignments.get(org.id, repoId), request.slice(1))
      yield* store.assignments.replace(org.id, repoId, [])
      assert.deepStrictEqual(yield* store.assignments.get(org.id, repoId), [])
    }))

  it.effect("assignments: the repositories whose assignments name a group, by repository id, in the organization only", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const other = yield* newOrg()
      const [g, h] = [newId<Id.PolicyGroupId>("policyGroup"), newId<Id.PolicyGroupId>("policyGroup")]
      const repos = [0, 1, 2].map(() => newId<Id.RepositoryId>("repository")).sort()
      yield* store.assignments.replace(org.id, repos[0]!, [{ policyGroupId: h, branchNames: ["main"] }, {
        policyGroupId: g,
        branchNames: ["main"]
      }])
      yield* store.assignments.replace(org.id, repos[1]!, [{ policyGroupId: h, branchNames: ["main"] }])
      yield* store.assignments.replace(org.id, repos[2]!, [{ policyGroupId: g, branchNames: ["release"] }])
      yield* store.assignments.replace(other.id, newId<Id.RepositoryId>("repository"), [{ policyGroupId: g, branchNames: ["main"] }])
      assert.deepStrictEqual(yield* store.assignments.referencing(org.id, g), [
        {
          repositoryId: repos[0]!,
          assignments: [{ policyGroupId: h, branchNames: ["main"] }, { policyGroupId: g, branchNames: ["main"] }]
        },
        { repositoryId: repos[2]!, assignments: [{ policyGroupId: g, branchNames: ["release"] }] }
      ])
      yield* store.assignments.replace(org.id, repos[2]!, [])
      assert.deepStrictEqual((yield* store.assignments.referencing(org.id, g)).map((r) => r.repositoryId), [repos[0]!])
      assert.deepStrictEqual(yield* store.assignments.referencing(org.id, newId<Id.PolicyGroupId>("policyGroup")), [])
    }))

  if (options.concurrency) {
    it.effect("concurrency: parallel onboarding of one repository tracks it once", () =>
      Effect.gen(function*() {
        const org = yield* newOrg()
        const c = connection()
        yield* store.vcsConnections.insert(org.id, c, null)
        const t = newId<Id.TeamId>("team")
        const r = newId<Id.RoutineId>("routine")
        const results = yield* Effect.all(
          Array.from(
            { length: 10 },
            () => Effect.result(store.transaction(store.repositories.insert(org.id, repository(c.id, "42", t, r))))
          ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter(Result.isSuccess).length, 1)
        assert.isTrue(results.filter(Result.isFailure).every((e) => e.failure instanceof Repository.RepositoryAlreadyTracked))
        assert.strictEqual((yield* store.repositories.list(org.id, { limit: 50 })).items.length, 1)
      }))

    it.effect("concurrency: racing assignment replacements leave exactly one writer's complete set", () =>
      Effect.gen(function*() {
        const org = yield* newOrg()
        const c = connection()
        yield* store.vcsConnections.insert(org.id, c, null)
        const repo = repository(c.id, "7", newId("team"), newId("routine"))
        yield* store.repositories.insert(org.id, repo)
        const requests = Array.from({ length: 10 }, () =>
          [newId<Id.PolicyGroupId>("policyGroup"), newId<Id.PolicyGroupId>("policyGroup")].map((policyGroupId) => ({
            policyGroupId,
            branchNames: ["main", "release"]
          })))
        yield* Effect.all(
          requests.map((request) =>
            store.transaction(Effect.gen(function*() {
              yield* store.repositories.lock(org.id, repo.id)
              yield* store.assignments.get(org.id, repo.id)
              yield* store.assignments.replace(org.id, repo.id, request)
            }))
          ),
          { concurrency: "unbounded" }
        )
        const final = yield* store.assignments.get(org.id, repo.id)
        assert.isTrue(
          requests.some((r) =>
            JSON.stringify(r) === JSON.stringify(final)
          ),
          "one request, whole"
        )
      }))
  }
}
