import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Mapping from "../src/Mapping.js"
import type * as PolicyGroup from "../src/PolicyGroup.js"
import * as Resolution from "../src/Resolution.js"
import { prop } from "./support/fcProp.js"

let n = 0
const gid = (k: number) => Id.make("policyGroup", new Uint8Array(16).fill(k)) as Id.PolicyGroupId
const pid = (k: number) => Id.make("phase", new Uint8Array(16).fill(k)) as Id.PhaseId
const live = (
  fromImage: string,
  toImage: string,
  extra: Partial<Mapping.MappingInput> & { phaseId?: Id.PhaseId; activeFrom?: string } = {}
): PolicyGroup.PublishedMapping => ({
  id: Id.make("mapping", new Uint8Array(16).fill(++n % 250)) as Id.MappingId,
  key: Mapping.mappingKey(fromImage, extra.platformScope),
  fromImage,
  toImage,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  phaseId: extra.phaseId ?? pid(1),
  activeFrom: extra.activeFrom ?? "2026-01-01T00:00:00.000Z",
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "phaseId" && k !== "activeFrom"))
})
const policy = (...groups: Array<ReadonlyArray<PolicyGroup.PublishedMapping>>): Resolution.ResolutionPolicy =>
  groups.map((published, i) => ({
    group: { id: gid(i + 1), name: `g${i}` },
    phases: [{ id: pid(1), position: 0 }, { id: pid(2), position: 1 }],
    published
  }))
const now = new Date("2026-06-01T00:00:00Z")
const resolved = (p: Resolution.ResolutionPolicy, image: string, platform?: string) =>
  Result.getOrThrow(Resolution.resolve({ policy: p, image, platform, now })).resolved?.toImage ?? null

describe("Resolution precedence (docs/policy-resolution.md)", () => {
  it("exact match beats repository-wide match beats pattern", () => {
    const p = policy([live("nginx:*", "nginx:9.0"), live("nginx", "nginx:8.0"), live("nginx:1.25", "nginx:1.27")])
    assert.strictEqual(resolved(p, "nginx:1.25"), "nginx:1.27")
    assert.strictEqual(resolved(p, "docker.io/library/nginx:1.24"), "nginx:8.0")
    assert.strictEqual(resolved(policy([live("nginx:*", "nginx:9.0")]), "nginx:1.24"), "nginx:9.0")
    assert.strictEqual(resolved(p, "redis:7"), null)
  })

  it("platform-specific beats generic; a mapping for another platform never applies", () => {
    const p = policy([live("node:20", "node:20.11"), live("node:20", "node:20.11-arm", { platformScope: "linux/arm64" })])
    assert.strictEqual(resolved(p, "node:20", "linux/aarch64"), "node:20.11-arm")
    assert.strictEqual(resolved(p, "node:20", "linux/amd64"), "node:20.11")
    assert.strictEqual(resolved(p, "node:20"), "node:20.11")
  })

  it("then lower order, then the more specific pattern, then earlier group and phase", () => {
    assert.strictEqual(
      resolved(policy([live("node:*", "a:1", { order: 5 }), live("node:20-*", "b:1", { order: 1 })]), "node:20-alpine"),
      "b:1"
    )
    assert.strictEqual(resolved(policy([live("node:*", "a:1"), live("node:20-*", "b:1")]), "node:20-alpine"), "b:1")
    assert.strictEqual(resolved(policy([live("node:20", "first:1")], [live("node:20", "second:1")]), "node:20"), "first:1")
    assert.strictEqual(
      resolved(
        policy([live("node:20", "late:1", { phaseId: pid(2) }), live("node:20", "early:1", { phaseId: pid(1), platformScope: "" })]),
        "node:20"
      ),
      "early:1"
    )
  })

  it("mappings not yet active are reported, not applied; every candidate says why", () => {
    const p = policy([live("nginx:1", "nginx:2", { activeFrom: "2027-01-01T00:00:00Z" }), live("nginx:*", "nginx:3")])
    const r = Result.getOrThrow(Resolution.resolve({ policy: p, image: "nginx:1", now }))
    assert.strictEqual(r.resolved?.toImage, "nginx:3")
    assert.strictEqual(r.image, "docker.io/library/nginx:1")
    assert.match(r.considered[0]!.reason, /not yet active/)
    assert.match(r.considered[1]!.reason, /^selected/)
  })

  const fromImages = ["nginx:1", "nginx", "nginx:*", "nginx:1*", "docker.io/library/nginx:1", "redis:*"]
  const mappings = fc.array(
    fc.record({
      from: fc.constantFrom(...fromImages),
      order: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      scope: fc.constantFrom("", "linux/amd64")
    }),
    { maxLength: 12 }
  ).map((rows) =>
    rows.map((r, i) => live(r.from, `target:${i}`, { ...(r.order !== undefined ? { order: r.order } : {}), platformScope: r.scope }))
  )

  prop(
    "resolution does not depend on the order mappings are listed in",
    [mappings, fc.constantFrom("linux/amd64", undefined)],
    ([ms, platform]) => {
      const a = resolved(policy(ms), "nginx:1", platform)
      const b = resolved(policy([...ms].reverse()), "nginx:1", platform)
      assert.strictEqual(a, b)
    }
  )

  prop("an exact match is always chosen over any pattern, and the result is always exact", [mappings], ([ms]) => {
    const withExact = [...ms, live("nginx:1", "exact:1", { order: 1_000_000 })]
    const r = Result.getOrThrow(Resolution.resolve({ policy: policy(withExact), image: "nginx:1", now })).resolved!
    assert.isFalse(r.mapping.fromImage.includes("*"))
  })

  prop(
    "random image strings never throw",
    [fc.string({ maxLength: 100 }), fc.option(fc.string({ maxLength: 20 }), { nil: undefined })],
    ([image, platform]) => {
      const r = Resolution.resolve({ policy: policy([live("nginx:*", "nginx:1")]), image, platform, now })
      assert.isTrue(Result.isFailure(r) || Result.isSuccess(r))
    }
  )
})
