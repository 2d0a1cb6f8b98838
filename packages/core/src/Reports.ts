/**
 * Compliance reporting (issue 15): how many tracked branches are scanned, how many of their
 * findings a published mapping applies to ("out of policy") and how many none does, open
 * remediation requests and live snooze requests, for the organization, each policy group and
 * each team; and the daily snapshots the history chart reads. Which mapping applies is never
 * decided here: it is `Scan.resolveFinding` over the branch's policy (`Assignment.groupsForBranch`
 * with the groups' published mappings), as on the findings route.
 *
 * The aggregation is planned so the store never hands every finding to JS: branches that share a
 * team and the same applying groups share a "bucket", the store counts findings per (bucket,
 * image, platform), and each distinct (policy, image, platform) is resolved once.
 */
import * as Schema from "effect/Schema"
import { type GroupInfo, groupsForBranch, type RepositoryAssignment } from "./Assignment.js"
import { PolicyGroupId, type RepositoryId, TeamId } from "./Id.js"
import type { PublishedMapping } from "./PolicyGroup.js"
import type { RemediationStatus } from "./Remediation.js"
import type { Repository } from "./Repository.js"
import type * as Resolution from "./Resolution.js"
import * as ResolutionIndex from "./ResolutionIndex.js"
import { resolveFinding } from "./Scan.js"
import { isActive, type SnoozeRequest } from "./SnoozeRequest.js"
import { compareCodePoints } from "./Text.js"

// Shapes -------------------------------------------------------------------------------------------

export const ComplianceCounts = Schema.Struct({
  /** Branches tracked (for a group: the branches it applies to). */
  trackedBranches: Schema.Int,
  /** Of those, branches with a succeeded scan (their findings are known). */
  scannedBranches: Schema.Int,
  /** Findings a published mapping applies to now (for a group: one of its own mappings). */
  outOfPolicyFindings: Schema.Int,
  /** Findings no published mapping applies to (or whose image is not known). */
  findingsWithoutMapping: Schema.Int,
  /** Remediation requests with status `open`. */
  openRemediationRequests: Schema.Int,
  /** Snooze requests awaiting review. */
  pendingSnoozes: Schema.Int,
  /** Approved snooze requests whose `until` has not passed (`SnoozeRequest.isActive`). */
  approvedSnoozes: Schema.Int,
  /**
   * The finish time of the oldest scan an out-of-policy finding comes from (each finding belongs
   * to its branch's newest succeeded scan); null when nothing is out of policy.
   */
  oldestOutOfPolicyScanAt: Schema.NullOr(Schema.String)
})
export type ComplianceCounts = typeof ComplianceCounts.Type

export const GroupCompliance = Schema.Struct({ policyGroupId: PolicyGroupId, name: Schema.String, ...ComplianceCounts.fields })
export type GroupCompliance = typeof GroupCompliance.Type

export const TeamCompliance = Schema.Struct({ teamId: TeamId, name: Schema.String, ...ComplianceCounts.fields })
export type TeamCompliance = typeof TeamCompliance.Type

export const ComplianceReport = Schema.Struct({
  /** ISO 8601: the instant the report was computed (snooze expiry and mapping activation use it). */
  generatedAt: Schema.String,
  organization: ComplianceCounts,
  /** Every policy group of the organization, by name. */
  policyGroups: Schema.Array(GroupCompliance),
  /** Every team of the organization, by name. */
  teams: Schema.Array(TeamCompliance)
})
export type ComplianceReport = typeof ComplianceReport.Type

/** One day's snapshot of an organization's report (`day` is the UTC date, `YYYY-MM-DD`). */
export const ComplianceSnapshot = Schema.Struct({ day: Schema.String, report: ComplianceReport })
export type ComplianceSnapshot = typeof ComplianceSnapshot.Type

/** One policy group's findings out of policy on a day of the history. */
export const GroupHistory = Schema.Struct({ policyGroupId: PolicyGroupId, name: Schema.String, outOfPolicyFindings: Schema.Int })
export type GroupHistory = typeof GroupHistory.Type

/** One team's findings out of policy on a day of the history. */
export const TeamHistory = Schema.Struct({ teamId: TeamId, name: Schema.String, outOfPolicyFindings: Schema.Int })
export type TeamHistory = typeof TeamHistory.Type

/**
 * A point of the history: the organization's counts of one day, and the findings out of policy of
 * each policy group and team as they were that day (the console charts them over time; a group or
 * team created later is absent from earlier points, one deleted since keeps its name).
 */
export const HistoryPoint = Schema.Struct({
  day: Schema.String,
  generatedAt: Schema.String,
  ...ComplianceCounts.fields,
  /** Remediation requests the service opened that day (UTC; failed attempts are not requests). */
  remediationRequestsOpened: Schema.Int,
  /** Remediation requests the provider merged that day (UTC). */
  remediationRequestsMerged: Schema.Int,
  policyGroups: Schema.Array(GroupHistory),
  teams: Schema.Array(TeamHistory)
})
export type HistoryPoint = typeof HistoryPoint.Type

// Planning -----------------------------------------------------------------------------------------

/** A tracked branch with the bucket it is counted in. */
export interface BucketedBranch {
  readonly repositoryId: RepositoryId
  readonly branchName: string
  readonly bucket: number
}

/** Branches of one team under one policy (the same applying groups, in the same order). */
export interface Bucket {
  readonly teamId: TeamId
  readonly policy: number
}

export interface Plan {
  /** The applying group ids of each distinct policy, in precedence order. */
  readonly policies: ReadonlyArray<ReadonlyArray<PolicyGroupId>>
  readonly buckets: ReadonlyArray<Bucket>
  readonly branches: ReadonlyArray<BucketedBranch>
}

type PlanGroup = GroupInfo & { readonly name: string }

/** Puts every tracked branch in its bucket: its repository's team and the groups that apply to it. */
export const plan = (input: {
  readonly groups: ReadonlyArray<PlanGroup>
  readonly repositories: ReadonlyArray<{ readonly repository: Repository; readonly assignments: ReadonlyArray<RepositoryAssignment> }>
}): Plan => {
  const policies: Array<ReadonlyArray<PolicyGroupId>> = []
  const policyIndex = new Map<string, number>()
  const buckets: Array<Bucket> = []
  const bucketIndex = new Map<string, number>()
  const branches: Array<BucketedBranch> = []
  for (const { assignments, repository } of input.repositories) {
    for (const { branchName } of repository.branches) {
      const ids = groupsForBranch({ groups: input.groups, assignments, branchName }).map((g) => g.id)
      // ids hold no space: the joined list names the policy
      const policyKey = ids.join(" ")
      let policy = policyIndex.get(policyKey)
      if (policy === undefined) {
        policy = policies.push(ids) - 1
        policyIndex.set(policyKey, policy)
      }
      const bucketKey = `${repository.assignedTeamId} ${policy}`
      let bucket = bucketIndex.get(bucketKey)
      if (bucket === undefined) {
        bucket = buckets.push({ teamId: repository.assignedTeamId, policy }) - 1
        bucketIndex.set(bucketKey, bucket)
      }
      branches.push({ repositoryId: repository.id, branchName, bucket })
    }
  }
  return { policies, buckets, branches }
}

// Aggregation --------------------------------------------------------------------------------------

/**
 * The current findings of a bucket's branches that look alike to resolution, counted by the
 * store: the same normalized image (null when none), platform, and whether the scanner left parts
 * of the reference unresolved.
 */
export interface FindingCount {
  readonly bucket: number
  readonly normalized: string | null
  readonly platform: string | null
  readonly unresolved: boolean
  readonly count: number
  /** The earliest finish time of the scans these findings come from. */
  readonly oldestScanAt: string | null
}

/** A tracked branch's state beside its findings. */
export interface BranchState {
  readonly repositoryId: RepositoryId
  readonly branchName: string
  readonly scanned: boolean
  readonly openRemediationRequests: number
}

export interface AggregateInput {
  readonly now: Date
  readonly plan: Plan
  readonly groups: ReadonlyArray<
    { readonly id: PolicyGroupId; readonly name: string; readonly phases: Resolution.ResolutionPolicy[number]["phases"] }
  >
  readonly published: ReadonlyMap<PolicyGroupId, ReadonlyArray<PublishedMapping>>
  readonly teams: ReadonlyArray<{ readonly id: TeamId; readonly name: string }>
  /** The teams' repositories (a repository's team is its branches' bucket's team). */
  readonly repositoryTeams: ReadonlyMap<RepositoryId, TeamId>
  readonly findingCounts: ReadonlyArray<FindingCount>
  readonly branchStates: ReadonlyArray<BranchState>
  /** The organization's snooze requests (any status; only pending and live approved ones count). */
  readonly snoozes: ReadonlyArray<SnoozeRequest>
}

interface Counter {
  trackedBranches: number
  scannedBranches: number
  outOfPolicyFindings: number
  findingsWithoutMapping: number
  openRemediationRequests: number
  pendingSnoozes: number
  approvedSnoozes: number
  oldestOutOfPolicyScanAt: string | null
}

const counter = (): Counter => ({
  trackedBranches: 0,
  scannedBranches: 0,
  outOfPolicyFindings: 0,
  findingsWithoutMapping: 0,
  openRemediationRequests: 0,
  pendingSnoozes: 0,
  approvedSnoozes: 0,
  oldestOutOfPolicyScanAt: null
})

/** The earlier of two ISO 8601 UTC times of the same form (text order is time order); null is none. */
export const earlier = (a: string | null, b: string | null): string | null => a === null ? b : b === null ? a : b < a ? b : a

const byNameThenId = (a: { readonly name: string; readonly id: string }, b: { readonly name: string; readonly id: string }) =>
  compareCodePoints(a.name, b.name) || compareCodePoints(a.id, b.id)

/**
 * The report: every count per organization, policy group and team. A group counts the branches
 * it applies to, their remediation requests, the snoozes of their repositories, the findings on
 * them no mapping applies to, and the findings one of its own mappings applies to (the winner of
 * resolution, so each out-of-policy finding counts for exactly one group). Snoozes count for the
 * organization whatever their repository; for a team or group only through a tracked repository.
 */
export const aggregate = (input: AggregateInput): ComplianceReport => {
  const { plan: p } = input
  const org = counter()
  const groups = new Map(input.groups.map((g) => [g.id, counter()] as const))
  const teams = new Map(input.teams.map((t) => [t.id, counter()] as const))
  const teamOf = (bucket: number) => teams.get(p.buckets[bucket]!.teamId)
  const groupsOf = (bucket: number) => p.policies[p.buckets[bucket]!.policy]!.flatMap((id) => groups.get(id) ?? [])

  // branches, and which repositories each group applies to
  const bucketOf = new Map(p.branches.map((b) => [`${b.repositoryId}|${b.branchName}`, b.bucket] as const))
  const repositoryGroups = new Map<RepositoryId, Set<Counter>>()
  for (const b of p.branches) {
    const applying = groupsOf(b.bucket)
    for (const c of [org, teamOf(b.bucket), ...applying]) if (c !== undefined) c.trackedBranches++
    const set = repositoryGroups.get(b.repositoryId) ?? new Set()
    for (const g of applying) set.add(g)
    repositoryGroups.set(b.repositoryId, set)
  }
  for (const s of input.branchStates) {
    const bucket = bucketOf.get(`${s.repositoryId}|${s.branchName}`)
    if (bucket === undefined) continue // not tracked (any more)
    for (const c of [org, teamOf(bucket), ...groupsOf(bucket)]) {
      if (c === undefined) continue
      if (s.scanned) c.scannedBranches++
      c.openRemediationRequests += s.openRemediationRequests
    }
  }

  // findings: each distinct (policy, image, platform) is resolved once, through the findings view's rule
  const byId = new Map(input.groups.map((g) => [g.id, g] as const))
  const compiled = p.policies.map((ids) =>
    ResolutionIndex.build(ids.flatMap((id) => {
      const group = byId.get(id)
      return group === undefined ? [] : [{ group, phases: group.phases, published: input.published.get(id) ?? [] }]
    }))
  )
  const winners = new Map<string, PolicyGroupId | null>()
  for (const f of input.findingCounts) {
    const bucket = p.buckets[f.bucket]
    if (bucket === undefined || f.count <= 0) continue
    const key = `${bucket.policy}\u0000${f.normalized ?? ""}\u0000${f.platform ?? ""}\u0000${f.unresolved}`
    let winner = winners.get(key)
    if (winner === undefined) {
      const resolution = resolveFinding(compiled[bucket.policy]!, {
        ...(f.normalized === null ? {} : { normalized: f.normalized }),
        ...(f.platform === null ? {} : { platform: f.platform }),
        ...(f.unresolved ? { unresolved: ["?"] } : {})
      }, input.now)
      winner = resolution === null ? null : resolution.policyGroupId
      winners.set(key, winner)
    }
    const team = teamOf(f.bucket)
    if (winner === null) {
      for (const c of [org, team, ...groupsOf(f.bucket)]) if (c !== undefined) c.findingsWithoutMapping += f.count
    } else {
      for (const c of [org, team, groups.get(winner)]) {
        if (c === undefined) continue
        c.outOfPolicyFindings += f.count
        c.oldestOutOfPolicyScanAt = earlier(c.oldestOutOfPolicyScanAt, f.oldestScanAt)
      }
    }
  }

  // snoozes: pending, or approved and not past `until` (the one core rule)
  for (const s of input.snoozes) {
    const kind = s.status === "pending" ? "pendingSnoozes" : isActive(s, input.now) ? "approvedSnoozes" : undefined
    if (kind === undefined) continue
    const teamId = input.repositoryTeams.get(s.repositoryId)
    for (const c of [org, teamId === undefined ? undefined : teams.get(teamId), ...(repositoryGroups.get(s.repositoryId) ?? [])]) {
      if (c !== undefined) c[kind]++
    }
  }

  return {
    generatedAt: input.now.toISOString(),
    organization: { ...org },
    policyGroups: [...input.groups].sort(byNameThenId).map((g) => ({ policyGroupId: g.id, name: g.name, ...groups.get(g.id)! })),
    teams: [...input.teams].sort(byNameThenId).map((t) => ({ teamId: t.id, name: t.name, ...teams.get(t.id)! }))
  }
}

// Days and history ---------------------------------------------------------------------------------

const dayMs = 86_400_000

/** The UTC date of an instant, `YYYY-MM-DD`: the key of its day's snapshot. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10)

export const minHistoryDays = 1
export const maxHistoryDays = 365

/** The first and last day of a history of `days` days ending today (inclusive). */
export const historyRange = (now: Date, days: number): { readonly from: string; readonly to: string } => ({
  from: dayOf(new Date(now.getTime() - (days - 1) * dayMs)),
  to: dayOf(now)
})

/** What the history reads of a remediation request: when it was opened and, if so, merged. */
export interface RemediationActivity {
  readonly status: RemediationStatus
  readonly createdAt: string
  readonly mergedAt: string | null
}

/** Remediation requests opened and merged on one day. */
export interface DayActivity {
  readonly remediationRequestsOpened: number
  readonly remediationRequestsMerged: number
}

const noActivity: DayActivity = { remediationRequestsOpened: 0, remediationRequestsMerged: 0 }

/** The UTC day of an ISO 8601 time, or undefined when it is not one. */
const dayOfText = (at: string): string | undefined => {
  const t = new Date(at)
  return Number.isNaN(t.getTime()) ? undefined : dayOf(t)
}

/**
 * Requests opened and merged per UTC day: a request counts as opened on the day of its
 * `createdAt` unless it is a failed attempt (nothing was opened at the provider), and as merged
 * on the day of its `mergedAt` when its status is `merged`.
 */
export const activityByDay = (requests: ReadonlyArray<RemediationActivity>): ReadonlyMap<string, DayActivity> => {
  const days = new Map<string, { remediationRequestsOpened: number; remediationRequestsMerged: number }>()
  const on = (day: string | undefined) => {
    if (day === undefined) return undefined
    let counts = days.get(day)
    if (counts === undefined) days.set(day, counts = { ...noActivity })
    return counts
  }
  for (const r of requests) {
    if (r.status !== "failed") {
      const counts = on(dayOfText(r.createdAt))
      if (counts !== undefined) counts.remediationRequestsOpened++
    }
    if (r.status === "merged" && r.mergedAt !== null) {
      const counts = on(dayOfText(r.mergedAt))
      if (counts !== undefined) counts.remediationRequestsMerged++
    }
  }
  return days
}

/**
 * The history: each snapshot as a point, joined by day with the remediation requests opened and
 * merged that day (counted from the requests, not the snapshot, so a merge learnt after the day's
 * snapshot still counts). Days without a snapshot have no point.
 */
export const history = (
  snapshots: ReadonlyArray<ComplianceSnapshot>,
  requests: ReadonlyArray<RemediationActivity>
): ReadonlyArray<HistoryPoint> => {
  const activity = activityByDay(requests)
  return snapshots.map((snapshot) => toHistoryPoint(snapshot, activity.get(snapshot.day) ?? noActivity))
}

/** A snapshot as a history point: the organization's counts of its day, and each group's and team's findings out of policy. */
export const toHistoryPoint = (snapshot: ComplianceSnapshot, activity: DayActivity = noActivity): HistoryPoint => ({
  day: snapshot.day,
  generatedAt: snapshot.report.generatedAt,
  ...snapshot.report.organization,
  remediationRequestsOpened: activity.remediationRequestsOpened,
  remediationRequestsMerged: activity.remediationRequestsMerged,
  policyGroups: snapshot.report.policyGroups.map((g) => ({
    policyGroupId: g.policyGroupId,
    name: g.name,
    outOfPolicyFindings: g.outOfPolicyFindings
  })),
  teams: snapshot.report.teams.map((t) => ({ teamId: t.teamId, name: t.name, outOfPolicyFindings: t.outOfPolicyFindings }))
})
