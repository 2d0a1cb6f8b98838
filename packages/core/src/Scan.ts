/**
 * Branch scans (spec section 3: onboarding queues one per tracked branch). A scan reads the branch's
 * scannable files through the `VcsProvider` port and stores the `Scanner` findings of the branch;
 * the newest successful scan's findings are the branch's findings. Statuses beyond `queued` are our
 * choice (the spec shows only `queued`): `queued` -> `running` -> `succeeded` | `failed`.
 */
import * as Schema from "effect/Schema"
import { MappingId, PhaseId, PolicyGroupId, RepositoryId, ScanId } from "./Id.js"
import { ScanStatus } from "./Onboarding.js"
import { Finding } from "./Scanner.js"

export { Finding, ScanStatus }

/** Why a scan was queued: only `routine` scans are followed by remediation. */
export const ScanTrigger = Schema.Literal("onboarding", "routine", "manual")
export type ScanTrigger = typeof ScanTrigger.Type

/**
 * A failed scan's reason: a machine-readable code (never a provider's text or a token).
 * `provider-*` mirror `VcsProviderError` reasons; `too-large` when the branch exceeds the scan limits.
 */
export const ScanFailure = Schema.Literal(
  "provider-not-configured",
  "provider-unauthorized",
  "provider-not-found",
  "provider-rate-limited",
  "provider-unavailable",
  "too-large"
)
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
  /** ISO 8601. */
  queuedAt: Schema.String,
  startedAt: Schema.NullOr(Schema.String),
  finishedAt: Schema.NullOr(Schema.String)
})
export type BranchScan = typeof BranchScan.Type

/**
 * Which published mapping applies to a finding on its branch, and why: the winner of the core's
 * resolution (`Resolution.resolveCompiled` over the policy that applies to the branch), never a
 * second implementation.
 */
export const FindingResolution = Schema.Struct({
  toImage: Schema.String,
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId,
  mappingId: MappingId,
  fromImage: Schema.String,
  /** The winner's line of the resolution's `considered` list. */
  reason: Schema.String
})
export type FindingResolution = typeof FindingResolution.Type

/** A finding as the findings route shows it: `resolution` is null when no mapping applies (or the image is unknown). */
export const FindingView = Schema.extend(Finding, Schema.Struct({ resolution: Schema.NullOr(FindingResolution) }))
export type FindingView = typeof FindingView.Type

