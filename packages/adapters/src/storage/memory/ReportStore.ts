/** What the compliance report reads, and its daily snapshots, in the memory state. */
import type { Id, Reports, ReportStore } from "@image-policy/core"
import { branchKey, byCreated, put, type ScanRow, sortBy, type State } from "./State.js"

/**
 * Each memory instance's snapshots by organization and day. Kept beside the shared state rather
 * than in it: only this store reads them, and writes still go through the state's transaction.
 */
const snapshotsOf = new WeakMap<State, Map<string, Map<string, Reports.ComplianceSnapshot>>>()

const byQueued = (a: { readonly queuedAt: string; readonly id: string }) => [a.queuedAt, a.id] as const

export const make = (s: State): typeof ReportStore.Service => {
  const daysOf = (orgId: string) => {
    let orgs = snapshotsOf.get(s)
    if (orgs === undefined) snapshotsOf.set(s, orgs = new Map())
    let days = orgs.get(orgId)
    if (days === undefined) orgs.set(orgId, days = new Map())
    return days
  }
  /** Each branch's newest succeeded scan (its findings are the branch's findings). */
  const latestSucceeded = (orgId: string) => {
    const latest = new Map<string, ScanRow>()
    for (const row of sortBy(s.valuesOf(orgId, (o) => o.scans).filter((r) => r.status === "succeeded"), byQueued)) {
      latest.set(branchKey(row.repositoryId, row.branchName), row)
    }
    return latest
  }
  return {
    repositories: (orgId) =>
      s.read(() =>
        sortBy(s.valuesOf(orgId, (o) => o.repositories), byCreated).map((repository) => ({
          repository,
          assignments: s.state(orgId)?.assignments.get(repository.id) ?? []
        }))
      ),
    findingCounts: (orgId, branches) =>
      s.read(() => {
        const o = s.state(orgId)
        if (o === undefined) return []
        const latest = latestSucceeded(orgId)
        const counts = new Map<string, Reports.FindingCount>()
        for (const { branchName, bucket, repositoryId } of branches) {
          const key = branchKey(repositoryId, branchName)
          const scanAt = latest.get(key)?.finishedAt ?? null
          for (const { finding } of o.findings.get(key) ?? []) {
            const normalized = finding.normalized ?? null
            const platform = finding.platform ?? null
            const unresolved = finding.unresolved !== undefined && finding.unresolved.length > 0
            const k = JSON.stringify([bucket, normalized, platform, unresolved])
            const c = counts.get(k)
            counts.set(k, {
              bucket,
              normalized,
              platform,
              unresolved,
              count: (c?.count ?? 0) + 1,
              oldestScanAt: c === undefined
                ? scanAt
                : c.oldestScanAt === null || (scanAt !== null && scanAt < c.oldestScanAt)
                ? scanAt
                : c.oldestScanAt
            })
          }
        }
        return [...counts.values()]
      }),
    branchStates: (orgId, branches) =>
      s.read(() => {
        const latest = latestSucceeded(orgId)
        const open = new Map<string, number>()
        for (const r of s.valuesOf(orgId, (o) => o.remediations)) {
          if (r.status !== "open") continue
          const key = branchKey(r.repositoryId, r.branchName)
          open.set(key, (open.get(key) ?? 0) + 1)
        }
        return branches.map(({ branchName, repositoryId }) => ({
          repositoryId,
          branchName,
          scanned: latest.has(branchKey(repositoryId, branchName)),
          openRemediationRequests: open.get(branchKey(repositoryId, branchName)) ?? 0
        }))
      }),
    liveSnoozes: (orgId) =>
      s.read(() => sortBy(s.valuesOf(orgId, (o) => o.snoozes).filter((r) => r.status === "pending" || r.status === "approved"), byCreated)),
    organizationIds: () => s.read(() => [...s.orgs.keys()].sort() as Array<Id.OrgId>),
    putSnapshot: (orgId, snapshot) =>
      s.run((undo) => {
        s.need(orgId)
        const days = daysOf(orgId)
        if (days.has(snapshot.day)) return false
        put(undo, days, snapshot.day, snapshot)
        return true
      }),
    remediationActivity: (orgId, from, to) =>
      s.read(() => {
        const inRange = (at: string | null) => at !== null && at.slice(0, 10) >= from && at.slice(0, 10) <= to
        return s.valuesOf(orgId, (o) => o.remediations)
          .filter((r) => inRange(r.createdAt) || inRange(r.mergedAt))
          .map((r) => ({ status: r.status, createdAt: r.createdAt, mergedAt: r.mergedAt }))
      }),
    snapshots: (orgId, from, to) =>
      s.read(() =>
        [...daysOf(orgId).values()].filter((x) => x.day >= from && x.day <= to).sort((a, b) => a.day < b.day ? -1 : a.day > b.day ? 1 : 0)
      )
  }
}
