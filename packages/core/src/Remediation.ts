/**
 * Remediation pull/merge requests (spec section 3: publish opens none at once; section 6: the
 * remediation family). On its routine's schedule, a tracked branch whose findings have an active
 * published mapping gets one request that rewrites those references; an open request of the branch
 * is updated, never duplicated.
 */
import * as Schema from "effect/Schema"
import { MappingId, PhaseId, PolicyGroupId, RemediationId, RepositoryId, ScanId } from "./Id.js"

/** Machine-readable failure codes, the same as the `failure_kind` of the `.failed` event. */
export const RemediationFailure = Schema.Literal("provider-unavailable", "permission-denied", "conflict", "rate-limited")
export type RemediationFailure = typeof RemediationFailure.Type

/** One rewritten reference: where it is, what it was, what it becomes, and which mapping says so. */
export const RemediationChange = Schema.Struct({
  file: Schema.String,
  line: Schema.Int,
  column: Schema.Int,
  /** The text as written in the file before the change. */
  from: Schema.String,
  /** The mapping's exact `toImage`, written in its place. */
  to: Schema.String,
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId,
  mappingId: MappingId,
  /** Why this mapping won (the resolution's reason), listed in the request body. */
  reason: Schema.String
})
export type RemediationChange = typeof RemediationChange.Type

/**
 * `open`: the provider holds an open request for the branch (`number`, `url`). `failed`: the last
 * attempt failed (`failure`); `superseded`: a later request replaced it (the provider's request was
 * merged or closed, so a new one was opened).
 */
export const RemediationStatus = Schema.Literal("open", "failed", "superseded")
export type RemediationStatus = typeof RemediationStatus.Type

export const RemediationRequest = Schema.Struct({
  id: RemediationId,
  repositoryId: RepositoryId,
  /** The tracked branch the request targets (its base). */
  branchName: Schema.String,
  /** The branch holding the changes, derived from `branchName` only (no secret in it). */
  headBranch: Schema.String,
  status: RemediationStatus,
  failure: Schema.NullOr(RemediationFailure),
  /** The provider's pull/merge request number and web URL (null when opening failed). */
  number: Schema.NullOr(Schema.Int),
  url: Schema.NullOr(Schema.String),
  /** The scan whose findings the changes come from. */
  scanId: ScanId,
  changes: Schema.Array(RemediationChange),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type RemediationRequest = typeof RemediationRequest.Type
