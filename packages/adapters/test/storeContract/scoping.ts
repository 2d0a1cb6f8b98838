/** Storage contract: organization scoping across the stores: no method reads or changes another organization's rows. */
import { assert } from "@effect/vitest"
import type { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Contract, type ContractIt, newId } from "./support.js"

export const scoping = (
  it: ContractIt,
  {
    store,
    newOrg,
    team,
    routine,
    connection,
    repository,
    group,
    draft,
    webhook,
    audit,
    event,
    scan,
    finding,
    succeeded,
    remediation,
    trackedRepository,
    branchStatuses,
    claimOf,
    claimNow,
    complete
  }: Contract
) => {
  it.effect("org scoping: another organization sees none of these rows through any method", () =>
    Effect.gen(function*() {
      const a = yield* newOrg()
      const b = yield* newOrg()
      const t = team("Platform")
      const r = routine(t.id)
      const c = connection()
      yield* store.teams.insert(a.id, t)
      yield* store.routines.insert(a.id, r)
      yield* store.vcsConnections.insert(a.id, c, { fixture: true })
      const repo = repository(c.id, "1", t.id, r.id)
      yield* store.repositories.insert(a.id, repo)
      const phase = newId<Id.PhaseId>("phase")
      const g = group([phase])
      yield* store.policyGroups.insert(a.id, g)
      const d = draft(phase, "nginx:1", "nginx:2")
      yield* store.drafts.put(a.id, g.id, d)
      yield* store.assignments.replace(a.id, repo.id, [{ policyGroupId: g.id, branchNames: ["main"] }])
      const w = webhook()
      yield* store.webhooks.insert(a.id, w)
      yield* store.audit.append(a.id, audit("team.create"))
      const e = event()
      yield* store.outbox.append(a.id, [{ event: e, destinations: [w.id] }])

      assert.isTrue(Option.isNone(yield* store.teams.get(b.id, t.id)))
      assert.isTrue(Option.isNone(yield* store.routines.get(b.id, r.id)))
      assert.isTrue(Option.isNone(yield* store.vcsConnections.get(b.id, c.id)))
      assert.isTrue(Option.isNone(yield* store.vcsConnections.settings(b.id, c.id)))
      assert.isTrue(Option.isNone(yield* store.repositories.get(b.id, repo.id)))
      assert.isTrue(Option.isNone(yield* store.repositories.findByExternalId(b.id, c.id, "1")))
      assert.strictEqual((yield* store.repositories.trackedExternalIds(b.id, c.id)).size, 0)
      assert.isTrue(Option.isNone(yield* store.policyGroups.get(b.id, g.id)))
      assert.isTrue(Option.isNone(yield* store.drafts.findByKey(b.id, g.id, phase, d.key)))
      assert.strictEqual((yield* store.drafts.listByGroup(b.id, g.id)).length, 0)
      assert.strictEqual((yield* store.assignments.get(b.id, repo.id)).length, 0)
      assert.isTrue(Option.isNone(yield* store.webhooks.get(b.id, w.id)))
      assert.isTrue(Option.isNone(yield* store.outbox.getEvent(b.id, e.id)))
      assert.strictEqual((yield* store.outbox.deliveries(b.id, w.id, { limit: 50 })).items.length, 0)
      for (
        const list of [
          store.teams.list,
          store.routines.list,
          store.vcsConnections.list,
          store.repositories.list,
          store.policyGroups.list,
          store.webhooks.list,
          store.audit.list,
          store.apiKeys.list,
          store.snoozeRequests.list
        ]
      ) {
        assert.strictEqual((yield* list(b.id, { limit: 200 })).items.length, 0)
      }
    }))

  it.effect("scans and remediation requests: another organization's ids find nothing and change nothing", () =>
    Effect.gen(function*() {
      const a = yield* newOrg()
      const b = yield* newOrg()
      const repo = yield* trackedRepository(a.id)
      const done = yield* complete(a.id, scan(repo.id, "main"), succeeded([finding("Dockerfile", 1, 6)]))
      const r = remediation(repo.id, "main")
      yield* store.remediations.put(a.id, r)
      const pending = scan(repo.id, "release")
      yield* store.scans.enqueue(a.id, pending)
      yield* claimOf([pending.id], "w", claimNow)

      assert.isTrue(Option.isNone(yield* store.scans.get(b.id, done.id)))
      assert.isTrue(Option.isNone(yield* store.scans.latest(b.id, repo.id, "main")))
      assert.isTrue(Option.isNone(yield* store.scans.latestSucceeded(b.id, repo.id, "main")))
      assert.deepStrictEqual((yield* store.scans.list(b.id, repo.id, { limit: 50 })).items, [])
      assert.deepStrictEqual((yield* store.scans.findings(b.id, repo.id, "main", { limit: 50 })).items, [])
      assert.deepStrictEqual(yield* store.scans.allFindings(b.id, repo.id, "main"), [])
      assert.isFalse(yield* store.scans.finish(b.id, pending.id, "w", succeeded([])), "another org cannot end the scan")
      assert.strictEqual(Option.getOrThrow(yield* store.scans.get(a.id, pending.id)).status, "running")
      const theirs = scan(repo.id, "release")
      assert.deepStrictEqual(yield* store.scans.enqueue(b.id, theirs), theirs, "a's pending scan is not b's")
      assert.isTrue(Option.isNone(yield* store.remediations.get(b.id, r.id)))
      assert.isTrue(Option.isNone(yield* store.remediations.latest(b.id, repo.id, "main")))
      assert.deepStrictEqual((yield* store.remediations.list(b.id, repo.id, { limit: 50 })).items, [])
      assert.isTrue(yield* store.scans.finish(a.id, pending.id, "w", succeeded([])))
      assert.deepStrictEqual(yield* branchStatuses(a.id, repo.id), ["succeeded", "succeeded"])
    }))
}
