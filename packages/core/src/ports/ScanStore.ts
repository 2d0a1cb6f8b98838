/** Branch scans and the findings of each branch's newest succeeded scan. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId, RepositoryId, ScanId } from "../Id.js"
import type { Owners } from "../Lease.js"
import type { Page, PageRequest } from "../Page.js"
import type { BranchScan, RoutineTarget, ScanOutcome } from "../Scan.js"
import type { Finding } from "../Scanner.js"

/** A scan leased to one worker by `claim`. */
export interface ClaimedScan {
  readonly orgId: OrgId
  readonly scan: BranchScan
}

/** One scan, as a lease renewal names it. */
export interface ScanKey {
  readonly orgId: string
  readonly id: string
}

/** Scans waiting for and held by workers (`ScanStore.queueDepth`). */
export interface ScanQueueDepth {
  readonly queued: number
  readonly running: number
}

export class ScanStore extends Context.Service<ScanStore, {
  /**
   * Queues `scan` (status `queued`, `attempts` 0) unless the branch already has a scan `queued` or `running`;
   * answers the scan that is now pending for the branch (the new one or the existing one). Sets
   * the repository branch's `scan.status` to `queued` when it inserts.
   */
  readonly enqueue: (orgId: OrgId, scan: BranchScan) => Effect.Effect<BranchScan>
  readonly get: (orgId: OrgId, id: ScanId) => Effect.Effect<Option.Option<BranchScan>>
  /** The branch's newest scan by (queuedAt, id). */
  readonly latest: (orgId: OrgId, repositoryId: RepositoryId, branchName: string) => Effect.Effect<Option.Option<BranchScan>>
  /** The branch's newest scan with status `succeeded` (its findings are the branch's findings). */
  readonly latestSucceeded: (
    orgId: OrgId,
    repositoryId: RepositoryId,
    branchName: string
  ) => Effect.Effect<Option.Option<BranchScan>>
  /** A repository's scans, newest first by (queuedAt, id), optionally of one branch. */
  readonly list: (
    orgId: OrgId,
    repositoryId: RepositoryId,
    page: PageRequest,
    filter?: { readonly branchName?: string }
  ) => Effect.Effect<Page<BranchScan>>
  /**
   * Unscoped, like `OutboxStore.claim`: leases up to `limit` scans that are `queued`, or `running` with
   * an expired lease (a crashed worker's), oldest `queuedAt` first, to `worker` until
   * `now + leaseMs`; sets them `running` (and `startedAt` if unset), increments their `attempts`
   * and sets the repository branch's `scan.status` to `running`. Two workers never hold the same
   * scan (SKIP LOCKED on PostgreSQL).
   *
   * A `running` scan with an expired lease that already has `Scan.maxScanAttempts` attempts is not
   * handed out again: the same claim finishes it as `failed` with failure `abandoned`
   * (`finishedAt` = `now`, lease cleared, the branch's `scan.status` `failed`, the branch's
   * previous findings kept). Abandoned scans do not count against `limit` and are not answered.
   */
  readonly claim: (options: {
    readonly worker: string
    readonly now: Date
    readonly leaseMs: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ClaimedScan>>
  /**
   * Extends to `now + leaseMs` the leases `worker` still holds among `scans` (one write) and
   * answers those: a scan missing from the answer ended, was removed, released or claimed by
   * another worker, and its run must stop.
   */
  readonly renew: (options: {
    readonly worker: string
    readonly now: Date
    readonly leaseMs: number
    readonly scans: ReadonlyArray<ScanKey>
  }) => Effect.Effect<ReadonlyArray<ScanKey>>
  /**
   * Frees the leases of `owners` (Lease.Owners): their scans stay `running` without a lease, so
   * the next claim takes them at once (counting an attempt, as after a lease expired). Answers how
   * many were freed.
   */
  readonly release: (owners: Owners) => Effect.Effect<number>
  /**
   * Ends a scan `worker` still holds (answers false and writes nothing when the lease was lost):
   * sets status, `finishedAt`, failure or commit and counts, the repository branch's
   * `scan.status`, and on success replaces the branch's findings.
   */
  readonly finish: (orgId: OrgId, id: ScanId, worker: string, outcome: ScanOutcome) => Effect.Effect<boolean>
  /** The branch's current findings (of its newest succeeded scan), by (file, line, column). */
  readonly findings: (
    orgId: OrgId,
    repositoryId: RepositoryId,
    branchName: string,
    page: PageRequest
  ) => Effect.Effect<Page<Finding>>
  /** All of the branch's current findings, same order (remediation reads them whole). */
  readonly allFindings: (orgId: OrgId, repositoryId: RepositoryId, branchName: string) => Effect.Effect<ReadonlyArray<Finding>>
  /**
   * Removes the scans and current findings of the named branches of a repository, or of all its
   * branches when none are named (a branch no longer tracked, a repository untracked). A worker
   * holding one of those scans loses it: its `finish` answers false.
   */
  readonly remove: (orgId: OrgId, repositoryId: RepositoryId, branchNames?: ReadonlyArray<string>) => Effect.Effect<void>
  /** Unscoped, for the `/metrics` scrape: how many scans are `queued` and `running` (every organization). One read. */
  readonly queueDepth: () => Effect.Effect<ScanQueueDepth>
  /** Unscoped: every tracked branch of every repository whose routine is active. */
  readonly routineTargets: () => Effect.Effect<ReadonlyArray<RoutineTarget>>
}>()("@image-policy/core/ScanStore") {}
