import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import type * as Mapping from "../src/Mapping.js"
import * as PolicyGroup from "../src/PolicyGroup.js"
import { epochMillis } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const internalA = id<Id.PhaseId>("phase", 1)
const internalB = id<Id.PhaseId>("phase", 2)
const external = id<Id.PhaseId>("phase", 3)

const group: PolicyGroup.PolicyGroup = {
  id: id("policyGroup", 1),
  name: "Base images",
  applyToAllRepos: false,
  notificationRouting: { kind: "inherit" },
  cooldownSeconds: null,
  phases: [
    { id: internalA, name: "Curated", sourceType: "internal", position: 0 },
    { id: internalB, name: "Hotfixes", sourceType: "internal", position: 1 },
    {
      id: external,
      name: "From repo",
      sourceType: "external",
      position: 2,
      external: {
        vcsConnectionId: id("vcsConnection", 1),
        repositoryFullName: "acme/policy",
        branch: "main",
        path: "service-mappings.json",
        pollIntervalSeconds: 60,
        lastSyncedAt: null,
        lastError: null,
        lastVersion: null
      }
    }
  ]
}

const t0 = "2026-01-01T00:00:00.000Z"
const draft = (n: number, phaseId: Id.PhaseId, toTag = "2"): Mapping.DraftMapping => ({
  id: id("mapping", n),
  key: `docker.io/library/img${n}:1|`,
  fromImage: `img${n}:1`,
  toImage: `img${n}:${toTag}`,
  createdAt: t0,
  updatedAt: t0,
  phaseId
})

describe("PolicyGroup", () => {
  it("refuses API mapping edits on an external phase (rule 7) and names unknown phases", () => {
    assert.isTrue(Result.isSuccess(PolicyGroup.ensureInternalPhase(group, internalA)))
    const refused = PolicyGroup.ensureInternalPhase(group, external)
    assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "ExternalPhaseReadOnly")
    const unknown = PolicyGroup.ensureInternalPhase(group, "ph_nope")
    assert.isTrue(Result.isFailure(unknown) && unknown.failure._tag === "PhaseNotFound")
  })

  it("publishes the whole draft, unrelated changes included, and keeps external phases (rule 9)", () => {
    const externalLive = { ...draft(9, external), activeFrom: t0 }
    const now = new Date("2026-02-01T00:00:00Z")
    const first = PolicyGroup.publish({ group, drafts: [draft(1, internalA), draft(2, internalB)], published: [externalLive], now })
    assert.strictEqual(first.changes.created.length, 2)
    assert.deepStrictEqual(
      first.published.map((m) => m.id).sort(),
      [draft(1, internalA).id, draft(2, internalB).id, externalLive.id].sort()
    )
    // the draft of phase A changes, phase B's draft is deleted: both go live together
    const second = PolicyGroup.publish({ group, drafts: [draft(1, internalA, "3")], published: first.published, now })
    assert.deepStrictEqual(second.changes.updated.map((m) => m.toImage), ["img1:3"])
    assert.deepStrictEqual(second.changes.removed.map((m) => m.id), [draft(2, internalB).id])
    assert.isTrue(second.published.some((m) => m.id === externalLive.id), "external phase untouched")
  })

  prop("publishing twice without draft changes changes nothing the second time", [
    fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { maxLength: 20 }),
    fc.boolean()
  ], ([ns, toB]) => {
    const drafts = ns.map((n) => draft(n, toB && n % 2 ? internalB : internalA))
    const now = new Date("2026-02-01T00:00:00Z")
    const once = PolicyGroup.publish({ group, drafts, published: [], now })
    const twice = PolicyGroup.publish({ group, drafts, published: once.published, now: new Date("2026-03-01T00:00:00Z") })
    assert.deepStrictEqual(twice.published, once.published)
    assert.deepStrictEqual(twice.changes, { created: [], updated: [], removed: [] })
    assert.strictEqual(once.published.length, drafts.length)
  })

  prop("an external phase polls every 10 to 86400 whole seconds; the default is 60", [
    fc.oneof(fc.integer({ min: -100, max: 100_000 }), fc.double({ min: 10, max: 86_400, noNaN: true }))
  ], ([seconds]) => {
    const source = { ...group.phases[2]!.external!, pollIntervalSeconds: seconds }
    const decoded = Schema.decodeUnknownResult(PolicyGroup.ExternalSource)(source)
    assert.strictEqual(Result.isSuccess(decoded), Number.isInteger(seconds) && seconds >= 10 && seconds <= 86_400)
    assert.isTrue(
      Result.isSuccess(
        Schema.decodeUnknownResult(PolicyGroup.ExternalSource)({ ...source, pollIntervalSeconds: PolicyGroup.defaultPollIntervalSeconds })
      )
    )
  })

  it("details list phases by position with the external binding, never connection internals", () => {
    const details = PolicyGroup.toDetails(group, [])
    assert.deepStrictEqual(details.phases.map((p) => p.sourceType), ["internal", "internal", "external"])
    const view = details.phases[2]!.external!
    // contracts section 5: exactly these fields
    assert.deepStrictEqual(Object.keys(view).sort(), ["branch", "lastError", "lastSyncedAt", "path", "repositoryFullName"])
    // the connection and the file version stay inside
    assert.notProperty(view, "vcsConnectionId")
    assert.notProperty(view, "lastVersion")
  })
})

describe("PolicyGroup.isPollDue (the external phase poll schedule)", () => {
  const at = (s: number) => new Date(s * 1000).toISOString()
  const source = (lastSyncedAt: string | null, pollIntervalSeconds: number) => ({ lastSyncedAt, pollIntervalSeconds })

  it("never synced nor attempted is due; otherwise the interval counts from the later of lastSyncedAt and the last attempt", () => {
    assert.isTrue(PolicyGroup.isPollDue(source(null, 86_400), undefined, 0))
    assert.isFalse(PolicyGroup.isPollDue(source(null, 60), 10_000, 69_999))
    assert.isTrue(PolicyGroup.isPollDue(source(null, 60), 10_000, 70_000))
    assert.isFalse(PolicyGroup.isPollDue(source(at(100), 10), undefined, 109_999))
    assert.isTrue(PolicyGroup.isPollDue(source(at(100), 10), undefined, 110_000))
    // an attempt that found nothing new (lastSyncedAt unchanged) still postpones the next poll
    assert.isFalse(PolicyGroup.isPollDue(source(at(100), 10), 200_000, 205_000))
    assert.isTrue(PolicyGroup.isPollDue(source(at(300), 10), 200_000, 310_000))
    // a lastSyncedAt that does not parse counts as never synced
    assert.isTrue(PolicyGroup.isPollDue(source("yesterday", 60), undefined, 0))
  })

  const time = epochMillis
  const interval = fc.integer({ min: 10, max: 86_400 })
  const synced = fc.option(time, { nil: null })
  const attempt = fc.option(time, { nil: undefined })

  prop("due exactly when pollIntervalSeconds have passed since the later of the sync and the attempt", [
    synced,
    attempt,
    interval,
    fc.integer({ min: -2 * 86_400_000, max: 2 * 86_400_000 })
  ], ([sync, tried, seconds, offset]) => {
    const external = source(sync === null ? null : new Date(sync).toISOString(), seconds)
    if (sync === null && tried === undefined) return assert.isTrue(PolicyGroup.isPollDue(external, tried, offset))
    const last = Math.max(sync ?? -Infinity, tried ?? -Infinity)
    assert.strictEqual(PolicyGroup.isPollDue(external, tried, last + seconds * 1000 + offset), offset >= 0)
  })

  prop(
    "monotone in now: once due, due at every later time",
    [synced, attempt, interval, time, fc.nat(3 * 86_400_000)],
    ([sync, tried, seconds, now, later]) => {
      const external = source(sync === null ? null : new Date(sync).toISOString(), seconds)
      if (PolicyGroup.isPollDue(external, tried, now)) assert.isTrue(PolicyGroup.isPollDue(external, tried, now + later))
    }
  )

  prop(
    "a poll just attempted is not due again within the interval, whatever lastSyncedAt says",
    [synced, time, interval, fc.nat()],
    ([sync, tried, seconds, wait]) => {
      const external = source(sync === null ? null : new Date(sync).toISOString(), seconds)
      assert.isFalse(PolicyGroup.isPollDue(external, tried, tried + (wait % (seconds * 1000))))
    }
  )
})
