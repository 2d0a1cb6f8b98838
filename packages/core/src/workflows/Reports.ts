/**
 * Compliance reporting (issue 15): GET /reports/compliance computes the report now;
 * GET /reports/compliance/history answers the daily snapshots the snapshot worker
 * (`snapshotCompliance`) keeps, so a chart never rescans.
 */
import * as Effect from "effect/Effect"
import type { OrgId } from "../Id.js"
import { readAll } from "../Page.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { ReportStore } from "../ports/ReportStore.js"
import * as Reports from "../Reports.js"
import { type Caller, now } from "./Caller.js"

/** Every team of the organization. */
const allTeams = (orgId: OrgId) => Effect.flatMap(OrganizationStore, ({ teams }) => readAll((page) => teams.list(orgId, page)))

/** The organization's report at `at`: a few bulk reads, then the core's aggregation. */
export const complianceReport = (orgId: OrgId, at: Date) =>
  Effect.gen(function*() {
    const reports = yield* ReportStore
    const { policyGroups, published } = yield* PolicyStore
    const [groups, repositories, teams, snoozes] = yield* Effect.all([
      policyGroups.all(orgId),
      reports.repositories(orgId),
      allTeams(orgId),
      reports.liveSnoozes(orgId)
    ])
    const plan = Reports.plan({ groups, repositories })
    const [findingCounts, branchStates, live] = yield* Effect.all([
      reports.findingCounts(orgId, plan.branches),
      reports.branchStates(orgId, plan.branches),
      published.listByGroups(orgId, groups.map((g) => g.id))
    ])
    return Reports.aggregate({
      now: at,
      plan,
      groups,
      published: live,
      teams,
      repositoryTeams: new Map(repositories.map(({ repository }) => [repository.id, repository.assignedTeamId] as const)),
      findingCounts,
      branchStates,
      snoozes
    })
  })

/** GET /reports/compliance. */
export const getComplianceReport = Effect.fnUntraced(function*(caller: Caller) {
  return yield* complianceReport(caller.orgId, yield* now)
})

/**
 * GET /reports/compliance/history?days=N: one point per day that has a snapshot, oldest first,
 * each with the remediation requests opened and merged that day.
 */
export const getComplianceHistory = Effect.fnUntraced(function*(caller: Caller, query: { readonly days: number }) {
  const reports = yield* ReportStore
  const { from, to } = Reports.historyRange(yield* now, query.days)
  const [snapshots, activity] = yield* Effect.all([
    reports.snapshots(caller.orgId, from, to),
    reports.remediationActivity(caller.orgId, from, to)
  ])
  return { days: query.days, from, to, items: Reports.history(snapshots, activity) }
})

/**
 * The snapshot worker's step for one organization: computes and stores today's snapshot unless
 * the organization has one already; answers whether this call stored it. Several hosts may run
 * it at once: the store keeps the first snapshot of a day.
 */
export const snapshotCompliance = (orgId: OrgId) =>
  Effect.gen(function*() {
    const reports = yield* ReportStore
    const at = yield* now
    const day = Reports.dayOf(at)
    if ((yield* reports.snapshots(orgId, day, day)).length > 0) return false
    const report = yield* complianceReport(orgId, at)
    return yield* reports.putSnapshot(orgId, { day, report })
  })
