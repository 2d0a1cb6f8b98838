/**
 * The index answers what the linear `Resolution.resolve` answers: the winner and its reason
 * (`decide`), the whole resolution with its `considered` list (`explain`), and what a remediation
 * plans from them, over generated policies (groups, phases, mappings of every fromImage form the
 * code accepts), references, platforms, dates and snoozes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Decision from "../src/Decision.js"
import * as Id from "../src/Id.js"
import { normalizedText } from "../src/ImageReference.js"
import * as Mapping from "../src/Mapping.js"
import type * as PolicyGroup from "../src/PolicyGroup.js"
import * as Remediation from "../src/Remediation.js"
import * as Resolution from "../src/Resolution.js"
import * as ResolutionIndex from "../src/ResolutionIndex.js"
import type * as Scanner from "../src/Scanner.js"
import * as SnoozeRequest from "../src/SnoozeRequest.js"
import * as Decisions from "../src/workflows/Decisions.js"
import { prop } from "./support/fcProp.js"

const gid = (k: number) => Id.make("policyGroup", new Uint8Array(16).fill(k)) as Id.PolicyGroupId
const pid = (k: number) => Id.make("phase", new Uint8Array(16).fill(k)) as Id.PhaseId
const mid = (k: number) => Id.make("mapping", new Uint8Array(16).fill(k)) as Id.MappingId
const now = new Date("2026-06-01T00:00:00Z")

const published = (
  id: number,
  fromImage: string,
  toImage: string,
  extra: Partial<Pick<PolicyGroup.PublishedMapping, "platformScope" | "order" | "phaseId" | "activeFrom">> = {}
): PolicyGroup.PublishedMapping => ({
  id: mid(id),
  key: Mapping.mappingKey(fromImage, extra.platformScope),
  fromImage,
  toImage,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  phaseId: pid(1),
  activeFrom: "2026-01-01T00:00:00.000Z",
  ...extra
})
const oneGroup = (...mappings: Array<PolicyGroup.PublishedMapping>): Resolution.ResolutionPolicy => [{
  group: { id: gid(1), name: "g" },
  phases: [{ id: pid(1), position: 0 }, { id: pid(2), position: 1 }],
  published: mappings
}]

/** Both answers, failures compared by their tag. */
const assertSame = (policy: Resolution.ResolutionPolicy, index: ResolutionIndex.ResolutionIndex, input: Resolution.ResolveInput) => {
  const expected = Resolution.resolve({ ...input, policy })
  const explained = ResolutionIndex.explain(index, input)
  const decided = ResolutionIndex.decide(index, input)
  if (Result.isFailure(expected)) {
    assert.isTrue(Result.isFailure(explained) && explained.failure._tag === expected.failure._tag)
    assert.isTrue(Result.isFailure(decided) && decided.failure._tag === expected.failure._tag)
    return
  }
  assert.deepStrictEqual(Result.getOrThrow(explained), expected.success)
  const decision = Result.getOrThrow(decided)
  const { considered, resolved } = expected.success
  if (resolved === null) return assert.isNull(decision)
  assert.deepStrictEqual(decision, { resolved, reason: considered.find((c) => c.reason.startsWith("selected"))!.reason })
}

// generated policies ----------------------------------------------------------------------------

const registry = fc.constantFrom("", "docker.io/", "index.docker.io/", "ghcr.io/", "localhost:5000/", "quay.io/")
const literalSegment = fc.constantFrom("acme", "library", "nginx", "node", "api", "a", "b-svc", "team")
const globSegment = fc.constantFrom("*", "a*", "*-svc", "n*x", "*i*", "ng**nx", "library")
const tag = fc.constantFrom("1", "1.25", "20-alpine", "latest", "v1")
const globTag = fc.constantFrom("*", "1*", "*-alpine", "2*0*", "1.25", "*1")
const digest = fc.constantFrom("a", "b").map((c) => `sha256:${c.repeat(64)}`)

/** A reference as written in a file: familiar or fully qualified, 1 to 3 path segments, tag and/or digest. */
const reference = fc.tuple(
  registry,
  fc.array(literalSegment, { minLength: 1, maxLength: 3 }),
  fc.option(tag, { nil: undefined }),
  fc.option(digest, { nil: undefined })
).map(([r, path, t, d]) => `${r}${path.join("/")}${t === undefined ? "" : `:${t}`}${d === undefined ? "" : `@${d}`}`)

/** A pattern: `*` in any path segment and in the tag, never in the registry. */
const pattern = fc.tuple(registry, fc.array(fc.oneof(literalSegment, globSegment), { minLength: 1, maxLength: 3 }), fc.option(globTag))
  .map(([r, path, t]) => `${r}${path.join("/")}${t === null ? "" : `:${t}`}`)

const fromImage = fc.oneof(
  { arbitrary: reference, weight: 4 },
  { arbitrary: reference.map((r) => r.replace(/[:@].*$/, "")), weight: 2 }, // tag-less: a repository match
  { arbitrary: pattern, weight: 4 },
  // what never matches: invalid references and patterns (a `*` in the registry, a digest in a pattern)
  fc.constantFrom("Nginx:1", "*.gcr.io/app:1", "nginx:*@sha256:" + "a".repeat(64), "not a reference", "")
)

const scope = fc.constantFrom(undefined, "", "linux/amd64", "linux/arm64", "linux/arm/v7", "linux/aarch64")
const activeFrom = fc.constantFrom(
  "2026-01-01T00:00:00.000Z",
  "2026-06-01T00:00:00.000Z", // exactly now: active
  "2026-06-01T00:00:00.001Z",
  "2027-01-01T00:00:00Z",
  "not a date"
)

const group = (index: number) =>
  fc.record({
    positions: fc.shuffledSubarray([0, 1, 2], { minLength: 2, maxLength: 3 }),
    mappings: fc.array(
      fc.record({
        from: fromImage,
        scope,
        order: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        activeFrom,
        phase: fc.integer({ min: 1, max: 4 }), // phase 4 is in no group's list: its position is unknown
        id: fc.integer({ min: 1, max: 8 }), // few ids: ties on the id happen
        to: fc.integer({ min: 1, max: 3 }),
        twin: fc.boolean() // the same mapping twice but for its target: a full tie, decided by policy order
      }),
      { maxLength: 14 }
    )
  }).map(({ mappings, positions }) => ({
    group: { id: gid(index + 1), name: `g${index}` },
    phases: positions.map((position, i) => ({ id: pid(i + 1), position })),
    published: mappings.flatMap((m) => {
      const first = published(m.id, m.from, `registry.example/to:${m.to}`, {
        phaseId: pid(m.phase),
        activeFrom: m.activeFrom,
        ...(m.order !== undefined ? { order: m.order } : {}),
        ...(m.scope !== undefined ? { platformScope: m.scope } : {})
      })
      return m.twin ? [first, { ...first, toImage: "registry.example/twin:1" }] : [first]
    })
  }))

const policy: fc.Arbitrary<Resolution.ResolutionPolicy> = fc.integer({ min: 0, max: 3 }).chain((n) =>
  fc.tuple(...Array.from({ length: n }, (_, i) => group(i)))
)
const platform = fc.constantFrom(
  undefined,
  "",
  "linux/amd64",
  "linux/aarch64",
  "linux/arm64/v8",
  "linux/arm",
  "linux/arm/v7",
  "plan10/amd64"
)
const image = fc.oneof({ arbitrary: reference, weight: 8 }, fc.string({ maxLength: 12 }), fc.constant("Nginx:1"))
const moment = fc.constantFrom(now, new Date("2026-06-01T00:00:00.001Z"), new Date("2028-01-01T00:00:00Z"))

describe("ResolutionIndex: the same answers as Resolution.resolve", () => {
  prop(
    "decide and explain over build(policy) answer what resolve(policy) answers",
    [policy, fc.array(fc.tuple(image, platform, moment), { minLength: 1, maxLength: 8 })],
    ([p, queries]) => {
      const index = ResolutionIndex.build(p)
      for (const [img, plat, at] of queries) assertSame(p, index, { image: img, platform: plat, now: at })
    },
    { fastCheck: { numRuns: 1500 } }
  )

  // references made of the policy's own fromImages match often: precedence is what gets exercised
  prop(
    "and so for references that the policy's mappings match",
    [policy.filter((p) => p.some((g) => g.published.length > 0)), fc.nat(), fc.array(tag, { maxLength: 3 }), platform],
    ([p, pick, tags, plat]) => {
      const index = ResolutionIndex.build(p)
      const froms = p.flatMap((g) => g.published.map((m) => m.fromImage))
      const from = froms[pick % froms.length]!
      for (
        const img of [
          from,
          from.replace(/\*+/g, "x"),
          ...tags.map((t) => `${from.replace(/\*+/g, "ab").replace(/[:@].*$/, "")}:${t}`)
        ]
      ) {
        assertSame(p, index, { image: img, platform: plat, now })
      }
    },
    { fastCheck: { numRuns: 1500 } }
  )

  const finding = (i: number, img: string, plat: string | undefined): Scanner.Finding => ({
    kind: "dockerfile",
    file: `f${i % 3}/Dockerfile`,
    line: i + 1,
    column: 6,
    reference: img,
    image: img,
    ...Result.match(normalizedText(img), { onFailure: () => ({}), onSuccess: (normalized) => ({ normalized }) }),
    ...(plat !== undefined ? { platform: plat } : {})
  })
  const snooze = (i: number, from: string, status: SnoozeRequest.SnoozeStatus, until: string): SnoozeRequest.SnoozeRequest => ({
    id: Id.make("snoozeRequest", new Uint8Array(16).fill(i + 1)) as Id.SnoozeRequestId,
    repositoryId: Id.make("repository", new Uint8Array(16).fill(1)) as Id.RepositoryId,
    fromImage: from,
    reason: "certification pending",
    until,
    status,
    createdAt: "2026-05-01T00:00:00.000Z",
    reviewedAt: null,
    reviewComment: null
  })

  prop(
    "a remediation plans, from the index, the changes the linear winners and the snoozes call for",
    [
      policy,
      fc.array(fc.tuple(reference, fc.constantFrom(undefined, "linux/amd64", "linux/arm64")), { maxLength: 8 }),
      fc.array(
        fc.tuple(
          fc.oneof(reference, pattern),
          fc.constantFrom<SnoozeRequest.SnoozeStatus>("approved", "pending", "rejected", "expired"),
          fc.constantFrom("2026-07-01T00:00:00.000Z", "2026-05-01T00:00:00.000Z")
        ),
        { maxLength: 4 }
      )
    ],
    ([p, uses, snoozeRows]) => {
      const findings = uses.map(([img, plat], i) => finding(i, img, plat))
      const snoozes = snoozeRows.map(([from, status, until], i) => snooze(i, from, status, until))
      const planned = Remediation.plan({ findings, policy: ResolutionIndex.build(p), snoozes, now })
      const snoozed = new Set(snoozes.filter((s) => SnoozeRequest.isActive(s, now)).map((s) => Mapping.normalizedFrom(s.fromImage)))
      const expected = findings.flatMap((f) => {
        const r = Resolution.resolve({ policy: p, image: f.normalized!, platform: f.platform, now })
        const winner = Result.isSuccess(r) ? r.success.resolved : null
        if (winner === null || Result.getOrUndefined(normalizedText(winner.toImage)) === f.normalized) return []
        if (snoozed.has(f.normalized!) || snoozed.has(Mapping.normalizedFrom(winner.mapping.fromImage))) return []
        return [`${f.file}:${f.line} ${winner.mapping.id} ${winner.toImage}`]
      })
      assert.deepStrictEqual(planned.map((c) => `${c.file}:${c.line} ${c.mappingId} ${c.to}`).sort(), expected.sort())
    },
    { fastCheck: { numRuns: 500 } }
  )

  prop(
    "a decision (the decision API's and the check command's) is the linear winner, snoozed as remediation is when it asks for another image, out of policy only then",
    [
      policy,
      fc.array(fc.tuple(image, platform), { maxLength: 8 }),
      fc.array(
        fc.tuple(
          fc.oneof(reference, pattern),
          fc.constantFrom<SnoozeRequest.SnoozeStatus>("approved", "pending", "rejected", "expired"),
          fc.constantFrom("2026-07-01T00:00:00.000Z", "2026-05-01T00:00:00.000Z")
        ),
        { maxLength: 4 }
      )
    ],
    ([p, asks, snoozeRows]) => {
      const index = ResolutionIndex.build(p)
      const snoozes = snoozeRows.map(([from, status, until], i) => snooze(i, from, status, until))
      const active = Decision.activeSnoozes(snoozes, now)
      asks.forEach(([img, plat], i) => {
        const decision = Decision.decide(index, active, { image: img, platform: plat }, now)
        const expected = Resolution.resolve({ policy: p, image: img, platform: plat, now })
        assert.strictEqual(decision.image, img)
        if (Result.isFailure(expected)) {
          assert.strictEqual(decision.invalid?.field, expected.failure._tag === "InvalidPlatform" ? "platform" : "image")
          assert.isNull(decision.resolution)
          assert.isFalse(Decision.isOutOfPolicy(decision))
          return
        }
        assert.isUndefined(decision.invalid)
        const winner = expected.success.resolved
        assert.strictEqual(decision.resolution?.mappingId ?? null, winner?.mapping.id ?? null)
        assert.strictEqual(decision.resolution?.toImage ?? null, winner?.toImage ?? null)
        // with fromImage, the winner's key: what `check` names its SARIF rule by
        assert.strictEqual(decision.resolution?.platformScope, winner?.mapping.platformScope || undefined)
        const another = winner !== null &&
          Result.getOrUndefined(normalizedText(winner.toImage)) !== Result.getOrThrow(normalizedText(img)) && winner.toImage !== img
        // a snooze suppresses a replacement: an image already in policy is never snoozed
        const covering = winner === null || !another ? [] : snoozes.filter((s) =>
          SnoozeRequest.isActive(s, now) &&
          [Result.getOrThrow(normalizedText(img)), Mapping.normalizedFrom(winner.mapping.fromImage)].includes(
            Mapping.normalizedFrom(s.fromImage)
          )
        )
        assert.strictEqual(decision.snoozed !== undefined, covering.length > 0, `ask ${i}`)
        if (decision.snoozed !== undefined) assert.isTrue(covering.some((s) => s.id === decision.snoozed!.snoozeRequestId))
        assert.strictEqual(Decision.isOutOfPolicy(decision), another && covering.length === 0)
      })
    },
    { fastCheck: { numRuns: 500 } }
  )
})

describe("Decisions.indexed: decisions remembered per epoch", () => {
  // one memory asked again and again, at instants on both sides of the policy's activations, in any order
  prop(
    "answers what Decision.decideUnsnoozed answers at each instant",
    [policy, fc.array(fc.tuple(image, platform), { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.nat(), moment), { maxLength: 30 })],
    ([p, queries, asks]) => {
      const index = ResolutionIndex.build(p)
      const remembered = Decisions.indexed(index)
      // every reference at `now` first, then again at any instant in any order
      for (const [pick, at] of [...queries.map((_, i) => [i, now] as const), ...asks]) {
        const [img, plat] = queries[pick % queries.length]!
        const request = { image: img, ...(plat === undefined ? {} : { platform: plat }) }
        assert.deepStrictEqual(remembered.deciderAt(at)(request), Decision.decideUnsnoozed(index, request, at))
      }
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("a mapping that becomes active is decided from its activation on, and the earlier answer again before it", () => {
    const index = ResolutionIndex.build(oneGroup(
      published(1, "nginx", "registry.example/nginx:old", { activeFrom: "2026-01-01T00:00:00.000Z" }),
      published(2, "nginx:1.25", "registry.example/nginx:new", { activeFrom: "2027-01-01T00:00:00.000Z" })
    ))
    const remembered = Decisions.indexed(index)
    const ask = { image: "nginx:1.25" }
    const toImage = (at: string) => remembered.deciderAt(new Date(at))(ask).resolution?.toImage
    assert.strictEqual(toImage("2026-06-01T00:00:00.000Z"), "registry.example/nginx:old")
    assert.strictEqual(toImage("2026-12-31T23:59:59.999Z"), "registry.example/nginx:old")
    assert.strictEqual(toImage("2027-01-01T00:00:00.000Z"), "registry.example/nginx:new")
    assert.strictEqual(toImage("2026-06-01T00:00:00.000Z"), "registry.example/nginx:old")
    assert.deepStrictEqual(index.activations, [Date.parse("2026-01-01T00:00:00.000Z"), Date.parse("2027-01-01T00:00:00.000Z")])
  })
})

describe("ResolutionIndex: precedence cases", () => {
  const check = (p: Resolution.ResolutionPolicy, img: string, plat?: string) => {
    assertSame(p, ResolutionIndex.build(p), { image: img, platform: plat, now })
    return Result.getOrThrow(ResolutionIndex.decide(ResolutionIndex.build(p), { image: img, platform: plat, now }))
  }

  it("exact beats repository beats pattern, whatever their order, group or phase", () => {
    const p: Resolution.ResolutionPolicy = [
      {
        group: { id: gid(1), name: "first" },
        phases: [{ id: pid(1), position: 0 }],
        published: [published(1, "nginx:*", "p:1", { order: 0 })]
      },
      {
        group: { id: gid(2), name: "second" },
        phases: [{ id: pid(1), position: 0 }, { id: pid(2), position: 1 }],
        published: [published(2, "nginx", "r:1", { order: 0 }), published(3, "nginx:1", "e:1", { phaseId: pid(2), order: 9 })]
      }
    ]
    assert.strictEqual(check(p, "docker.io/library/nginx:1")?.resolved.toImage, "e:1")
    assert.strictEqual(check(p, "nginx:2")?.resolved.toImage, "r:1")
    assert.strictEqual(check(p, "nginx")?.resolved.toImage, "r:1")
    assert.strictEqual(check([p[0]!], "nginx")?.resolved.toImage, undefined) // a pattern with a tag needs one
    assert.strictEqual(check([p[0]!], "nginx:2")?.resolved.toImage, "p:1")
  })

  it("a digest: a digest-only fromImage matches any tag with it; tag and digest must both hold", () => {
    const d = `sha256:${"a".repeat(64)}`
    const p = oneGroup(
      published(1, `nginx@${d}`, "d:1"),
      published(2, `nginx:2@${d}`, "td:1", { order: 0 }),
      published(3, "nginx:1", "t:1")
    )
    // two exact matches tie: the lower key wins (`…/nginx:1|` before `…/nginx@sha256:…|`), whatever the ids
    assert.strictEqual(check(p, `nginx:1@${d}`)?.resolved.toImage, "t:1")
    const swapped = oneGroup(published(3, `nginx@${d}`, "d:1"), published(1, "nginx:1", "t:1"))
    assert.strictEqual(check(swapped, `nginx:1@${d}`)?.resolved.toImage, "t:1")
    assert.strictEqual(check(p, `nginx:2@${d}`)?.resolved.toImage, "td:1")
    assert.strictEqual(check(p, `nginx@${d}`)?.resolved.toImage, "d:1")
    assert.strictEqual(check(p, `nginx:1@sha256:${"b".repeat(64)}`)?.resolved.toImage, "t:1")
  })

  it("platform-specific beats generic; a stored scope is compared as stored", () => {
    const p = oneGroup(
      published(1, "node:20", "generic:1", { order: 0 }),
      published(2, "node:20", "arm:1", { platformScope: "linux/arm64" }),
      published(3, "node:*", "any-arm:1", { platformScope: "linux/aarch64" }) // never canonical: never applies
    )
    assert.strictEqual(check(p, "node:20", "linux/aarch64")?.resolved.toImage, "arm:1")
    assert.strictEqual(check(p, "node:20", "linux/amd64")?.resolved.toImage, "generic:1")
    assert.strictEqual(check(p, "node:21", "linux/arm64"), null)
  })

  it("then order, then the more specific pattern, then group, then phase, then the lower id", () => {
    assert.strictEqual(
      check(oneGroup(published(1, "node:*", "a:1", { order: 5 }), published(2, "node:20-*", "b:1", { order: 1 })), "node:20-alpine")
        ?.reason,
      "selected: pattern match, order 1"
    )
    assert.strictEqual(
      check(oneGroup(published(1, "*/node:*", "a:1"), published(2, "library/node:2*", "b:1")), "node:20")?.resolved.toImage,
      "b:1"
    )
    const phases = oneGroup(published(1, "node:20", "late:1", { phaseId: pid(2) }), published(2, "node:20", "early:1"))
    assert.strictEqual(check(phases, "node:20")?.resolved.toImage, "early:1")
    const ids = oneGroup(published(7, "node:20", "seven:1"), published(3, "node:20", "three:1", { phaseId: pid(2) }))
    assert.strictEqual(
      check([{ ...ids[0]!, phases: [{ id: pid(1), position: 0 }, { id: pid(2), position: 0 }] }], "node:20")?.resolved.toImage,
      "three:1"
    )
  })

  it("wildcards: within one path segment or the tag, never across a slash, `**` as `*`", () => {
    const p = oneGroup(
      published(1, "ghcr.io/*/api:1", "a:1"),
      published(2, "ghcr.io/acme/*", "b:1"),
      published(3, "acme/*-svc:*", "c:1"),
      published(4, "*:1", "d:1"),
      published(5, "library/ng**x:1.2*", "e:1")
    )
    assert.strictEqual(check(p, "ghcr.io/acme/api:1")?.resolved.toImage, "a:1") // more literal characters
    assert.strictEqual(check(p, "ghcr.io/acme/team/api:1"), null)
    assert.strictEqual(check(p, "ghcr.io/acme/web")?.resolved.toImage, "b:1")
    assert.strictEqual(check(p, "acme/billing-svc:3")?.resolved.toImage, "c:1")
    assert.strictEqual(check(p, "acme/svc:3"), null)
    assert.strictEqual(check(p, "redis:1")?.resolved.toImage, "d:1")
    assert.strictEqual(check(p, "nginx:1.25")?.resolved.toImage, "e:1")
    assert.strictEqual(check(p, "quay.io/nginx:1"), null) // a pattern's registry is literal
  })

  it("not yet active and other-platform mappings are passed over, and listed by explain", () => {
    const p = oneGroup(
      published(1, "nginx:1", "later:1", { activeFrom: "2027-01-01T00:00:00Z" }),
      published(2, "nginx", "arm:1", { platformScope: "linux/arm64" }),
      published(3, "nginx:*", "now:1")
    )
    const index = ResolutionIndex.build(p)
    assert.strictEqual(check(p, "nginx:1")?.resolved.toImage, "now:1")
    const r = Result.getOrThrow(ResolutionIndex.explain(index, { image: "nginx:1", now }))
    assert.deepStrictEqual(r.considered.map((c) => [c.fromImage, c.matched]), [["nginx:1", false], ["nginx", false], ["nginx:*", true]])
  })

  it("keeps the considered list in policy order across buckets", () => {
    const p: Resolution.ResolutionPolicy = [
      ...oneGroup(published(1, "nginx:*", "p:1"), published(2, "nginx", "r:1"), published(3, "nginx:1", "e:1", { order: 2 })),
      { group: { id: gid(2), name: "g2" }, phases: [{ id: pid(1), position: 0 }], published: [published(4, "*:1", "q:1")] }
    ]
    const r = Result.getOrThrow(ResolutionIndex.explain(ResolutionIndex.build(p), { image: "nginx:1", now }))
    assert.deepStrictEqual(r.considered.map((c) => c.fromImage), ["nginx:*", "nginx", "nginx:1", "*:1"])
    assert.strictEqual(r.resolved?.toImage, "e:1")
  })

  it("indexes references by repository and patterns by registry and segments; unparseable fromImages are left out", () => {
    const index = ResolutionIndex.build(oneGroup(
      published(1, "nginx:1", "a:1"),
      published(2, "docker.io/library/nginx", "b:1"),
      published(3, "node:*", "c:1"),
      published(4, "Bad Ref", "d:1"),
      published(5, "ghcr.io/acme/*/api-*:1", "e:1")
    ))
    assert.strictEqual(index.size, 5)
    assert.deepStrictEqual([...index.references.get("docker.io")!.keys()], ["library/nginx"])
    assert.deepStrictEqual([...index.patterns.keys()], ["docker.io", "ghcr.io"])
    const acme = index.patterns.get("ghcr.io")!.literal.get("acme")!
    assert.deepStrictEqual(acme.globs.map((g) => g.ends.text), ["*"])
    assert.strictEqual(acme.globs[0]!.node.globs[0]!.node.entries[0]!.placed.mapping.fromImage, "ghcr.io/acme/*/api-*:1")
  })
})
