/**
 * Compliance reporting rules: the report from store-side counts equals the straightforward
 * computation that resolves every finding on its branch (Scan.resolveFinding over the branch's
 * groups), and its counts add up across groups and teams.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { groupsForBranch, type RepositoryAssignment } from "../src/Assignment.js"
import * as Id from "../src/Id.js"
import type { PolicyGroup, PublishedMapping } from "../src/PolicyGroup.js"
import * as Reports from "../src/Reports.js"
import type { Repository } from "../src/Repository.js"
import * as ResolutionIndex from "../src/ResolutionIndex.js"
import { resolveFinding } from "../src/Scan.js"
import type { Finding } from "../src/Scanner.js"
import { isActive, type SnoozeRequest } from "../src/SnoozeRequest.js"
import { prop } from "./support/fcProp.js"

const now = new Date("2026-06-01T00:00:00.000Z")
const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A

const images = ["docker.io/library/nginx:1.25", "docker.io/library/redis:7", "docker.io/library/node:20", "ghcr.io/acme/app:1"]
const fromImages = ["nginx:1.25", "nginx", "redis:7", "node:*", "ghcr.io/acme/*:1", "postgres:16"]
const teamIds = [1, 2].map((n) => id<Id.TeamId>("team", n))

interface World {
  readonly groups: ReadonlyArray<PolicyGroup>
  readonly published: ReadonlyMap<Id.PolicyGroupId, ReadonlyArray<PublishedMapping>>
  readonly repositories: ReadonlyArray<{ readonly repository: Repository; readonly assignments: ReadonlyArray<RepositoryAssignment> }>
  /** Current findings by `repositoryId|branch`, with their scan's finish time; absent: never scanned. */
  readonly findings: ReadonlyMap<string, { readonly at: string; readonly findings: ReadonlyArray<Finding> }>
  readonly remediations: ReadonlyMap<string, number>
  readonly snoozes: ReadonlyArray<SnoozeRequest>
}

const finding = fc.record({
  image: fc.constantFrom(...images),
  platform: fc.option(fc.constantFrom("linux/amd64", "linux/arm64"), { nil: undefined }),
  unresolved: fc.boolean()
}).map(({ image, platform, unresolved }): Finding => ({
  kind: "dockerfile",
  file: "Dockerfile",
  line: 1,
  column: 6,
  reference: image,
  ...(unresolved ? { unresolved: ["TAG"] } : { image, normalized: image }),
  ...(platform === undefined ? {} : { platform })
}))

const world: fc.Arbitrary<World> = fc.record({
  groups: fc.array(
    fc.record({
      applyToAllRepos: fc.boolean(),
      mappings: fc.array(
        fc.record({
          from: fc.constantFrom(...fromImages),
          scope: fc.option(fc.constantFrom("linux/amd64", "linux/arm64"), { nil: undefined }),
          future: fc.boolean(),
          order: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined })
        }),
        { maxLength: 4 }
      )
    }),
    { maxLength: 4 }
  ),
  repositories: fc.array(
    fc.record({
      team: fc.integer({ min: 0, max: 1 }),
      branches: fc.array(
        fc.record({
          scanned: fc.boolean(),
          day: fc.integer({ min: 1, max: 28 }),
          findings: fc.array(finding, { maxLength: 6 }),
          remediations: fc.integer({ min: 0, max: 2 }),
          assigned: fc.array(fc.nat(3), { maxLength: 3 })
        }),
        { minLength: 1, maxLength: 3 }
      )
    }),
    { maxLength: 5 }
  ),
  snoozes: fc.array(
    fc.record({
      repository: fc.nat(5),
      status: fc.constantFrom("pending", "approved", "rejected", "expired"),
      past: fc.boolean()
    }),
    { maxLength: 6 }
  )
}).map((w) => {
  const groups = w.groups.map((g, i): PolicyGroup => ({
    id: id("policyGroup", i + 1),
    name: `G${i % 2}`,
    applyToAllRepos: g.applyToAllRepos,
    notificationRouting: { kind: "inherit" },
    cooldownSeconds: null,
    phases: [{ id: id("phase", i + 1), name: "P", sourceType: "internal", position: 0 }]
  }))
  const published = new Map(w.groups.map((g, i) =>
    [
      groups[i]!.id,
      g.mappings.map((m, j): PublishedMapping => ({
        id: id("mapping", i * 10 + j + 1),
        key: `${m.from}|${m.scope ?? ""}`,
        fromImage: m.from,
        toImage: "registry.example/x:1",
        ...(m.scope === undefined ? {} : { platformScope: m.scope }),
        ...(m.order === undefined ? {} : { order: m.order }),
        createdAt: "2026-01-01T00:00:00.000Z",
        updatedAt: "2026-01-01T00:00:00.000Z",
        phaseId: groups[i]!.phases[0]!.id,
        activeFrom: m.future ? "2027-01-01T00:00:00.000Z" : "2026-01-01T00:00:00.000Z"
      }))
    ] as const
  ))
  const findings = new Map<string, { at: string; findings: ReadonlyArray<Finding> }>()
  const remediations = new Map<string, number>()
  const repositories = w.repositories.map((r, i) => {
    const repository: Repository = {
      id: id("repository", i + 1),
      vcsConnectionId: id("vcsConnection", 1),
      externalRepoId: `${i}`,
      fullName: `acme/r${i}`,
      defaultBranch: "b0",
      assignedTeamId: teamIds[r.team]!,
      assignedRoutineId: id("routine", 1),
      branches: r.branches.map((_, j) => ({ branchName: `b${j}`, scan: { status: "succeeded" } })),
      createdAt: "2026-01-01T00:00:00.000Z"
    }
    const assignments: Array<RepositoryAssignment> = []
    r.branches.forEach((b, j) => {
      const key = `${repository.id}|b${j}`
      if (b.scanned) findings.set(key, { at: `2026-05-${String(b.day).padStart(2, "0")}T00:00:00.000Z`, findings: b.findings })
      remediations.set(key, b.remediations)
      for (const g of b.assigned) {
        const group = groups[g]
        if (group === undefined) continue
        const a = assignments.find((x) => x.policyGroupId === group.id)
        if (a === undefined) assignments.push({ policyGroupId: group.id, branchNames: [`b${j}`] })
        else if (!a.branchNames.includes(`b${j}`)) (a.branchNames as Array<string>).push(`b${j}`)
      }
    })
    return { repository, assignments }
  })
  const snoozes = w.snoozes.map((s, i): SnoozeRequest => ({
    id: id("snoozeRequest", i + 1),
    repositoryId: id("repository", s.repository + 1),
    fromImage: "nginx:1.25",
    reason: "r",
    until: s.past ? "2026-05-01T00:00:00.000Z" : "2026-07-01T00:00:00.000Z",
    status: s.status,
    createdAt: "2026-01-01T00:00:00.000Z",
    reviewedAt: null,
    reviewComment: null
  }))
  return { groups, published, repositories, findings, remediations, snoozes }
})

/** What a store answers for the plan (counted the way the SQL groups them). */
const fromStore = (w: World, plan: Reports.Plan) => {
  const counts = new Map<string, Reports.FindingCount>()
  for (const b of plan.branches) {
    const current = w.findings.get(`${b.repositoryId}|${b.branchName}`)
    for (const f of current?.findings ?? []) {
      const unresolved = f.unresolved !== undefined && f.unresolved.length > 0
      const key = JSON.stringify([b.bucket, f.normalized ?? null, f.platform ?? null, unresolved])
      const c = counts.get(key)
      counts.set(key, {
        bucket: b.bucket,
        normalized: f.normalized ?? null,
        platform: f.platform ?? null,
        unresolved,
        count: (c?.count ?? 0) + 1,
        oldestScanAt: Reports.earlier(c?.oldestScanAt ?? null, current!.at)
      })
    }
  }
  const branchStates = plan.branches.map((b) => ({
    repositoryId: b.repositoryId,
    branchName: b.branchName,
    scanned: w.findings.has(`${b.repositoryId}|${b.branchName}`),
    openRemediationRequests: w.remediations.get(`${b.repositoryId}|${b.branchName}`) ?? 0
  }))
  return { findingCounts: [...counts.values()], branchStates }
}

const teams = teamIds.map((tid, i) => ({ id: tid, name: `T${i}` }))

const report = (w: World) => {
  const plan = Reports.plan({ groups: w.groups, repositories: w.repositories })
  return Reports.aggregate({
    now,
    plan,
    groups: w.groups,
    published: w.published,
    teams,
    repositoryTeams: new Map(w.repositories.map(({ repository }) => [repository.id, repository.assignedTeamId] as const)),
    ...fromStore(w, plan),
    snoozes: w.snoozes.filter((s) => s.status === "pending" || s.status === "approved")
  })
}

/** The straightforward organization counts: every finding resolved on its own branch. */
const naive = (w: World) => {
  let outOfPolicy = 0
  let without = 0
  let oldest: string | null = null
  let tracked = 0
  let scanned = 0
  let open = 0
  for (const { assignments, repository } of w.repositories) {
    for (const { branchName } of repository.branches) {
      tracked++
      const key = `${repository.id}|${branchName}`
      open += w.remediations.get(key) ?? 0
      const current = w.findings.get(key)
      if (current === undefined) continue
      scanned++
      const policy = ResolutionIndex.build(
        groupsForBranch({ groups: w.groups, assignments, branchName }).map((group) => ({
          group,
          phases: group.phases,
          published: w.published.get(group.id) ?? []
        }))
      )
      for (const f of current.findings) {
        if (resolveFinding(policy, f, now) === null) without++
        else {
          outOfPolicy++
          oldest = Reports.earlier(oldest, current.at)
        }
      }
    }
  }
  return {
    trackedBranches: tracked,
    scannedBranches: scanned,
    outOfPolicyFindings: outOfPolicy,
    findingsWithoutMapping: without,
    openRemediationRequests: open,
    pendingSnoozes: w.snoozes.filter((s) => s.status === "pending").length,
    approvedSnoozes: w.snoozes.filter((s) => isActive(s, now)).length,
    oldestOutOfPolicyScanAt: oldest
  }
}

describe("Reports (issue 15 compliance report)", () => {
  prop("the report from grouped counts equals resolving every finding on its own branch", [world], ([w]) => {
    assert.deepStrictEqual(report(w).organization, naive(w))
  }, { fastCheck: { numRuns: 300 } })

  prop(
    "teams partition the organization's branch and finding counts; out-of-policy findings count for exactly one group",
    [world],
    ([w]) => {
      const r = report(w)
      const sum = (rows: ReadonlyArray<Reports.ComplianceCounts>, k: keyof Reports.ComplianceCounts) =>
        rows.reduce((n, row) => n + (row[k] as number), 0)
      for (
        const k of [
          "trackedBranches",
          "scannedBranches",
          "outOfPolicyFindings",
          "findingsWithoutMapping",
          "openRemediationRequests"
        ] as const
      ) {
        assert.strictEqual(sum(r.teams, k), r.organization[k], k)
      }
      assert.strictEqual(sum(r.policyGroups, "outOfPolicyFindings"), r.organization.outOfPolicyFindings)
      const oldest = [...r.teams, ...r.policyGroups].map((t) => t.oldestOutOfPolicyScanAt).reduce(Reports.earlier, null)
      assert.strictEqual(oldest, r.organization.oldestOutOfPolicyScanAt)
      // a group counts only branches it applies to
      for (const g of r.policyGroups) {
        assert.isAtMost(g.scannedBranches, g.trackedBranches)
        assert.isAtMost(g.trackedBranches, r.organization.trackedBranches)
      }
    },
    { fastCheck: { numRuns: 200 } }
  )

  prop("branches with the same team and applying groups share a bucket; every tracked branch is planned once", [world], ([w]) => {
    const plan = Reports.plan({ groups: w.groups, repositories: w.repositories })
    assert.strictEqual(plan.branches.length, w.repositories.reduce((n, r) => n + r.repository.branches.length, 0))
    const keys = plan.buckets.map((b) => `${b.teamId} ${plan.policies[b.policy]!.join(",")}`)
    assert.strictEqual(new Set(keys).size, keys.length, "no two buckets alike")
    for (const b of plan.branches) {
      const { assignments, repository } = w.repositories.find((r) => r.repository.id === b.repositoryId)!
      const bucket = plan.buckets[b.bucket]!
      assert.strictEqual(bucket.teamId, repository.assignedTeamId)
      assert.deepStrictEqual(
        plan.policies[bucket.policy],
        groupsForBranch({ groups: w.groups, assignments, branchName: b.branchName }).map((g) => g.id)
      )
    }
  })

  it("an approved snooze stops counting when its until passes, whether or not it was expired yet", () => {
    const w: World = {
      groups: [],
      published: new Map(),
      repositories: [],
      findings: new Map(),
      remediations: new Map(),
      snoozes: [{
        id: id("snoozeRequest", 1),
        repositoryId: id("repository", 1),
        fromImage: "nginx",
        reason: "r",
        status: "approved",
        until: "2026-06-01T00:00:00.000Z",
        createdAt: "2026-01-01T00:00:00.000Z",
        reviewedAt: null,
        reviewComment: null
      }]
    }
    assert.strictEqual(report(w).organization.approvedSnoozes, 0, "until == now has passed")
    assert.strictEqual(report({ ...w, snoozes: [{ ...w.snoozes[0]!, until: "2026-06-01T00:00:00.001Z" }] }).organization.approvedSnoozes, 1)
  })

  prop("historyRange spans `days` UTC days ending today", [
    fc.integer({ min: 1, max: 365 }),
    fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
  ], ([days, at]) => {
    const { from, to } = Reports.historyRange(at, days)
    assert.strictEqual(to, Reports.dayOf(at))
    assert.strictEqual((Date.parse(to) - Date.parse(from)) / 86_400_000, days - 1)
  })

  prop("a history point keeps the day's organization counts and each group's and team's findings out of policy", [
    fc.array(fc.record({ name: fc.string({ maxLength: 20 }), count: fc.nat(1000) }), { maxLength: 6 }),
    fc.array(fc.record({ name: fc.string({ maxLength: 20 }), count: fc.nat(1000) }), { maxLength: 6 }),
    fc.nat(5000)
  ], ([groups, teams, total]) => {
    const counts = (outOfPolicyFindings: number): Reports.ComplianceCounts => ({
      trackedBranches: 3,
      scannedBranches: 2,
      outOfPolicyFindings,
      findingsWithoutMapping: 1,
      openRemediationRequests: 0,
      pendingSnoozes: 0,
      approvedSnoozes: 0,
      oldestOutOfPolicyScanAt: null
    })
    const report: Reports.ComplianceReport = {
      generatedAt: "2026-06-01T10:00:00.000Z",
      organization: counts(total),
      policyGroups: groups.map((g, i) => ({ policyGroupId: Id.PolicyGroupId.make(`pg_${i}`), name: g.name, ...counts(g.count) })),
      teams: teams.map((t, i) => ({ teamId: Id.TeamId.make(`team_${i}`), name: t.name, ...counts(t.count) }))
    }
    const point = Reports.toHistoryPoint({ day: "2026-06-01", report })
    assert.deepStrictEqual(point, {
      day: "2026-06-01",
      generatedAt: report.generatedAt,
      ...counts(total),
      remediationRequestsOpened: 0,
      remediationRequestsMerged: 0,
      policyGroups: groups.map((g, i) => ({ policyGroupId: Id.PolicyGroupId.make(`pg_${i}`), name: g.name, outOfPolicyFindings: g.count })),
      teams: teams.map((t, i) => ({ teamId: Id.TeamId.make(`team_${i}`), name: t.name, outOfPolicyFindings: t.count }))
    })
  })

  it("earlier picks the earlier time and treats null as none", () => {
    assert.strictEqual(Reports.earlier(null, null), null)
    assert.strictEqual(Reports.earlier("2026-01-02T00:00:00.000Z", null), "2026-01-02T00:00:00.000Z")
    assert.strictEqual(Reports.earlier("2026-01-02T00:00:00.000Z", "2026-01-01T00:00:00.000Z"), "2026-01-01T00:00:00.000Z")
  })
})
