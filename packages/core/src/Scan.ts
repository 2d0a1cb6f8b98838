/**
 * Branch scans (spec section 3: onboarding queues one per tracked branch). A scan reads the branch's
 * scannable files through the `VcsProvider` port and stores the `Scanner` findings of the branch;
 * the newest successful scan's findings are the branch's findings. Statuses beyond `queued` are our
 * choice (the spec shows only `queued`): `queued` -> `running` -> `succeeded` | `failed`.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { OrgId } from "./Id.js"
import { RepositoryId, ScanId } from "./Id.js"
import * as Resolution from "./Resolution.js"
import * as ResolutionIndex from "./ResolutionIndex.js"
import { Finding, isScannable } from "./Scanner.js"
import { isStorableText, utf8Length } from "./Text.js"
import type { VcsProviderError } from "./Vcs.js"

export { Finding }

/** `queued` -> `running` -> `succeeded` | `failed` (the spec shows only `queued`). */
export const ScanStatus = Schema.Literals(["queued", "running", "succeeded", "failed"])
export type ScanStatus = typeof ScanStatus.Type

/** Why a scan was queued: only `routine` scans are followed by remediation. */
export const ScanTrigger = Schema.Literals(["onboarding", "routine", "manual"])
export type ScanTrigger = typeof ScanTrigger.Type

/**
 * A failed scan's reason: a machine-readable code (never a provider's text or a token).
 * `provider-*` mirror `VcsProviderError` reasons; `too-large` when the branch exceeds the scan limits;
 * `abandoned` when the scan was claimed `maxScanAttempts` times without finishing (each run hung past
 * its lease or crashed its worker), so the store gave up on it instead of handing it out forever.
 */
export const ScanFailure = Schema.Literals([
  "provider-not-configured",
  "provider-unauthorized",
  "provider-not-found",
  "provider-rate-limited",
  "provider-unavailable",
  "too-large",
  "abandoned"
])
export type ScanFailure = typeof ScanFailure.Type

export const BranchScan = Schema.Struct({
  id: ScanId,
  repositoryId: RepositoryId,
  branchName: Schema.String,
  trigger: ScanTrigger,
  status: ScanStatus,
  /** Set when `status` is `failed`. */
  failure: Schema.NullOr(ScanFailure),
  /** The commit the scan read (set when it succeeded). */
  commitSha: Schema.NullOr(Schema.String),
  /** Files read and findings stored (0 until the scan succeeded). */
  fileCount: Schema.Int,
  findingCount: Schema.Int,
  /** How many times a worker claimed the scan so far (0 while queued); see `maxScanAttempts`. */
  attempts: Schema.Int,
  /** ISO 8601. */
  queuedAt: Schema.String,
  startedAt: Schema.NullOr(Schema.String),
  finishedAt: Schema.NullOr(Schema.String)
})
export type BranchScan = typeof BranchScan.Type

/** How a scan ended (`ScanStore.finish`); `succeeded` replaces the branch's findings with `findings`. */
export type ScanOutcome =
  | {
    readonly status: "succeeded"
    readonly at: string
    readonly commitSha: string
    readonly fileCount: number
    readonly findings: ReadonlyArray<Finding>
  }
  | { readonly status: "failed"; readonly at: string; readonly failure: ScanFailure }

/**
 * A tracked branch of a repository whose routine is active, for the routine worker: it decides from
 * `intervalDays` and the last routine scan whether a routine run (scan, then remediation) is due.
 */
export interface RoutineTarget {
  readonly orgId: OrgId
  readonly repositoryId: RepositoryId
  readonly branchName: string
  readonly intervalDays: number
  /** ISO 8601: when the repository was tracked (the first interval counts from here). */
  readonly trackedAt: string
  /** ISO 8601 `queuedAt` of the branch's newest scan with trigger `routine`; null when none. */
  readonly lastRoutineScanAt: string | null
}

/** A finding as the findings route shows it: `resolution` is null when no mapping applies (or the image is unknown). */
export const FindingView = Finding.pipe(Schema.fieldsAssign({ resolution: Schema.NullOr(Resolution.FindingResolution) }))
export type FindingView = typeof FindingView.Type

// Rules --------------------------------------------------------------------------------------------

/** A branch with more files than this is not scanned (`too-large`): its tree alone is too much to hold. */
export const maxTreePaths = 50_000
/** A branch with more scannable files than this is not scanned (`too-large`). */
export const maxScannableFiles = 5_000
/** A file larger than this (UTF-8 bytes) is skipped: no hand-written manifest is that large. */
export const maxFileBytes = 1_048_576

/**
 * Claims a scan gets: a scan whose lease expired this many times (it hung past its lease or crashed
 * its worker, e.g. out of memory, every time) is finished as `failed` / `abandoned` by the next claim
 * instead of taking a worker slot every lease period, ahead of newer scans, forever.
 */
export const maxScanAttempts = 3

const dayMs = 86_400_000

/**
 * Whether a tracked branch's routine run is due at `now`: `intervalDays` days after its last routine
 * scan was queued, or after the repository was tracked when it never had one. A target whose time
 * does not parse is due (better one scan too many than a branch never scanned again).
 */
export const isRoutineDue = (
  target: Pick<RoutineTarget, "intervalDays" | "trackedAt" | "lastRoutineScanAt">,
  now: Date
): boolean => {
  const since = Date.parse(target.lastRoutineScanAt ?? target.trackedAt)
  return Number.isNaN(since) || now.getTime() - since >= target.intervalDays * dayMs
}

/** A provider error as a failed scan's reason (never the provider's text). */
export const failureOf = (error: VcsProviderError): ScanFailure => `provider-${error.reason}`

/**
 * The fields a scan has once it ended (`scans.finish`, or `abandoned` by a claim), whichever store
 * writes them: a succeeded scan records its commit and counts; a failed one records why and counts
 * nothing (the branch keeps the findings of its previous succeeded scan, which the store leaves).
 */
export const endedFields = (
  outcome: ScanOutcome
): Pick<BranchScan, "status" | "failure" | "commitSha" | "fileCount" | "findingCount" | "finishedAt"> =>
  outcome.status === "succeeded"
    ? {
      status: "succeeded",
      failure: null,
      commitSha: outcome.commitSha,
      fileCount: outcome.fileCount,
      findingCount: outcome.findings.length,
      finishedAt: outcome.at
    }
    : { status: "failed", failure: outcome.failure, commitSha: null, fileCount: 0, findingCount: 0, finishedAt: outcome.at }

/**
 * The paths of a branch tree a scan reads (`Scanner.isScannable`, in tree order), or `too-large`
 * when the tree or its scannable files exceed the scan limits.
 */
export const scannablePaths = (paths: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, "too-large"> => {
  if (paths.length > maxTreePaths) return Result.fail("too-large")
  const scannable = paths.filter((path) => isScannable(path) && isPathScannable(path))
  return scannable.length > maxScannableFiles ? Result.fail("too-large") : Result.succeed(scannable)
}

/**
 * The longest path a scan reads, in UTF-8 bytes. A finding is stored and ordered by its path, and
 * no store can index a key of unbounded length (PostgreSQL's limit is about 2,700 bytes for the
 * whole key); longer paths (far past any real repository's) are left out of the scan, on every store.
 */
export const maxPathBytes = 1024

/** Whether a path is short enough and storable text (a lone surrogate is no path a store can hold). */
const isPathScannable = (path: string): boolean => utf8Length(path) <= maxPathBytes && isStorableText(path)

/**
 * When a claimed scan started: the claim's time, but never before the scan was queued (a worker
 * reads its clock, then claims; a scan queued in between would otherwise start before it was
 * queued). Both are ISO 8601 UTC texts of the same form, so text order is time order.
 */
export const startedAt = (queuedAt: string, claimedAt: string): string => claimedAt > queuedAt ? claimedAt : queuedAt

/** Whether a file is over `maxFileBytes` (skipped by a scan). */
export const isFileTooLarge = (content: string): boolean =>
  // every UTF-16 code unit is 1 to 3 UTF-8 bytes: most files are decided without counting
  content.length > maxFileBytes ? true : content.length * 3 <= maxFileBytes ? false : utf8Length(content) > maxFileBytes

/**
 * Which published mapping applies to a finding at `now`, and why: the winner of
 * `ResolutionIndex.decide` over the branch's policy for the finding's normalized image and
 * platform. Null when the image is unknown (unresolved or invalid) or no mapping applies.
 */
export const resolveFinding = (
  policy: ResolutionIndex.ResolutionIndex,
  finding: Pick<Finding, "normalized" | "platform" | "unresolved">,
  now: Date
): Resolution.FindingResolution | null => {
  if (finding.normalized === undefined || (finding.unresolved !== undefined && finding.unresolved.length > 0)) return null
  const result = ResolutionIndex.decide(policy, { image: finding.normalized, platform: finding.platform, now })
  if (Result.isFailure(result) || result.success === null) return null
  return ResolutionIndex.toFindingResolution(result.success)
}

/** A finding with the mapping that applies to it (the findings route). */
export const toView = (policy: ResolutionIndex.ResolutionIndex, finding: Finding, now: Date): FindingView => ({
  ...finding,
  resolution: resolveFinding(policy, finding, now)
})
