/** Storage contract: what the compliance report reads in bulk, and its daily snapshots (`ReportStore`). */
import { assert } from "@effect/vitest"
import type { Id, Remediation, Reports, SnoozeRequest } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { type Contract, type ContractIt, newId, stamp } from "./support.js"

const byKey = (counts: ReadonlyArray<Reports.FindingCount>) =>
  [...counts].sort((a, b) =>
    JSON.stringify([a.bucket, a.normalized, a.platform, a.unresolved]) < JSON.stringify([b.bucket, b.normalized, b.platform, b.unresolved])
      ? -1
      : 1
  )

const snooze = (repositoryId: Id.RepositoryId, status: SnoozeRequest.SnoozeStatus): SnoozeRequest.SnoozeRequest => ({
  id: newId("snoozeRequest"),
  repositoryId,
  fromImage: "nginx:1.25",
  reason: "later",
  until: "2030-01-01T00:00:00.000Z",
  status,
  createdAt: stamp(),
  reviewedAt: null,
  reviewComment: null
})

const report = (generatedAt: string): Reports.ComplianceReport => ({
  generatedAt,
  organization: {
    trackedBranches: 1,
    scannedBranches: 1,
    outOfPolicyFindings: 2,
    findingsWithoutMapping: 3,
    openRemediationRequests: 0,
    pendingSnoozes: 0,
    approvedSnoozes: 1,
    oldestOutOfPolicyScanAt: "2026-01-01T00:00:00.000Z"
  },
  policyGroups: [],
  teams: []
})

export const reports = (
  it: ContractIt,
  { store, newOrg, group, scan, finding, succeeded, failed, remediation, trackedRepository, complete }: Contract
) => {
  it.effect("reports: repositories answers every tracked repository with its explicit assignments, oldest first", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const a = yield* trackedRepository(org.id)
      const b = yield* trackedRepository(org.id, { branches: ["main"] })
      const g = group([newId("phase")])
      yield* store.policyGroups.insert(org.id, g)
      yield* store.assignments.replace(org.id, b.id, [{ policyGroupId: g.id, branchNames: ["main"] }])
      assert.deepStrictEqual(yield* store.reports.repositories(org.id), [
        { repository: a, assignments: [] },
        { repository: b, assignments: [{ policyGroupId: g.id, branchNames: ["main"] }] }
      ])
      const other = yield* newOrg()
      assert.deepStrictEqual(yield* store.reports.repositories(other.id), [], "scoped by organization")
    }))

  it.effect("reports: findingCounts counts the given branches' current findings per bucket, image and platform", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id, { branches: ["main", "release", "develop"] })
      const arm = { ...finding("k8s.yaml", 3, 5, "nginx:1.25"), platform: "linux/arm64" }
      const unresolved = { kind: "dockerfile" as const, file: "Dockerfile", line: 9, column: 6, reference: "${BASE}", unresolved: ["BASE"] }
      const first = yield* complete(
        org.id,
        scan(repo.id, "main"),
        succeeded([
          finding("Dockerfile", 1, 6, "nginx:1.25"),
          finding("Dockerfile", 2, 6, "nginx:1.25"),
          finding("Dockerfile", 3, 6, "redis:7"),
          arm,
          unresolved
        ])
      )
      const release = yield* complete(org.id, scan(repo.id, "release"), succeeded([finding("Dockerfile", 1, 6, "nginx:1.25")]))
      // a later failed scan keeps the branch's findings, and their scan
      yield* complete(org.id, scan(repo.id, "main"), failed())
      // develop: findings, but not asked for
      yield* complete(org.id, scan(repo.id, "develop"), succeeded([finding("Dockerfile", 1, 6, "nginx:1.25")]))
      const counts = yield* store.reports.findingCounts(org.id, [
        { repositoryId: repo.id, branchName: "main", bucket: 0 },
        { repositoryId: repo.id, branchName: "release", bucket: 0 }
      ])
      const nginx = "docker.io/library/nginx:1.25"
      assert.deepStrictEqual(
        byKey(counts),
        byKey([
          { bucket: 0, normalized: nginx, platform: null, unresolved: false, count: 3, oldestScanAt: first.finishedAt },
          {
            bucket: 0,
            normalized: "docker.io/library/redis:7",
            platform: null,
            unresolved: false,
            count: 1,
            oldestScanAt: first.finishedAt
          },
          { bucket: 0, normalized: nginx, platform: "linux/arm64", unresolved: false, count: 1, oldestScanAt: first.finishedAt },
          { bucket: 0, normalized: null, platform: null, unresolved: true, count: 1, oldestScanAt: first.finishedAt }
        ])
      )
      assert.isTrue(first.finishedAt! < release.finishedAt!)
      const split = yield* store.reports.findingCounts(org.id, [
        { repositoryId: repo.id, branchName: "release", bucket: 1 },
        { repositoryId: repo.id, branchName: "develop", bucket: 1 }
      ])
      assert.strictEqual(split.length, 1)
      assert.deepStrictEqual({ ...split[0]!, oldestScanAt: null }, {
        bucket: 1,
        normalized: nginx,
        platform: null,
        unresolved: false,
        count: 2,
        oldestScanAt: null
      })
      assert.strictEqual(split[0]!.oldestScanAt, release.finishedAt, "the earliest finish time of the scans counted")
      assert.deepStrictEqual(yield* store.reports.findingCounts(org.id, []), [])
      const other = yield* newOrg()
      assert.deepStrictEqual(
        yield* store.reports.findingCounts(other.id, [{ repositoryId: repo.id, branchName: "main", bucket: 0 }]),
        [],
        "scoped"
      )
    }))

  it.effect("reports: branchStates says which branches have a succeeded scan and counts their open remediation requests", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id, { branches: ["main", "release", "develop"] })
      yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
      yield* complete(org.id, scan(repo.id, "release"), failed())
      yield* store.scans.enqueue(org.id, scan(repo.id, "develop"))
      for (
        const r of [
          remediation(repo.id, "main"),
          remediation(repo.id, "main"),
          remediation(repo.id, "main", "superseded"),
          remediation(repo.id, "release", "failed"),
          remediation(repo.id, "develop")
        ]
      ) {
        yield* store.remediations.put(org.id, r)
      }
      const branches = ["develop", "main", "release"].map((branchName) => ({ repositoryId: repo.id, branchName, bucket: 0 }))
      assert.deepStrictEqual(yield* store.reports.branchStates(org.id, branches), [
        { repositoryId: repo.id, branchName: "develop", scanned: false, openRemediationRequests: 1 },
        { repositoryId: repo.id, branchName: "main", scanned: true, openRemediationRequests: 2 },
        { repositoryId: repo.id, branchName: "release", scanned: false, openRemediationRequests: 0 }
      ])
      assert.deepStrictEqual(yield* store.reports.branchStates(org.id, []), [])
      // branch names are data, whatever they hold
      const odd = "a,\"b\"{c}\\ d"
      const other = yield* trackedRepository(org.id, { branches: [odd] })
      yield* complete(org.id, scan(other.id, odd), succeeded([finding("Dockerfile", 1, 6)]))
      const oddBranch = [{ repositoryId: other.id, branchName: odd, bucket: 4 }]
      assert.deepStrictEqual(yield* store.reports.branchStates(org.id, oddBranch), [{
        repositoryId: other.id,
        branchName: odd,
        scanned: true,
        openRemediationRequests: 0
      }])
      assert.deepStrictEqual((yield* store.reports.findingCounts(org.id, oddBranch)).map((c) => [c.bucket, c.count]), [[4, 1]])
    }))

  it.effect("reports: liveSnoozes answers the pending and approved requests, oldest first", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const rows = (["pending", "approved", "rejected", "expired", "approved"] as const).map((status) => snooze(repo.id, status))
      for (const r of rows) yield* store.snoozeRequests.insert(org.id, r)
      assert.deepStrictEqual(yield* store.reports.liveSnoozes(org.id), [rows[0]!, rows[1]!, rows[4]!])
      assert.deepStrictEqual(yield* store.reports.liveSnoozes((yield* newOrg()).id), [])
    }))

  it.effect("reports: a day's snapshot is stored once (the first writer wins); snapshots answers a range of days, oldest first", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      assert.include(yield* store.reports.organizationIds(), org.id)
      const day1 = { day: "2026-03-01", report: report("2026-03-01T00:10:00.000Z") }
      const day1Again = { day: "2026-03-01", report: report("2026-03-01T05:00:00.000Z") }
      const day3 = { day: "2026-03-03", report: report("2026-03-03T00:10:00.000Z") }
      assert.isTrue(yield* store.reports.putSnapshot(org.id, day3))
      assert.isTrue(yield* store.reports.putSnapshot(org.id, day1))
      assert.isFalse(yield* store.reports.putSnapshot(org.id, day1Again))
      // two writers at once: exactly one stores the day
      const day2 = { day: "2026-03-02", report: report("2026-03-02T00:10:00.000Z") }
      const stored = yield* Effect.all([store.reports.putSnapshot(org.id, day2), store.reports.putSnapshot(org.id, day2)], {
        concurrency: 2
      })
      assert.deepStrictEqual([...stored].sort(), [false, true])
      assert.deepStrictEqual(yield* store.reports.snapshots(org.id, "2026-03-01", "2026-03-03"), [day1, day2, day3])
      assert.deepStrictEqual(yield* store.reports.snapshots(org.id, "2026-03-02", "2026-03-02"), [day2])
      assert.deepStrictEqual(yield* store.reports.snapshots(org.id, "2026-03-04", "2026-12-31"), [])
      const other = yield* newOrg()
      assert.deepStrictEqual(yield* store.reports.snapshots(other.id, "2026-01-01", "2026-12-31"), [], "scoped by organization")
      assert.isTrue(yield* store.reports.putSnapshot(other.id, day1), "another organization has its own days")
    }))

  it.effect("reports: remediationActivity answers the requests created or merged in a range of days, in one read", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const at = (createdAt: string, status: Remediation.RemediationStatus = "open", mergedAt: string | null = null) => ({
        ...remediation(repo.id, "main", status),
        createdAt,
        updatedAt: createdAt,
        ...(status === "failed" ? { failure: "conflict" as const, number: null, url: null } : {}),
        mergedAt
      })
      const before = at("2026-02-28T23:59:59.999Z")
      const first = at("2026-03-01T00:00:00.000Z")
      const failed = at("2026-03-02T12:00:00.000Z", "failed")
      const mergedLater = at("2026-02-20T08:00:00.000Z", "merged", "2026-03-03T23:59:59.999Z")
      const mergedSameDay = at("2026-03-03T01:00:00.000Z", "merged", "2026-03-03T02:00:00.000Z")
      const after = at("2026-03-04T00:00:00.000Z", "merged", "2026-03-05T00:00:00.000Z")
      for (const r of [before, first, failed, mergedLater, mergedSameDay, after]) yield* store.remediations.put(org.id, r)
      const view = (r: Remediation.RemediationRequest) => ({ status: r.status, createdAt: r.createdAt, mergedAt: r.mergedAt })
      const sorted = (rows: ReadonlyArray<Reports.RemediationActivity>) =>
        [...rows].sort((a, b) => a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)
      assert.deepStrictEqual(
        sorted(yield* store.reports.remediationActivity(org.id, "2026-03-01", "2026-03-03")),
        [mergedLater, first, failed, mergedSameDay].map(view)
      )
      assert.deepStrictEqual(sorted(yield* store.reports.remediationActivity(org.id, "2026-02-28", "2026-02-28")), [view(before)])
      assert.deepStrictEqual(sorted(yield* store.reports.remediationActivity(org.id, "2026-03-05", "2026-03-05")), [view(after)])
      assert.deepStrictEqual(yield* store.reports.remediationActivity(org.id, "2026-04-01", "2026-04-30"), [])
      const other = yield* newOrg()
      assert.deepStrictEqual(yield* store.reports.remediationActivity(other.id, "2026-01-01", "2026-12-31"), [], "scoped by organization")
    }))
}
