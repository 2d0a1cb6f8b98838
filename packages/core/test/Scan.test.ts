import { assert, describe, it } from "@effect/vitest"
import { Result, Schema, Struct } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Mapping from "../src/Mapping.js"
import type * as PolicyGroup from "../src/PolicyGroup.js"
import * as Resolution from "../src/Resolution.js"
import * as ResolutionIndex from "../src/ResolutionIndex.js"
import * as Scan from "../src/Scan.js"
import * as Scanner from "../src/Scanner.js"
import * as Text from "../src/Text.js"
import { VcsProviderError } from "../src/Vcs.js"
import { commitSha, epochMillis, isoTimestamp } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

const day = 86_400_000
const target = (intervalDays: number, trackedAt: string, lastRoutineScanAt: string | null) => ({
  intervalDays,
  trackedAt,
  lastRoutineScanAt
})

describe("Scan.isRoutineDue (the routine's schedule)", () => {
  it("is due intervalDays after tracking when there was no routine scan, and not a millisecond before", () => {
    const t = target(7, "2026-01-01T00:00:00.000Z", null)
    assert.isFalse(Scan.isRoutineDue(t, new Date(Date.parse("2026-01-08T00:00:00.000Z") - 1)))
    assert.isTrue(Scan.isRoutineDue(t, new Date("2026-01-08T00:00:00.000Z")))
  })

  it("counts from the last routine scan once there is one", () => {
    const t = target(1, "2026-01-01T00:00:00.000Z", "2026-03-01T12:00:00.000Z")
    assert.isFalse(Scan.isRoutineDue(t, new Date("2026-03-02T11:59:59.999Z")))
    assert.isTrue(Scan.isRoutineDue(t, new Date("2026-03-02T12:00:00.000Z")))
  })

  it("a time that does not parse is due (never scanning again would be worse)", () => {
    assert.isTrue(Scan.isRoutineDue(target(3, "yesterday", null), new Date("2026-01-01T00:00:00Z")))
  })

  const time = epochMillis
  prop("monotone in now: once due, due at every later time", [
    time,
    fc.option(time, { nil: null }),
    fc.integer({ min: 1, max: 90 }),
    time,
    fc.nat(400 * day)
  ], ([tracked, last, days, now, later]) => {
    const t = target(days, new Date(tracked).toISOString(), last === null ? null : new Date(last).toISOString())
    if (Scan.isRoutineDue(t, new Date(now))) assert.isTrue(Scan.isRoutineDue(t, new Date(now + later)))
  })

  prop("due exactly when intervalDays have passed since the reference time", [
    time,
    fc.integer({ min: 1, max: 90 }),
    fc.integer({ min: -10 * day, max: 10 * day })
  ], ([since, days, offset]) => {
    const t = target(days, new Date(since).toISOString(), null)
    assert.strictEqual(Scan.isRoutineDue(t, new Date(since + days * day + offset)), offset >= 0)
  })
})

describe("Scan.failureOf and the scan limits", () => {
  const reasons = ["not-configured", "unauthorized", "not-found", "rate-limited", "unavailable"] as const
  it("a provider error becomes provider-<reason>, a valid ScanFailure", () => {
    for (const reason of reasons) {
      const failure = Scan.failureOf(new VcsProviderError({ reason }))
      assert.strictEqual(failure, `provider-${reason}`)
      assert.isTrue(Schema.is(Scan.ScanFailure)(failure))
    }
  })

  it("limits: 50,000 paths, 5,000 scannable files, 1 MiB per file", () => {
    assert.deepStrictEqual([Scan.maxTreePaths, Scan.maxScannableFiles, Scan.maxFileBytes], [50_000, 5_000, 1_048_576])
  })

  it("a tree is scanned up to the limits and refused (too-large) past them", () => {
    const other = (n: number) => Array.from({ length: n }, (_, i) => `src/f${i}.ts`)
    const manifests = (n: number) => Array.from({ length: n }, (_, i) => `k8s/m${i}.yaml`)
    assert.deepStrictEqual(Scan.scannablePaths(["Dockerfile", "README.md", "compose.yaml"]), Result.succeed(["Dockerfile", "compose.yaml"]))
    assert.isTrue(Result.isSuccess(Scan.scannablePaths([...other(50_000 - 5_000), ...manifests(5_000)])))
    assert.deepStrictEqual(Scan.scannablePaths([...other(50_000), "Dockerfile"]), Result.fail("too-large"))
    assert.deepStrictEqual(Scan.scannablePaths(manifests(5_001)), Result.fail("too-large"))
  })

  prop("the scanned paths are exactly the scannable ones, in tree order", [
    fc.array(fc.constantFrom("Dockerfile", "a/b.yml", "x.md", "deploy.yaml", "src/main.go", ".github/workflows/ci.yml"), { maxLength: 30 })
  ], ([paths]) => {
    assert.deepStrictEqual(Scan.scannablePaths(paths), Result.succeed(paths.filter(Scanner.isScannable)))
  })

  prop("a path longer than maxPathBytes of UTF-8, or holding a lone surrogate, is never scanned", [
    fc.array(fc.tuple(fc.integer({ min: 0, max: 1100 }), fc.constantFrom("a", "é", "😀", "\uD800")), { maxLength: 12 })
  ], ([specs]) => {
    const paths = specs.map(([n, unit]) => `${unit.repeat(Math.ceil(n / unit.length))}/Dockerfile`)
    const scanned = Result.getOrThrow(Scan.scannablePaths(paths))
    for (const path of scanned) {
      assert.isAtMost(Text.utf8Length(path), Scan.maxPathBytes)
      assert.isTrue(Text.isStorableText(path))
    }
    assert.deepStrictEqual(scanned, paths.filter((p) => Text.utf8Length(p) <= Scan.maxPathBytes && Text.isStorableText(p)))
  })

  it("a file is too large past 1 MiB of UTF-8, whatever its characters", () => {
    assert.isFalse(Scan.isFileTooLarge("a".repeat(1_048_576)))
    assert.isTrue(Scan.isFileTooLarge("a".repeat(1_048_577)))
    assert.isFalse(Scan.isFileTooLarge("é".repeat(524_288)))
    assert.isTrue(Scan.isFileTooLarge(`${"é".repeat(524_288)}a`))
    assert.isTrue(Scan.isFileTooLarge("€".repeat(400_000)))
  })
})

describe("Scan.resolveFinding (which mapping applies to a finding, and why)", () => {
  const gid = Id.make("policyGroup", new Uint8Array(16).fill(1)) as Id.PolicyGroupId
  const pid = Id.make("phase", new Uint8Array(16).fill(1)) as Id.PhaseId
  const mapping = (
    n: number,
    fromImage: string,
    toImage: string,
    extra: Partial<PolicyGroup.PublishedMapping> = {}
  ): PolicyGroup.PublishedMapping => ({
    id: Id.make("mapping", new Uint8Array(16).fill(n)) as Id.MappingId,
    key: Mapping.mappingKey(fromImage, extra.platformScope),
    fromImage,
    toImage,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    phaseId: pid,
    activeFrom: "2026-01-01T00:00:00.000Z",
    ...extra
  })
  const policy = ResolutionIndex.build([{
    group: { id: gid, name: "Base" },
    phases: [{ id: pid, position: 0 }],
    published: [
      mapping(1, "node:20", "node:20.11.1"),
      mapping(2, "alpine:*", "alpine:3.20"),
      mapping(3, "alpine:3.19", "alpine:3.19.1-arm", { platformScope: "linux/arm64" }),
      mapping(4, "redis:7", "redis:7.4", { activeFrom: "2026-09-01T00:00:00.000Z" })
    ]
  }])
  const now = new Date("2026-06-01T00:00:00Z")
  const dockerfile = [
    "ARG NODE=20",
    "FROM node:${NODE} AS deps",
    "FROM --platform=linux/arm64 alpine:3.19 AS arm",
    "FROM alpine:3.18",
    "FROM redis:7",
    "FROM ${UNKNOWN}:1"
  ].join("\n")
  const views = Scanner.scanFile("Dockerfile", dockerfile).map((f) => Scan.toView(policy, f, now))

  it("names the winning mapping, its group and phase, and the resolution's reason; null when none applies", () => {
    assert.deepStrictEqual(views.map((v) => v.resolution && [v.line, v.resolution.toImage, v.resolution.fromImage, v.resolution.reason]), [
      [2, "node:20.11.1", "node:20", "selected: exact match"],
      [3, "alpine:3.19.1-arm", "alpine:3.19", "selected: exact match, platform-specific"],
      [4, "alpine:3.20", "alpine:*", "selected: pattern match"],
      null, // redis:7's mapping is still in cooldown
      null // the image is unknown
    ])
    assert.strictEqual(views[0]!.resolution!.policyGroupId, gid)
    assert.strictEqual(views[0]!.resolution!.phaseId, pid)
    assert.strictEqual(views[0]!.resolution!.mappingId, mapping(1, "node:20", "x").id)
  })

  it("agrees with Policy resolution (Resolution.resolve) for every finding", () => {
    const plain = [{
      group: { id: gid, name: "Base" },
      phases: [{ id: pid, position: 0 }],
      published: [mapping(1, "node:20", "node:20.11.1")]
    }]
    const compiled = ResolutionIndex.build(plain)
    for (const f of Scanner.scanFile("Dockerfile", dockerfile)) {
      const expected = f.normalized === undefined
        ? null
        : Result.getOrThrow(Resolution.resolve({ policy: plain, image: f.normalized, platform: f.platform, now })).resolved?.toImage ?? null
      assert.strictEqual(Scan.resolveFinding(compiled, f, now)?.toImage ?? null, expected)
    }
  })

  it("a finding view is the finding plus its resolution, valid for the FindingView schema", () => {
    for (const v of views) assert.isTrue(Schema.is(Scan.FindingView)(v))
  })
})

describe("Scan.startedAt", () => {
  const iso = isoTimestamp
  prop("a scan starts at the claim's time, never before it was queued", [iso, iso], ([queuedAt, claimedAt]) => {
    const started = Scan.startedAt(queuedAt, claimedAt)
    assert.isAtLeast(Date.parse(started), Date.parse(queuedAt))
    assert.strictEqual(Date.parse(started), Math.max(Date.parse(queuedAt), Date.parse(claimedAt)))
  })
})

describe("Scan.endedFields (how every store ends a scan)", () => {
  const at = isoTimestamp
  const finding = fc.record({
    file: fc.constantFrom("Dockerfile", "deploy.yaml"),
    line: fc.integer({ min: 1, max: 500 }),
    column: fc.integer({ min: 1, max: 80 }),
    kind: fc.constant("dockerfile-from" as const),
    reference: fc.constantFrom("nginx:1", "node:20"),
    literal: fc.boolean()
  })
  const outcome = fc.oneof(
    fc.record({
      status: fc.constant("succeeded" as const),
      at,
      commitSha,
      fileCount: fc.nat(5000),
      findings: fc.array(finding, { maxLength: 20 })
    }),
    fc.record({ status: fc.constant("failed" as const), at, failure: fc.constantFrom(...Scan.ScanFailure.literals) })
  )

  prop("status and finishing time are the outcome's; a success records its commit and counts, a failure only why", [outcome], ([o]) => {
    const ended = Scan.endedFields(o as Parameters<typeof Scan.endedFields>[0])
    assert.strictEqual(ended.status, o.status)
    assert.strictEqual(ended.finishedAt, o.at)
    if (o.status === "succeeded") {
      assert.deepStrictEqual([ended.failure, ended.commitSha, ended.fileCount, ended.findingCount], [
        null,
        o.commitSha,
        o.fileCount,
        o.findings.length
      ])
    } else {
      assert.deepStrictEqual([ended.failure, ended.commitSha, ended.fileCount, ended.findingCount], [o.failure, null, 0, 0])
    }
    // the fields are those of a valid stored scan
    assert.isTrue(
      Schema.is(Scan.BranchScan.mapFields(Struct.pick(["status", "failure", "commitSha", "fileCount", "findingCount", "finishedAt"])))(
        ended
      )
    )
  })
})
