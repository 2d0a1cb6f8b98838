/** Storage contract: policy groups, drafts and published mappings (`PolicyStore`). */
import { assert } from "@effect/vitest"
import { Id, type Mapping, type PolicyGroup } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, newId, stamp } from "./support.js"

export const policies = (it: ContractIt, { options, store, newOrg, connection, group, draft }: Contract) => {
  it.effect("policy groups, drafts and published mappings", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const [p1, p2] = [newId<Id.PhaseId>("phase"), newId<Id.PhaseId>("phase")]
      const g: PolicyGroup.PolicyGroup = {
        ...group([p1, p2], "Base"),
        phases: [
          { id: p1, name: "Curated", sourceType: "internal", position: 0 },
          {
            id: p2,
            name: "Repo",
            sourceType: "external",
            position: 1,
            external: {
              vcsConnectionId: newId("vcsConnection"),
              repositoryFullName: "acme/policy",
              branch: "main",
              path: "service-mappings.json",
              pollIntervalSeconds: 300,
              lastSyncedAt: null,
              lastError: null,
              lastVersion: null
            }
          }
        ]
      }
      yield* store.policyGroups.insert(org.id, g)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)), g)
      assert.deepStrictEqual((yield* store.policyGroups.all(org.id)).map((x) => x.id), [g.id])
      yield* store.policyGroups.setExternalState(org.id, g.id, p2, {
        lastSyncedAt: "2026-01-02T00:00:00.000Z",
        lastError: "mappings[0].toImage: not exact",
        lastVersion: "abc"
      })
      const ext = Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)).phases[1]!.external!
      assert.deepStrictEqual([ext.lastSyncedAt, ext.lastError, ext.lastVersion], [
        "2026-01-02T00:00:00.000Z",
        "mappings[0].toImage: not exact",
        "abc"
      ])
      assert.strictEqual(ext.pollIntervalSeconds, 300, "the poll interval round-trips and survives a sync state update")
      const faster = { ...g, phases: g.phases.map((p) => p.external ? { ...p, external: { ...p.external, pollIntervalSeconds: 10 } } : p) }
      yield* store.policyGroups.insert(org.id, faster)
      assert.strictEqual(Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)).phases[1]!.external!.pollIntervalSeconds, 10)

      const d1 = draft(p1, "nginx:1", "nginx:1.27")
      yield* store.drafts.put(org.id, g.id, d1)
      const replaced = { ...d1, toImage: "nginx:1.28", updatedAt: stamp() }
      yield* store.drafts.put(org.id, g.id, replaced)
      assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, g.id), [replaced])
      assert.deepStrictEqual(Option.getOrThrow(yield* store.drafts.findByKey(org.id, g.id, p1, d1.key)), replaced)
      const more = [draft(p1, "redis:7", "redis:7.2"), draft(p1, "node:20", "node:20.11")]
      for (const d of more) yield* store.drafts.put(org.id, g.id, d)
      const { items } = yield* allPages((p) => store.drafts.listByPhase(org.id, g.id, p1, p), 2)
      assert.deepStrictEqual(items.map((d) => d.id), [replaced.id, ...more.map((d) => d.id)])

      const live = (d: Mapping.DraftMapping, activeFrom: string): PolicyGroup.PublishedMapping => ({ ...d, activeFrom })
      const external = live(draft(p2, "alpine:3", "alpine:3.20"), "2026-01-03T00:00:00.000Z")
      yield* store.published.replace(org.id, g.id, [p2], [external])
      yield* store.published.replace(org.id, g.id, [p1], [live(replaced, "2026-01-04T00:00:00.000Z")])
      const published = yield* store.published.listByGroup(org.id, g.id)
      assert.deepStrictEqual(published.map((m) => m.id).sort(), [external.id, replaced.id].sort())
      yield* store.published.replace(org.id, g.id, [p1], [])
      assert.deepStrictEqual((yield* store.published.listByGroup(org.id, g.id)).map((m) => m.id), [external.id])
      assert.deepStrictEqual((yield* store.published.listByGroup(org.id, g.id))[0], external)

      // several groups in one read: each list as listByGroup answers it, unknown groups empty
      yield* store.published.replace(org.id, g.id, [p1], [
        live(replaced, "2026-01-04T00:00:00.000Z"),
        live(more[0]!, "2026-01-05T00:00:00.000Z")
      ])
      const unknown = Id.make("policyGroup", new Uint8Array(16).fill(99)) as Id.PolicyGroupId
      const both = yield* store.published.listByGroups(org.id, [unknown, g.id])
      assert.deepStrictEqual([...both.keys()].sort(), [unknown, g.id].sort())
      assert.deepStrictEqual(both.get(g.id), yield* store.published.listByGroup(org.id, g.id))
      assert.deepStrictEqual(both.get(unknown), [])
      assert.strictEqual((yield* store.published.listByGroups(org.id, [])).size, 0)
      const other = yield* newOrg()
      assert.deepStrictEqual(
        (yield* store.published.listByGroups(other.id, [g.id])).get(g.id),
        [],
        "another organization's ids read nothing"
      )
    }))

  it.effect("draft removal by id and by phase, group deletion with its drafts and published mappings", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const [p1, p2] = [newId<Id.PhaseId>("phase"), newId<Id.PhaseId>("phase")]
      const g = group([p1, p2])
      const kept = group([newId<Id.PhaseId>("phase")])
      yield* store.policyGroups.insert(org.id, g)
      yield* store.policyGroups.insert(org.id, kept)
      const [a, b, c] = [draft(p1, "nginx:1", "nginx:1.27"), draft(p1, "redis:7", "redis:7.2"), draft(p2, "node:20", "node:20.11")]
      const other = draft(kept.phases[0]!.id, "alpine:3", "alpine:3.20")
      for (const d of [a, b, c]) yield* store.drafts.put(org.id, g.id, d)
      yield* store.drafts.put(org.id, kept.id, other)

      assert.deepStrictEqual(yield* store.drafts.remove(org.id, g.id, p1, a.id), Option.some(a))
      assert.isTrue(Option.isNone(yield* store.drafts.remove(org.id, g.id, p1, a.id)), "a removed draft is gone")
      assert.isTrue(Option.isNone(yield* store.drafts.remove(org.id, g.id, p2, b.id)), "another phase's draft is not removed")
      assert.isTrue(Option.isNone(yield* store.drafts.remove((yield* newOrg()).id, g.id, p1, b.id)), "nor another organization's")
      assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, g.id), [b, c])
      yield* store.drafts.removeByPhase(org.id, g.id, p1)
      assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, g.id), [c])

      yield* store.published.replace(org.id, g.id, [p2], [{ ...c, activeFrom: stamp() }])
      yield* store.published.replace(org.id, kept.id, [other.phaseId], [{ ...other, activeFrom: stamp() }])
      yield* store.transaction(Effect.gen(function*() {
        yield* store.policyGroups.lockNames(org.id)
        yield* store.policyGroups.delete(org.id, g.id)
      }))
      assert.isTrue(Option.isNone(yield* store.policyGroups.get(org.id, g.id)))
      assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, g.id), [])
      assert.deepStrictEqual(yield* store.published.listByGroup(org.id, g.id), [])
      assert.deepStrictEqual((yield* store.policyGroups.all(org.id)).map((x) => x.id), [kept.id])
      assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, kept.id), [other])
      assert.strictEqual((yield* store.published.listByGroup(org.id, kept.id)).length, 1)
    }))

  it.effect("a failed transaction keeps a deleted group and removed drafts", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const p = newId<Id.PhaseId>("phase")
      const g = group([p])
      const d = draft(p, "nginx:1", "nginx:1.27")
      yield* store.policyGroups.insert(org.id, g)
      yield* store.drafts.put(org.id, g.id, d)
      yield* Effect.exit(store.transaction(Effect.gen(function*() {
        yield* store.drafts.remove(org.id, g.id, p, d.id)
        yield* store.policyGroups.delete(org.id, g.id)
        return yield* Effect.fail("rolled back")
      })))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)), g)
      assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, g.id), [d])
    }))

  it.effect("unscoped reads for sync: a connection located by id alone, every organization's external phases", () =>
    Effect.gen(function*() {
      const a = yield* newOrg()
      const b = yield* newOrg()
      const c = connection()
      yield* store.vcsConnections.insert(a.id, c, { kind: "fixture", repositories: [], webhookSecret: "s3cret" })
      assert.deepStrictEqual(Option.getOrThrow(yield* store.vcsConnections.locate(c.id)), {
        orgId: a.id,
        connection: c,
        settings: { kind: "fixture", repositories: [], webhookSecret: "s3cret" }
      })
      yield* store.vcsConnections.setStatus(a.id, c.id, "error")
      assert.strictEqual(Option.getOrThrow(yield* store.vcsConnections.locate(c.id)).connection.status, "error")
      assert.isTrue(Option.isNone(yield* store.vcsConnections.locate(newId("vcsConnection"))))

      const external = (id: Id.PhaseId, position: number): PolicyGroup.Phase => ({
        id,
        name: `E${position}`,
        sourceType: "external",
        position,
        external: {
          vcsConnectionId: c.id,
          repositoryFullName: "acme/policy",
          branch: "main",
          path: `p${position}.json`,
          pollIntervalSeconds: 60,
          lastSyncedAt: null,
          lastError: null,
          lastVersion: null
        }
      })
      const [e1, e2, e3, i1] = [
        newId<Id.PhaseId>("phase"),
        newId<Id.PhaseId>("phase"),
        newId<Id.PhaseId>("phase"),
        newId<Id.PhaseId>("phase")
      ]
      const g1: PolicyGroup.PolicyGroup = {
        ...group([i1]),
        phases: [{ id: i1, name: "I", sourceType: "internal", position: 0 }, external(e1, 1), external(e2, 2)]
      }
      const g2: PolicyGroup.PolicyGroup = { ...group([]), phases: [external(e3, 0)] }
      const internalOnly = group([newId<Id.PhaseId>("phase")])
      yield* store.policyGroups.insert(a.id, g1)
      yield* store.policyGroups.insert(b.id, g2)
      yield* store.policyGroups.insert(b.id, internalOnly)
      const mine = (yield* store.policyGroups.externalPhases()).filter((r) => r.orgId === a.id || r.orgId === b.id)
      const key = (r: { orgId: string; policyGroupId: string; phaseId: string }) => `${r.orgId}/${r.policyGroupId}/${r.phaseId}`
      assert.deepStrictEqual(
        mine.map(key).sort(),
        [
          { orgId: a.id, policyGroupId: g1.id, phaseId: e1 },
          { orgId: a.id, policyGroupId: g1.id, phaseId: e2 },
          { orgId: b.id, policyGroupId: g2.id, phaseId: e3 }
        ].map(key).sort()
      )
      // each with its source as stored, so the poll worker needs no other read
      for (const ref of mine) {
        const stored = [...g1.phases, ...g2.phases].find((p) => p.id === ref.phaseId)
        assert.deepStrictEqual(ref.external, stored?.external)
      }
    }))

  if (options.concurrency) {
    it.effect("concurrency: parallel upserts of one draft key leave exactly one draft", () =>
      Effect.gen(function*() {
        const org = yield* newOrg()
        const phase = newId<Id.PhaseId>("phase")
        const g = group([phase])
        yield* store.policyGroups.insert(org.id, g)
        const writer = (n: number) =>
          store.transaction(Effect.gen(function*() {
            yield* store.policyGroups.lock(org.id, g.id)
            const existing = yield* store.drafts.findByKey(org.id, g.id, phase, "docker.io/library/nginx:1|")
            const base = Option.getOrElse(existing, () => draft(phase, "nginx:1", "nginx:1"))
            yield* store.drafts.put(org.id, g.id, { ...base, toImage: `nginx:1.${n}` })
          }))
        yield* Effect.all(Array.from({ length: 20 }, (_, n) => writer(n)), { concurrency: "unbounded" })
        const drafts = yield* store.drafts.listByGroup(org.id, g.id)
        assert.strictEqual(drafts.length, 1)
      }))
  }
}
