/**
 * What the compliance report reads in bulk (one statement each, never a finding per row), and the
 * organization's daily snapshots of it (issue 15). Scoped by organization except
 * `organizationIds`, the snapshot worker's list of every organization.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { RepositoryAssignment } from "../Assignment.js"
import type { OrgId } from "../Id.js"
import type { BranchState, BucketedBranch, ComplianceSnapshot, FindingCount, RemediationActivity } from "../Reports.js"
import type { Repository } from "../Repository.js"
import type { SnoozeRequest } from "../SnoozeRequest.js"

export class ReportStore extends Context.Service<ReportStore, {
  /** Every tracked repository with its explicit assignments, by (createdAt, id). */
  readonly repositories: (
    orgId: OrgId
  ) => Effect.Effect<ReadonlyArray<{ readonly repository: Repository; readonly assignments: ReadonlyArray<RepositoryAssignment> }>>
  /**
   * The current findings of the given branches counted per (bucket, normalized image, platform,
   * unresolved), with the earliest finish time of the scans they come from; branches not given
   * are not counted.
   */
  readonly findingCounts: (orgId: OrgId, branches: ReadonlyArray<BucketedBranch>) => Effect.Effect<ReadonlyArray<FindingCount>>
  /**
   * For each given branch: whether it has a succeeded scan, and how many of its remediation
   * requests are `open`. In the order given.
   */
  readonly branchStates: (orgId: OrgId, branches: ReadonlyArray<BucketedBranch>) => Effect.Effect<ReadonlyArray<BranchState>>
  /** The snooze requests that are `pending` or `approved` (whether or not `until` passed). */
  readonly liveSnoozes: (orgId: OrgId) => Effect.Effect<ReadonlyArray<SnoozeRequest>>
  /** Unscoped: every organization's id, for the snapshot worker. */
  readonly organizationIds: () => Effect.Effect<ReadonlyArray<OrgId>>
  /**
   * Stores the day's snapshot unless the organization already has one for that day (the first
   * writer wins, whichever host); answers whether this call stored it.
   */
  readonly putSnapshot: (orgId: OrgId, snapshot: ComplianceSnapshot) => Effect.Effect<boolean>
  /**
   * The organization's remediation requests (status, createdAt, mergedAt) created or merged on the
   * days `from`..`to` (inclusive, UTC `YYYY-MM-DD`), in one read for the whole range; failed
   * attempts included (the core leaves them out of the opened counts).
   */
  readonly remediationActivity: (orgId: OrgId, from: string, to: string) => Effect.Effect<ReadonlyArray<RemediationActivity>>
  /** The snapshots of the days `from`..`to` (inclusive, `YYYY-MM-DD`), oldest first. */
  readonly snapshots: (orgId: OrgId, from: string, to: string) => Effect.Effect<ReadonlyArray<ComplianceSnapshot>>
}>()("@image-policy/core/ReportStore") {}
