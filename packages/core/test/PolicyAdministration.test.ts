import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import type * as Mapping from "../src/Mapping.js"
import * as Admin from "../src/PolicyAdministration.js"
import * as PolicyGroup from "../src/PolicyGroup.js"
import { prop } from "./support/fcProp.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const connection = id<Id.VcsConnectionId>("vcsConnection", 1)
const file = { vcsConnectionId: connection, repositoryFullName: "acme/policy", branch: "main", path: "service-mappings.json" }

const internal = (n: number, position: number): PolicyGroup.Phase => ({
  id: id("phase", n),
  name: `P${n}`,
  sourceType: "internal",
  position
})

const groupOf = (phases: ReadonlyArray<PolicyGroup.Phase>): PolicyGroup.PolicyGroup => ({
  id: id("policyGroup", 1),
  name: "Base",
  applyToAllRepos: false,
  notificationRouting: { kind: "inherit" },
  cooldownSeconds: null,
  phases
})

/** A group of 0..8 internal phases, stored in any order with positions 0..n-1. */
const phasesArb = fc.integer({ min: 0, max: 8 }).chain((n) =>
  fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i), { minLength: n, maxLength: n })
    .map((order) => order.map((phase, position) => internal(phase + 1, position)))
)
const byPosition = (g: PolicyGroup.PolicyGroup) => [...g.phases].sort((a, b) => a.position - b.position)

describe("PolicyAdministration", () => {
  prop("placing a phase: it is in the group once, where asked (or last), positions are 0..n-1, the others keep their order", [
    phasesArb,
    fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
    fc.boolean()
  ], ([phases, position, existing]) => {
    const group = groupOf(phases)
    const phase = existing && phases.length > 0 ? { ...phases[0]!, name: "Moved" } : internal(99, 0)
    const placed = Result.getOrThrow(Admin.placePhase(group, phase, position))
    const ordered = byPosition(placed)
    assert.deepStrictEqual(ordered.map((p) => p.position), ordered.map((_, i) => i))
    assert.strictEqual(placed.phases.filter((p) => p.id === phase.id).length, 1)
    const others = byPosition(group).filter((p) => p.id !== phase.id).map((p) => p.id)
    assert.deepStrictEqual(ordered.filter((p) => p.id !== phase.id).map((p) => p.id), others)
    const at = ordered.findIndex((p) => p.id === phase.id)
    const kept = existing && phases.length > 0 ? byPosition(group).findIndex((p) => p.id === phase.id) : others.length
    assert.strictEqual(at, Math.min(position ?? kept, others.length))
  })

  prop("removing a phase renumbers the rest in their order", [phasesArb, fc.integer({ min: 0, max: 8 })], ([phases, n]) => {
    const group = groupOf(phases)
    const removed = Admin.removePhase(group, id("phase", n + 1))
    assert.deepStrictEqual(
      byPosition(removed).map((p) => p.id),
      byPosition(group).map((p) => p.id).filter((x) => x !== id("phase", n + 1))
    )
    assert.deepStrictEqual(byPosition(removed).map((p) => p.position), removed.phases.map((_, i) => i))
  })

  it("phase names are unique in a group; group names in an organization", () => {
    const group = groupOf([internal(1, 0), internal(2, 1)])
    const taken = Admin.placePhase(group, { ...internal(3, 0), name: "P1" }, undefined)
    assert.isTrue(Result.isFailure(taken) && taken.failure._tag === "PhaseNameTaken" && taken.failure.path === "name")
    // a phase keeps its own name
    assert.isTrue(Result.isSuccess(Admin.placePhase(group, internal(1, 0), 1)))
    const create = Admin.createGroup({ id: id("policyGroup", 2), request: { name: "Base" }, existing: [group] })
    assert.isTrue(Result.isFailure(create) && create.failure._tag === "PolicyGroupNameTaken")
    const rename = Admin.updateGroup({ group, request: { name: "Base" }, existing: [group], assignedRepositories: 0 })
    assert.isTrue(Result.isSuccess(rename))
  })

  prop("a group assigned to repositories can be deleted only with force, and made all-repositories never", [
    fc.integer({ min: 0, max: 5 }),
    fc.boolean()
  ], ([assigned, force]) => {
    const group = groupOf([])
    assert.strictEqual(Result.isSuccess(Admin.ensureDeletable(group, assigned, force)), assigned === 0 || force)
    const all = Admin.updateGroup({ group, request: { applyToAllRepos: true }, existing: [], assignedRepositories: assigned })
    assert.strictEqual(Result.isSuccess(all), assigned === 0)
    // turning it off, or asking for what it already is, is never refused
    const already = { ...group, applyToAllRepos: true }
    assert.isTrue(
      Result.isSuccess(
        Admin.updateGroup({ group: already, request: { applyToAllRepos: true }, existing: [], assignedRepositories: assigned })
      )
    )
  })

  prop("notification settings and the stored routing convert both ways", [
    fc.oneof(fc.constant("inherit" as const), fc.constant("disabled" as const), fc.constant({ teamId: id<Id.TeamId>("team", 3) }))
  ], ([setting]) => {
    assert.deepStrictEqual(Admin.toSetting(Admin.toRouting(setting)), setting)
  })

  describe("a phase's source (spec 1: one source of truth)", () => {
    const ext = (external: Partial<PolicyGroup.ExternalSource> = {}): PolicyGroup.Phase => ({
      id: id("phase", 5),
      name: "File",
      sourceType: "external",
      position: 2,
      external: {
        ...file,
        pollIntervalSeconds: 300,
        lastSyncedAt: "2026-01-01T00:00:00.000Z",
        lastError: null,
        lastVersion: "abc",
        ...external
      }
    })
    const next = (current: PolicyGroup.Phase | undefined, request: Admin.UpdatePhaseRequest) =>
      Admin.nextPhase(current, request, current?.id ?? id("phase", 9))

    it("internal -> external needs the whole file, starts unsynced and drops the drafts", () => {
      const missing = next(internal(1, 0), { sourceType: "external", external: { path: "x.json" } })
      assert.isTrue(Result.isFailure(missing))
      if (Result.isFailure(missing)) {
        assert.deepStrictEqual(missing.failure.errors.map((e) => e.path), [
          "external.vcsConnectionId",
          "external.repositoryFullName",
          "external.branch"
        ])
      }
      const made = Result.getOrThrow(next(internal(1, 0), { sourceType: "external", external: file }))
      assert.strictEqual(made.change, "toExternal")
      assert.deepStrictEqual(made.phase.external, {
        ...file,
        pollIntervalSeconds: 60,
        lastSyncedAt: null,
        lastError: null,
        lastVersion: null
      })
      assert.strictEqual(made.phase.position, 0)
    })

    it("external -> internal keeps the published mappings as drafts; an internal phase has no file", () => {
      const made = Result.getOrThrow(next(ext(), { sourceType: "internal" }))
      assert.strictEqual(made.change, "toInternal")
      assert.deepStrictEqual(made.phase, { id: id<Id.PhaseId>("phase", 5), name: "File", sourceType: "internal", position: 2 })
      const refused = next(ext(), { sourceType: "internal", external: { path: "x" } })
      assert.isTrue(Result.isFailure(refused) && refused.failure.errors[0]!.path === "external")
      const created = next(undefined, { name: "N", sourceType: "internal", external: file })
      assert.isTrue(Result.isFailure(created))
    })

    prop("another file is read afresh; the same file (a new name or poll interval) keeps its sync state", [
      fc.constantFrom("vcsConnectionId", "repositoryFullName", "branch", "path", "pollIntervalSeconds", "name"),
      fc.boolean()
    ], ([field, changed]) => {
      const current = ext()
      const value = field === "vcsConnectionId"
        ? id<Id.VcsConnectionId>("vcsConnection", changed ? 2 : 1)
        : field === "pollIntervalSeconds"
        ? (changed ? 600 : 300)
        : changed
        ? "other"
        : field === "name"
        ? "File"
        : (current.external as any)[field]
      const request: Admin.UpdatePhaseRequest = field === "name" ? { name: value as string } : { external: { [field]: value } }
      const made = Result.getOrThrow(next(current, request))
      const fileChanged = changed && field !== "name" && field !== "pollIntervalSeconds"
      assert.strictEqual(made.change, fileChanged ? "fileChanged" : "none")
      const state = made.phase.external!
      assert.deepStrictEqual(
        [state.lastSyncedAt, state.lastError, state.lastVersion],
        fileChanged ? [null, null, null] : [current.external!.lastSyncedAt, null, "abc"]
      )
    })

    it("published mappings become drafts without their activation time", () => {
      const live: PolicyGroup.PublishedMapping = {
        id: id("mapping", 1),
        key: "docker.io/library/node:*|",
        fromImage: "node:*",
        toImage: "node:20",
        order: 1,
        createdAt: "t",
        updatedAt: "t",
        phaseId: id("phase", 5),
        activeFrom: "t2"
      }
      const { activeFrom: _, ...draft } = live
      assert.deepStrictEqual(Admin.draftsFromPublished([live]), [draft])
    })
  })

  prop("the draft view shows exactly what publish would do", [
    fc.uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 15 }),
    fc.uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 15 }),
    fc.func(fc.boolean())
  ], ([draftNs, publishedNs, differs]) => {
    const group = groupOf([internal(1, 0), internal(2, 1)])
    const mapping = (n: number, tag: string): Mapping.DraftMapping => ({
      id: id("mapping", n),
      key: `docker.io/library/img${n}:1|`,
      fromImage: `img${n}:1`,
      toImage: `img${n}:${tag}`,
      createdAt: "t",
      updatedAt: "t",
      phaseId: id("phase", 1 + (n % 2))
    })
    const published = publishedNs.map((n) => ({ ...mapping(n, "1"), activeFrom: "t" }))
    const drafts = draftNs.map((n) => mapping(n, differs(n) ? "2" : "1"))
    const view = Admin.draftView({ group, drafts, published })
    const { changes } = PolicyGroup.publish({ group, drafts, published, now: new Date(0) })
    assert.deepStrictEqual(view.added.map((m) => m.id), changes.created.map((m) => m.id))
    assert.deepStrictEqual(view.changed.map((c) => c.after.id), changes.updated.map((m) => m.id))
    assert.deepStrictEqual(view.removed.map((m) => m.id), changes.removed.map((m) => m.id))
    assert.strictEqual(view.added.length + view.changed.length + view.unchanged, drafts.length)
    for (const c of view.changed) assert.strictEqual(c.before.id, c.after.id)
  })
})
