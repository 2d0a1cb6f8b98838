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

describe("Resolution.compile / resolveCompiled", () => {
  const groupIds = [gid(1), gid(2), gid(3)]
  const phaseIds = [pid(1), pid(2), pid(3)] // pid(3) belongs to no group's phase list
  const fromImage = fc.oneof(
    fc.constantFrom(
      "nginx",
      "nginx:1",
      "nginx:1.25",
      "docker.io/library/nginx:1",
      "index.docker.io/library/nginx",
      "library/nginx:2",
      "nginx@sha256:" + "a".repeat(64),
      "nginx:1@sha256:" + "a".repeat(64),
      "nginx:*",
      "nginx:1*",
      "*:1",
      "library/*",
      "library/ngin*:*",
      "node:20-*",
      "node:*",
      "node",
      "node:20",
      "ghcr.io/acme/api",
      "ghcr.io/acme/api:1",
      "ghcr.io/acme/*",
      "ghcr.io/acme/*:1",
      "ghcr.io/*/api:1",
      "ghcr.io/acme/team/api:1",
      "ghcr.io/acme/team/*",
      "localhost:5000/api:1",
      "localhost:5000/*",
      "acme/api:1",
      "acme/*-service:*",
      "Nginx:1",
      "*.gcr.io/app:1",
      "",
      "not a reference",
      "redis:*"
    ),
    fc.tuple(fc.constantFrom("", "ghcr.io/", "acme/"), fc.constantFrom("a", "b", "*", "a*"), fc.constantFrom("", ":1", ":*", ":1*"))
      .map(([d, p, t]) => `${d}${p}${t}`)
  )
  const mapping = fc.record({
    from: fromImage,
    scope: fc.constantFrom(undefined, "", "linux/amd64", "linux/arm64", "linux/aarch64"),
    order: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    activeFrom: fc.constantFrom("2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00Z", "not a date"),
    phase: fc.constantFrom(...phaseIds),
    id: fc.integer({ min: 1, max: 6 }) // few ids: ties on the id happen
  }).map((r) => ({
    ...live(r.from, `to:${r.id}`, {
      phaseId: r.phase,
      activeFrom: r.activeFrom,
      ...(r.order !== undefined ? { order: r.order } : {}),
      ...(r.scope !== undefined ? { platformScope: r.scope } : {})
    }),
    id: Id.make("mapping", new Uint8Array(16).fill(r.id)) as Id.MappingId
  }))
  const randomPolicy = fc.array(fc.array(mapping, { maxLength: 15 }), { minLength: 0, maxLength: 3 }).map((groups) =>
    groups.map((published, i) => ({
      group: { id: groupIds[i]!, name: `g${i}` },
      phases: [{ id: pid(1), position: i % 2 }, { id: pid(2), position: 1 - (i % 2) }],
      published
    }))
  )
  const image = fc.oneof(
    fc.constantFrom(
      "nginx",
      "nginx:1",
      "nginx:1.25",
      "docker.io/library/nginx:1",
      "nginx@sha256:" + "a".repeat(64),
      "nginx:1@sha256:" + "a".repeat(64),
      "node:20",
      "node:20-alpine",
      "ghcr.io/acme/api:1",
      "ghcr.io/acme/api",
      "ghcr.io/acme/team/api:1",
      "ghcr.io/x/api:1",
      "localhost:5000/api:1",
      "acme/api:1",
      "acme/billing-service:3",
      "a:1",
      "b:1",
      "ghcr.io/a:1",
      "acme/a1:1x",
      "redis:7",
      "Nginx",
      ""
    ),
    fc.string({ maxLength: 12 })
  )
  const platform = fc.constantFrom(undefined, "", "linux/amd64", "linux/aarch64", "linux/arm64/v8", "plan10/amd64")

  const same = (a: ReturnType<typeof Resolution.resolve>, b: ReturnType<typeof Resolution.resolve>) => {
    if (Result.isFailure(a) || Result.isFailure(b)) {
      assert.isTrue(Result.isFailure(a) && Result.isFailure(b))
      assert.strictEqual(Result.isFailure(a) && a.failure._tag, Result.isFailure(b) && b.failure._tag)
      return
    }
    assert.deepStrictEqual(b.success, a.success)
  }

  prop("resolveCompiled(compile(p)) answers exactly what resolve(p) answers", [
    randomPolicy,
    fc.array(fc.tuple(image, platform), { minLength: 1, maxLength: 5 })
  ], ([p, queries]) => {
    const compiled = Resolution.compile(p)
    for (const [img, plat] of queries) {
      same(
        Resolution.resolve({ policy: p, image: img, platform: plat, now }),
        Resolution.resolveCompiled(compiled, { image: img, platform: plat, now })
      )
    }
  }, { fastCheck: { numRuns: 500 } })

  it("keeps the considered list in policy order across buckets", () => {
    const p = policy([live("nginx:*", "p:1"), live("nginx", "r:1"), live("nginx:1", "e:1", { order: 2 })], [live("*:1", "q:1")])
    const r = Result.getOrThrow(Resolution.resolveCompiled(Resolution.compile(p), { image: "nginx:1", now }))
    assert.deepStrictEqual(r.considered.map((c) => c.fromImage), ["nginx:*", "nginx", "nginx:1", "*:1"])
    assert.strictEqual(r.resolved?.toImage, "e:1")
    assert.deepStrictEqual(r, Result.getOrThrow(Resolution.resolve({ policy: p, image: "nginx:1", now })))
  })

  it("buckets references by repository and patterns apart; unparseable fromImages are left out", () => {
    const compiled = Resolution.compile(
      policy([live("nginx:1", "a:1"), live("docker.io/library/nginx", "b:1"), live("node:*", "c:1"), live("Bad Ref", "d:1")])
    )
    assert.strictEqual(compiled.size, 4)
    assert.deepStrictEqual([...compiled.byRepository.keys()], ["docker.io/library/nginx"])
    assert.strictEqual(compiled.byRepository.get("docker.io/library/nginx")!.length, 2)
    assert.deepStrictEqual([...compiled.patterns.keys()], ["docker.io|2|1|node"])
    const byLiteral = Resolution.compile(
      policy([live("ghcr.io/acme/*/api-*:1", "a:1"), live("ghcr.io/*/*", "b:1"), live("acme/*-service:*", "c:1")])
    )
    assert.deepStrictEqual([...byLiteral.patterns.keys()], ["ghcr.io|3|0|acme", "ghcr.io|2|*|", "docker.io|2|0|acme"])
  })
})
