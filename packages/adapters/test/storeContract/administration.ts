/**
 * Storage contract: what organization administration (issue 15) needs of the stores: deleting
 * teams, routines, connections and repositories, usage counts, settings, scan removal and closing
 * remediation requests; all of it scoped by organization and undone with a failed transaction.
 */
import { assert } from "@effect/vitest"
import type { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Contract, type ContractIt, newId, stamp } from "./support.js"

export const administration = (
  it: ContractIt,
  {
    claimOf,
    claimNow,
    complete,
    connection,
    finding,
    newOrg,
    remediation,
    repository,
    routine,
    scan,
    store,
    succeeded,
    team,
    trackedRepository
  }: Contract
) => {
  it.effect("organizations: insert replaces the document (settings), its rows stay; lock inside a transaction", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const t = team("Platform")
      yield* store.teams.insert(org.id, t)
      const changed = { ...org, defaultNotificationTeamId: t.id, cooldownSeconds: 3600 }
      yield* store.transaction(Effect.gen(function*() {
        yield* store.organizations.lock(org.id)
        yield* store.organizations.insert(changed)
      }))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.organizations.get(org.id)), changed)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.teams.get(org.id, t.id)), t, "the org's rows stay")
    }))

  it.effect("teams and routines: rename by insert, delete a team with its routines, delete a routine; other orgs untouched", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const other = yield* newOrg()
      const t = team("Platform")
      const keep = team("Payments")
      const r1 = routine(t.id, "Daily")
      const r2 = routine(t.id, "Weekly")
      const r3 = routine(keep.id, "Monthly")
      const loose = routine(null, "Loose")
      for (const x of [t, keep]) yield* store.teams.insert(org.id, x)
      for (const r of [r1, r2, r3, loose]) yield* store.routines.insert(org.id, r)
      yield* store.teams.insert(other.id, t) // the same id in another organization
      yield* store.routines.insert(other.id, r1)
      yield* store.teams.insert(org.id, { ...t, name: "Platform engineering" })
      assert.strictEqual(Option.getOrThrow(yield* store.teams.get(org.id, t.id)).name, "Platform engineering")
      yield* store.transaction(store.routines.lock(org.id, r2.id))
      yield* store.routines.insert(org.id, { ...r2, active: false, intervalDays: 30 })
      assert.deepStrictEqual(Option.getOrThrow(yield* store.routines.get(org.id, r2.id)), { ...r2, active: false, intervalDays: 30 })

      yield* store.teams.delete(org.id, t.id)
      assert.isTrue(Option.isNone(yield* store.teams.get(org.id, t.id)))
      assert.deepStrictEqual((yield* store.routines.list(org.id, { limit: 50 })).items.map((r) => r.id).sort(), [r3.id, loose.id].sort())
      assert.isTrue(Option.isSome(yield* store.teams.get(other.id, t.id)), "another organization's team with the id stays")
      assert.isTrue(Option.isSome(yield* store.routines.get(other.id, r1.id)))
      yield* store.routines.delete(org.id, loose.id)
      assert.isTrue(Option.isNone(yield* store.routines.get(org.id, loose.id)))
      yield* store.teams.delete(org.id, newId("team")) // unknown: nothing happens
      yield* store.routines.delete(org.id, newId("routine"))
      assert.strictEqual((yield* store.teams.list(org.id, { limit: 50 })).items.length, 1)
    }))

  it.effect("vcs connections: settings replaced, status kept; delete removes connection and settings", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const c = connection("inactive")
      yield* store.vcsConnections.insert(org.id, c, { kind: "api", baseUrl: "https://api.github.com", sealedToken: "v1.a" })
      yield* store.vcsConnections.setSettings(org.id, c.id, { kind: "api", baseUrl: "https://api.github.com", sealedToken: "v1.b" })
      assert.deepStrictEqual(Option.getOrThrow(yield* store.vcsConnections.settings(org.id, c.id)), {
        kind: "api",
        baseUrl: "https://api.github.com",
        sealedToken: "v1.b"
      })
      assert.strictEqual(Option.getOrThrow(yield* store.vcsConnections.get(org.id, c.id)).status, "inactive")
      const elsewhere = yield* newOrg()
      yield* store.vcsConnections.delete(elsewhere.id, c.id)
      assert.isTrue(Option.isSome(yield* store.vcsConnections.get(org.id, c.id)), "another organization's id deletes nothing")
      yield* store.vcsConnections.delete(org.id, c.id)
      assert.isTrue(Option.isNone(yield* store.vcsConnections.get(org.id, c.id)))
      assert.isTrue(Option.isNone(yield* store.vcsConnections.settings(org.id, c.id)))
      assert.isTrue(Option.isNone(yield* store.vcsConnections.locate(c.id)))
    }))

  it.effect("repositories: count by team, routine and connection; update replaces; delete removes it and its assignments", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const t = team("A")
      const u = team("B")
      const r = routine(t.id)
      const s = routine(u.id)
      const c = connection()
      const d = connection()
      for (const x of [c, d]) yield* store.vcsConnections.insert(org.id, x, null)
      const a = repository(c.id, `${stamp()}`, t.id, r.id)
      const b = repository(c.id, `${stamp()}`, t.id, r.id)
      const e = repository(d.id, `${stamp()}`, u.id, s.id)
      for (const x of [a, b, e]) yield* store.repositories.insert(org.id, x)
      assert.strictEqual(yield* store.repositories.count(org.id, { teamId: t.id }), 2)
      assert.strictEqual(yield* store.repositories.count(org.id, { routineId: s.id }), 1)
      assert.strictEqual(yield* store.repositories.count(org.id, { vcsConnectionId: c.id }), 2)
      assert.strictEqual(yield* store.repositories.count(org.id, { vcsConnectionId: d.id, teamId: t.id }), 0)
      assert.strictEqual(yield* store.repositories.count((yield* newOrg()).id, { teamId: t.id }), 0, "scoped")

      const moved = { ...a, assignedTeamId: u.id, assignedRoutineId: s.id, branches: [a.branches[0]!] }
      yield* store.transaction(Effect.gen(function*() {
        yield* store.repositories.lock(org.id, a.id)
        yield* store.repositories.update(org.id, moved)
      }))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.repositories.get(org.id, a.id)), moved)
      assert.strictEqual(yield* store.repositories.count(org.id, { teamId: t.id }), 1)
      assert.strictEqual(yield* store.repositories.count(org.id, { routineId: s.id }), 2)
      yield* store.repositories.update(org.id, { ...moved, id: newId("repository") }) // unknown: nothing happens
      assert.strictEqual((yield* store.repositories.list(org.id, { limit: 50 })).items.length, 3)

      const groupId = newId<Id.PolicyGroupId>("policyGroup")
      yield* store.assignments.replace(org.id, a.id, [{ policyGroupId: groupId, branchNames: ["main"] }])
      yield* store.repositories.delete(org.id, a.id)
      assert.isTrue(Option.isNone(yield* store.repositories.get(org.id, a.id)))
      assert.deepStrictEqual(yield* store.assignments.get(org.id, a.id), [])
      assert.isFalse((yield* store.repositories.trackedExternalIds(org.id, c.id)).has(a.externalRepoId), "it can be tracked again")
      assert.strictEqual(yield* store.repositories.count(org.id, { vcsConnectionId: c.id }), 1)
    }))

  it.effect("scans: remove drops the named branches' scans and findings (or all); a worker holding one loses it", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const other = yield* trackedRepository(org.id)
      yield* complete(org.id, scan(repo.id, "main"), succeeded([finding("Dockerfile", 1, 6)]))
      yield* complete(org.id, scan(repo.id, "release"), succeeded([finding("Dockerfile", 2, 6)]))
      yield* complete(org.id, scan(other.id, "main"), succeeded([finding("Dockerfile", 3, 6)]))
      const held = scan(repo.id, "release")
      yield* store.scans.enqueue(org.id, held)
      assert.strictEqual((yield* claimOf([held.id], "w1", claimNow)).length, 1)

      yield* store.scans.remove(org.id, repo.id, ["release"])
      assert.isTrue(Option.isNone(yield* store.scans.latest(org.id, repo.id, "release")))
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "release"), [])
      assert.strictEqual((yield* store.scans.allFindings(org.id, repo.id, "main")).length, 1, "other branches keep theirs")
      assert.isFalse(yield* store.scans.finish(org.id, held.id, "w1", succeeded([finding("x", 1, 1)])), "the lease is gone")
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "release"), [], "and nothing was written")

      yield* store.scans.remove(org.id, repo.id)
      assert.deepStrictEqual((yield* store.scans.list(org.id, repo.id, { limit: 50 })).items, [])
      assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [])
      assert.strictEqual((yield* store.scans.allFindings(org.id, other.id, "main")).length, 1, "other repositories keep theirs")
      yield* store.scans.remove(org.id, repo.id, []) // nothing named: nothing removed
    }))

  it.effect("remediation requests: close sets the named branches' (or all) requests closed once, with updatedAt", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const other = yield* trackedRepository(org.id)
      const main = remediation(repo.id, "main")
      const release = remediation(repo.id, "release", "superseded")
      const elsewhere = remediation(other.id, "main")
      for (const r of [main, release, elsewhere]) yield* store.remediations.put(org.id, r)
      const at = stamp()
      assert.strictEqual(yield* store.remediations.close(org.id, repo.id, { at, branchNames: ["release"] }), 1)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, release.id)), {
        ...release,
        status: "closed",
        updatedAt: at
      })
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, main.id)), main)
      const later = stamp()
      assert.strictEqual(yield* store.remediations.close(org.id, repo.id, { at: later }), 1, "closed ones are not closed again")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, main.id)), {
        ...main,
        status: "closed",
        updatedAt: later
      })
      assert.strictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, release.id)).updatedAt, at)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, elsewhere.id)), elsewhere)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main")).status, "closed")
    }))

  it.effect("a failed transaction undoes deletes, updates and closes", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const t = Option.getOrThrow(yield* store.teams.get(org.id, repo.assignedTeamId))
      const req = remediation(repo.id, "main")
      yield* store.remediations.put(org.id, req)
      yield* complete(org.id, scan(repo.id, "main"), succeeded([finding("Dockerfile", 1, 6)]))
      const before = Option.getOrThrow(yield* store.repositories.get(org.id, repo.id))
      const failed = yield* Effect.result(store.transaction(Effect.gen(function*() {
        yield* store.scans.remove(org.id, repo.id)
        yield* store.remediations.close(org.id, repo.id, { at: stamp() })
        yield* store.repositories.delete(org.id, repo.id)
        yield* store.vcsConnections.delete(org.id, repo.vcsConnectionId)
        yield* store.teams.delete(org.id, t.id)
        return yield* Effect.fail("rejected")
      })))
      assert.isTrue(failed._tag === "Failure")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.repositories.get(org.id, repo.id)), before)
      assert.isTrue(Option.isSome(yield* store.vcsConnections.get(org.id, repo.vcsConnectionId)))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.teams.get(org.id, t.id)), t)
      assert.isTrue(Option.isSome(yield* store.routines.get(org.id, repo.assignedRoutineId)))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, req.id)), req)
      assert.strictEqual((yield* store.scans.allFindings(org.id, repo.id, "main")).length, 1)
    }))
}
