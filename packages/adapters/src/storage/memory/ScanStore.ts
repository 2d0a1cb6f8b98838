/** Branch scans and each branch's findings in the memory state. */
import { type ClaimedScan, Cursor, Lease, type RoutineTarget, Scan, type ScanStore, Text } from "@image-policy/core"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Storable from "../Storable.js"
import { branchKey, byCreated, type OrgState, paginate, put, remove, type ScanRow, sortBy, type State, type Undo } from "./State.js"

const publicScan = ({ leaseUntil: _u, leaseWorker: _w, ...scan }: ScanRow): Scan.BranchScan => scan

const isPending = (scan: Scan.BranchScan) => scan.status === "queued" || scan.status === "running"

const byQueued = (a: { readonly queuedAt: string; readonly id: string }) => [a.queuedAt, a.id] as const

/** Sets a repository branch's `scan.status`; a missing repository or branch is left alone. */
const setBranchStatus = (undo: Undo, o: OrgState, repositoryId: string, branchName: string, status: Scan.ScanStatus) => {
  const repo = o.repositories.get(repositoryId)
  if (!repo || !repo.branches.some((b) => b.branchName === branchName)) return
  put(undo, o.repositories, repositoryId, {
    ...repo,
    branches: repo.branches.map((b) => b.branchName === branchName ? { ...b, scan: { ...b.scan, status } } : b)
  })
}

export const make = (s: State): typeof ScanStore.Service => {
  const scansOf = (orgId: string, repositoryId: string, branchName?: string) =>
    s.valuesOf(orgId, (o) => o.scans).filter((r) =>
      r.repositoryId === repositoryId && (branchName === undefined || r.branchName === branchName)
    )

  return {
    enqueue: (orgId, scan) =>
      s.run((undo) => {
        const o = s.need(orgId)
        for (const row of o.scans.values()) {
          if (row.repositoryId === scan.repositoryId && row.branchName === scan.branchName && isPending(row)) {
            return publicScan(row)
          }
        }
        const row: ScanRow = { ...scan, status: "queued", attempts: 0, leaseWorker: null, leaseUntil: null }
        put(undo, o.scans, scan.id, row)
        setBranchStatus(undo, o, scan.repositoryId, scan.branchName, "queued")
        return publicScan(row)
      }),
    get: (orgId, id) => s.read(() => Option.map(Option.fromNullishOr(s.state(orgId)?.scans.get(id)), publicScan)),
    latest: (orgId, repositoryId, branchName) =>
      s.read(() => Option.fromNullishOr(sortBy(scansOf(orgId, repositoryId, branchName), byQueued, true)[0]).pipe(Option.map(publicScan))),
    latestSucceeded: (orgId, repositoryId, branchName) =>
      s.read(() =>
        Option.fromNullishOr(
          sortBy(scansOf(orgId, repositoryId, branchName).filter((r) => r.status === "succeeded"), byQueued, true)[0]
        ).pipe(Option.map(publicScan))
      ),
    list: (orgId, repositoryId, page, filter) =>
      s.read(() =>
        paginate(sortBy(scansOf(orgId, repositoryId, filter?.branchName), byQueued, true).map(publicScan), byQueued, page, true)
      ),
    queueDepth: () =>
      s.read(() => {
        let queued = 0
        let running = 0
        for (const o of s.orgs.values()) {
          for (const row of o.scans.values()) {
            if (row.status === "queued") queued++
            else if (row.status === "running") running++
          }
        }
        return { queued, running }
      }),
    claim: ({ leaseMs, limit, now, worker }) =>
      s.run((undo) => {
        const t = now.getTime()
        const due: Array<readonly [OrgState, ScanRow]> = []
        for (const o of s.orgs.values()) {
          for (const row of o.scans.values()) {
            const expired = row.status === "running" && (row.leaseUntil === null || row.leaseUntil < t)
            if (expired && row.attempts >= Scan.maxScanAttempts) {
              // every attempt hung past its lease or crashed its worker: give up instead of
              // handing it out again (a failed scan keeps the branch's previous findings)
              put(undo, o.scans, row.id, {
                ...row,
                ...Scan.endedFields({ status: "failed", failure: "abandoned", at: now.toISOString() }),
                leaseWorker: null,
                leaseUntil: null
              })
              setBranchStatus(undo, o, row.repositoryId, row.branchName, "failed")
            } else if (row.status === "queued" || expired) {
              due.push([o, row])
            }
          }
        }
        const oldest = sortBy(due, ([, row]) => byQueued(row)).slice(0, limit)
        return oldest.map(([o, row]): ClaimedScan => {
          const claimed: ScanRow = {
            ...row,
            status: "running",
            startedAt: row.startedAt ?? Scan.startedAt(row.queuedAt, now.toISOString()),
            attempts: row.attempts + 1,
            leaseWorker: worker,
            leaseUntil: t + leaseMs
          }
          put(undo, o.scans, row.id, claimed)
          setBranchStatus(undo, o, row.repositoryId, row.branchName, "running")
          return { orgId: o.org.id, scan: publicScan(claimed) }
        })
      }),
    renew: ({ leaseMs, now, scans, worker }) =>
      s.run((undo) => {
        const until = now.getTime() + leaseMs
        return scans.filter((key) => {
          const o = s.orgs.get(key.orgId)
          const row = o?.scans.get(key.id)
          if (!o || !row || row.status !== "running" || row.leaseWorker !== worker) return false
          put(undo, o.scans, row.id, { ...row, leaseUntil: until })
          return true
        })
      }),
    release: (owners) =>
      s.run((undo) => {
        let freed = 0
        for (const o of s.orgs.values()) {
          for (const row of o.scans.values()) {
            if (row.status !== "running" || !Lease.matches(owners, row.leaseWorker)) continue
            put(undo, o.scans, row.id, { ...row, leaseWorker: null, leaseUntil: null })
            freed++
          }
        }
        return freed
      }),
    finish: (orgId, id, worker, outcome) =>
      s.run((undo) => {
        const o = s.state(orgId)
        const row = o?.scans.get(id)
        if (!o || !row || row.status !== "running" || row.leaseWorker !== worker) return false
        const findings = outcome.status === "succeeded" ? Storable.positioned(outcome.findings) : []
        put(undo, o.scans, id, { ...row, ...Scan.endedFields(outcome), leaseWorker: null, leaseUntil: null })
        // a failed scan keeps the branch's previous findings
        if (outcome.status === "succeeded") put(undo, o.findings, branchKey(row.repositoryId, row.branchName), findings)
        setBranchStatus(undo, o, row.repositoryId, row.branchName, outcome.status)
        return true
      }),
    findings: (orgId, repositoryId, branchName, page) =>
      s.read(() => {
        let rows = s.state(orgId)?.findings.get(branchKey(repositoryId, branchName)) ?? []
        if (page.cursor !== undefined) {
          const position = Result.getOrThrowWith(Cursor.decodeCursor(page.cursor), (e) => e)
          const file = String(position.sortKey)
          const [line, column, seq] = Storable.parseCursorId(position.id)
          rows = rows.filter(({ finding: f, seq: q }) =>
            (Text.compareCodePoints(f.file, file) || f.line - line || f.column - column || q - seq) > 0
          )
        }
        const items = rows.slice(0, page.limit)
        const last = items[items.length - 1]
        const nextCursor = rows.length > page.limit && last !== undefined
          ? Cursor.encodeCursor({ sortKey: Storable.cursorKey(last)[0], id: Storable.cursorKey(last)[1] })
          : null
        return { items: items.map((p) => p.finding), nextCursor }
      }),
    allFindings: (orgId, repositoryId, branchName) =>
      s.read(() => (s.state(orgId)?.findings.get(branchKey(repositoryId, branchName)) ?? []).map((p) => p.finding)),
    remove: (orgId, repositoryId, branchNames) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o === undefined) return
        const named = branchNames === undefined ? undefined : new Set(branchNames)
        for (const row of [...o.scans.values()]) {
          if (row.repositoryId === repositoryId && (named === undefined || named.has(row.branchName))) remove(undo, o.scans, row.id)
        }
        for (const key of [...o.findings.keys()]) {
          const branchName = key.slice(repositoryId.length + 1)
          if (key.startsWith(`${repositoryId}|`) && (named === undefined || named.has(branchName))) remove(undo, o.findings, key)
        }
      }),
    routineTargets: () =>
      s.read(() => {
        const targets: Array<RoutineTarget> = []
        for (const o of sortBy(s.orgs.values(), (x) => [x.org.id, x.org.id] as const)) {
          const lastRoutine = new Map<string, string>()
          for (const scan of o.scans.values()) {
            const k = branchKey(scan.repositoryId, scan.branchName)
            const seen = lastRoutine.get(k)
            if (scan.trigger === "routine" && (seen === undefined || scan.queuedAt > seen)) lastRoutine.set(k, scan.queuedAt)
          }
          for (const repo of sortBy(o.repositories.values(), byCreated)) {
            const routine = o.routines.get(repo.assignedRoutineId)
            if (routine === undefined || !routine.active) continue
            for (const b of repo.branches) {
              targets.push({
                orgId: o.org.id,
                repositoryId: repo.id,
                branchName: b.branchName,
                intervalDays: routine.intervalDays,
                trackedAt: repo.createdAt,
                lastRoutineScanAt: lastRoutine.get(branchKey(repo.id, b.branchName)) ?? null
              })
            }
          }
        }
        return targets
      })
  }
}
