/**
 * The storage port. Every method is scoped by organization: there is no method that can read or
 * write another organization's row. Reads of a single row return `Option`; the workflow turns
 * `None` into the domain's `...NotFound`. Infrastructure failures (database gone) are defects:
 * they surface as a 500 with a correlation id, never as a user error.
 *
 * `transaction` makes a workflow's state change, its audit row and its outbox rows atomic
 * (ARCHITECTURE "Data flow"): if the effect fails, nothing of it is kept.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ApiKey } from "../ApiKey.js"
import type { RepositoryAssignment } from "../Assignment.js"
import type { AuditEvent } from "../Audit.js"
import type {
  ApiKeyId,
  EventId,
  OrgId,
  PhaseId,
  PolicyGroupId,
  RemediationId,
  RepositoryId,
  RoutineId,
  ScanId,
  SnoozeRequestId,
  TeamId,
  VcsConnectionId,
  WebhookId
} from "../Id.js"
import type { Organization } from "../Organization.js"
import type { ClaimedDelivery, Delivery, DeliveryAttempt, OutboxEvent } from "../Outbox.js"
import type { DraftMapping, ExternalSource, PolicyGroup, PublishedMapping } from "../PolicyGroup.js"
import type { RemediationRequest } from "../Remediation.js"
import type { Repository, RepositoryAlreadyTracked } from "../Repository.js"
import type { Routine } from "../Routine.js"
import type { BranchScan, ScanFailure } from "../Scan.js"
import type { Finding } from "../Scanner.js"
import type { SnoozeRequest } from "../SnoozeRequest.js"
import type { Team } from "../Team.js"
import type { VcsConnection } from "../VcsConnection.js"
import type { WebhookDestination } from "../Webhook.js"

/**
 * List order (the same on every store, so cursors mean the same everywhere): teams, routines and
 * policy groups by (name, id); VCS connections by (externalAccountName, id); repositories, drafts,
 * API keys, webhooks and snooze requests by (createdAt, id); audit events newest first by (at, id);
 * deliveries by (updatedAt, eventId); scans newest first by (queuedAt, id); remediation requests
 * newest first by (createdAt, id); findings by (file, line, column). The cursor is `Cursor.encodeCursor({ sortKey, id })` of the
 * last row of the page.
 */

/** A keyset page request: `cursor` is opaque (core `Cursor`), `limit` already validated (1..200). */
export interface PageRequest {
  readonly cursor?: string | undefined
  readonly limit: number
}

/** A page of a list: `nextCursor` is present only when more rows exist. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

export type { DraftMapping }

/** A new event and the destinations it fans out to (one delivery row each). */
export interface NewOutboxEvent {
  readonly event: OutboxEvent
  readonly destinations: ReadonlyArray<WebhookId>
}

/**
 * An API key found by its secret's hash, with the organization that owns it: authentication needs
 * both (the edition gate reads the organization), so a store reads them together.
 */
export interface ApiKeyMatch {
  readonly orgId: OrgId
  readonly key: ApiKey
  readonly organization: Organization
}

/** A connection found by id alone, with its organization and adapter settings. */
export interface LocatedConnection {
  readonly orgId: OrgId
  readonly connection: VcsConnection
  readonly settings: unknown
}

/** Where an external phase lives. */
export interface ExternalPhaseRef {
  readonly orgId: OrgId
  readonly policyGroupId: PolicyGroupId
  readonly phaseId: PhaseId
  /** The phase's source as stored (the poll worker decides from it which phases are due). */
  readonly external: ExternalSource
}

/** A scan leased to one worker by `scans.claim`. */
export interface ClaimedScan {
  readonly orgId: OrgId
  readonly scan: BranchScan
}

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

/** How a scan ended; `succeeded` replaces the branch's findings with `findings`. */
export type ScanOutcome =
  | {
    readonly status: "succeeded"
    readonly at: string
    readonly commitSha: string
    readonly fileCount: number
    readonly findings: ReadonlyArray<Finding>
  }
  | { readonly status: "failed"; readonly at: string; readonly failure: ScanFailure }

export interface StoreService {
  /** Runs `effect` atomically. Nested calls join the outer transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

  readonly organizations: {
    readonly get: (orgId: OrgId) => Effect.Effect<Option.Option<Organization>>
    readonly insert: (org: Organization) => Effect.Effect<void>
  }
  readonly teams: {
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<Team>>
    readonly get: (orgId: OrgId, teamId: TeamId) => Effect.Effect<Option.Option<Team>>
    readonly insert: (orgId: OrgId, team: Team) => Effect.Effect<void>
  }
  readonly routines: {
    /** All routines of the org, or those of one team when `teamId` is given. */
    readonly list: (orgId: OrgId, page: PageRequest, filter?: { readonly teamId?: TeamId }) => Effect.Effect<Page<Routine>>
    readonly get: (orgId: OrgId, routineId: RoutineId) => Effect.Effect<Option.Option<Routine>>
    readonly insert: (orgId: OrgId, routine: Routine) => Effect.Effect<void>
  }
  readonly vcsConnections: {
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<VcsConnection>>
    readonly get: (orgId: OrgId, id: VcsConnectionId) => Effect.Effect<Option.Option<VcsConnection>>
    readonly insert: (orgId: OrgId, connection: VcsConnection, settings: unknown) => Effect.Effect<void>
    /** Adapter settings of the connection (fixture data or API base URL and token reference). */
    readonly settings: (orgId: OrgId, id: VcsConnectionId) => Effect.Effect<Option.Option<unknown>>
    readonly setStatus: (orgId: OrgId, id: VcsConnectionId, status: VcsConnection["status"]) => Effect.Effect<void>
    /**
     * The status a provider's answers gave the connection (`ConnectionHealth`): written only over
     * `active` or `error`, never over the owner's `inactive`, however stale the caller's view.
     */
    readonly setHealth: (orgId: OrgId, id: VcsConnectionId, status: "active" | "error") => Effect.Effect<void>
    /**
     * Unscoped, like `apiKeys.findBySecretHash`: a provider's push webhook names only the
     * connection (connection ids are random and never reused), so the organization is learnt here.
     */
    readonly locate: (id: VcsConnectionId) => Effect.Effect<Option.Option<LocatedConnection>>
  }
  readonly repositories: {
    readonly list: (
      orgId: OrgId,
      page: PageRequest,
      filter?: { readonly repositoryId?: RepositoryId }
    ) => Effect.Effect<Page<Repository>>
    readonly get: (orgId: OrgId, id: RepositoryId) => Effect.Effect<Option.Option<Repository>>
    readonly findByExternalId: (
      orgId: OrgId,
      connectionId: VcsConnectionId,
      externalRepoId: string
    ) => Effect.Effect<Option.Option<Repository>>
    /** External ids of the connection's tracked repositories (for the `tracked` flag of available-repos). */
    readonly trackedExternalIds: (orgId: OrgId, connectionId: VcsConnectionId) => Effect.Effect<ReadonlySet<string>>
    /** Fails with `RepositoryAlreadyTracked` when a racing writer tracked the same repository first. */
    readonly insert: (orgId: OrgId, repository: Repository) => Effect.Effect<void, RepositoryAlreadyTracked>
    /** Takes the repository's row lock until the transaction ends (serializes assignment writers). */
    readonly lock: (orgId: OrgId, id: RepositoryId) => Effect.Effect<void>
  }
  readonly policyGroups: {
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<PolicyGroup>>
    /** Every group of the org (for assignment checks and resolution; orgs have few groups). */
    readonly all: (orgId: OrgId) => Effect.Effect<ReadonlyArray<PolicyGroup>>
    readonly get: (orgId: OrgId, id: PolicyGroupId) => Effect.Effect<Option.Option<PolicyGroup>>
    readonly insert: (orgId: OrgId, group: PolicyGroup) => Effect.Effect<void>
    /** Takes the group's row lock until the transaction ends (serializes drafts and publish). */
    readonly lock: (orgId: OrgId, id: PolicyGroupId) => Effect.Effect<void>
    readonly setExternalState: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      state: Pick<ExternalSource, "lastSyncedAt" | "lastError" | "lastVersion">
    ) => Effect.Effect<void>
    /** Unscoped: every external phase of every organization, for the sync worker (by org, group, phase id). */
    readonly externalPhases: () => Effect.Effect<ReadonlyArray<ExternalPhaseRef>>
  }
  readonly drafts: {
    readonly listByPhase: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      page: PageRequest
    ) => Effect.Effect<Page<DraftMapping>>
    readonly listByGroup: (orgId: OrgId, groupId: PolicyGroupId) => Effect.Effect<ReadonlyArray<DraftMapping>>
    readonly findByKey: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseId: PhaseId,
      key: string
    ) => Effect.Effect<Option.Option<DraftMapping>>
    /** Inserts or replaces the draft with the same (phase, key). */
    readonly put: (orgId: OrgId, groupId: PolicyGroupId, mapping: DraftMapping) => Effect.Effect<void>
  }
  readonly published: {
    readonly listByGroup: (orgId: OrgId, groupId: PolicyGroupId) => Effect.Effect<ReadonlyArray<PublishedMapping>>
    /**
     * The published mappings of several groups in one read (a branch's policy), each group's list
     * as `listByGroup` answers it; a group without mappings (or unknown) maps to an empty list.
     */
    readonly listByGroups: (
      orgId: OrgId,
      groupIds: ReadonlyArray<PolicyGroupId>
    ) => Effect.Effect<ReadonlyMap<PolicyGroupId, ReadonlyArray<PublishedMapping>>>
    /** Replaces the published mappings of the given phases of a group with `mappings`. */
    readonly replace: (
      orgId: OrgId,
      groupId: PolicyGroupId,
      phaseIds: ReadonlyArray<PhaseId>,
      mappings: ReadonlyArray<PublishedMapping>
    ) => Effect.Effect<void>
  }
  readonly assignments: {
    readonly get: (orgId: OrgId, repositoryId: RepositoryId) => Effect.Effect<ReadonlyArray<RepositoryAssignment>>
    readonly replace: (
      orgId: OrgId,
      repositoryId: RepositoryId,
      assignments: ReadonlyArray<RepositoryAssignment>
    ) => Effect.Effect<void>
  }
  readonly apiKeys: {
    readonly insert: (orgId: OrgId, key: ApiKey) => Effect.Effect<void>
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<ApiKey>>
    readonly get: (orgId: OrgId, id: ApiKeyId) => Effect.Effect<Option.Option<ApiKey>>
    /**
     * The only unscoped read: authentication starts from the secret, before the org is known. Reads
     * the key and its organization as they are now (one read per request, never cached: a revoked
     * key or a changed edition counts at once).
     */
    readonly findBySecretHash: (secretHash: string) => Effect.Effect<Option.Option<ApiKeyMatch>>
    readonly update: (orgId: OrgId, key: ApiKey) => Effect.Effect<void>
    /**
     * Records a use of the key at `at` (ISO 8601) unless a later use is already recorded. Touches
     * no other field, so it can never undo a concurrent revocation.
     */
    readonly touch: (orgId: OrgId, id: ApiKeyId, at: string) => Effect.Effect<void>
  }
  readonly webhooks: {
    readonly insert: (orgId: OrgId, destination: WebhookDestination) => Effect.Effect<void>
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<WebhookDestination>>
    readonly all: (orgId: OrgId) => Effect.Effect<ReadonlyArray<WebhookDestination>>
    readonly get: (orgId: OrgId, id: WebhookId) => Effect.Effect<Option.Option<WebhookDestination>>
    readonly update: (orgId: OrgId, destination: WebhookDestination) => Effect.Effect<void>
    readonly delete: (orgId: OrgId, id: WebhookId) => Effect.Effect<void>
  }
  readonly snoozeRequests: {
    readonly insert: (orgId: OrgId, request: SnoozeRequest) => Effect.Effect<void>
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<SnoozeRequest>>
    /** Every request about one repository, whatever its status, oldest first by (createdAt, id). */
    readonly listByRepository: (orgId: OrgId, repositoryId: RepositoryId) => Effect.Effect<ReadonlyArray<SnoozeRequest>>
    readonly get: (orgId: OrgId, id: SnoozeRequestId) => Effect.Effect<Option.Option<SnoozeRequest>>
    readonly update: (orgId: OrgId, request: SnoozeRequest) => Effect.Effect<void>
  }
  readonly scans: {
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
     * Unscoped, like `outbox.claim`: leases up to `limit` scans that are `queued`, or `running` with
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
    /** Unscoped: every tracked branch of every repository whose routine is active. */
    readonly routineTargets: () => Effect.Effect<ReadonlyArray<RoutineTarget>>
  }
  readonly remediations: {
    /** Inserts or replaces the request with the same id. */
    readonly put: (orgId: OrgId, request: RemediationRequest) => Effect.Effect<void>
    readonly get: (orgId: OrgId, id: RemediationId) => Effect.Effect<Option.Option<RemediationRequest>>
    /** The branch's newest request by (createdAt, id), whatever its status, or of those that did not fail. */
    readonly latest: (
      orgId: OrgId,
      repositoryId: RepositoryId,
      branchName: string,
      options?: { readonly excludeFailed?: boolean }
    ) => Effect.Effect<Option.Option<RemediationRequest>>
    /** A repository's requests, newest first by (createdAt, id). */
    readonly list: (orgId: OrgId, repositoryId: RepositoryId, page: PageRequest) => Effect.Effect<Page<RemediationRequest>>
  }
  readonly audit: {
    readonly append: (orgId: OrgId, event: AuditEvent) => Effect.Effect<void>
    /** Newest first. */
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<AuditEvent>>
  }
  readonly outbox: {
    readonly append: (orgId: OrgId, events: ReadonlyArray<NewOutboxEvent>) => Effect.Effect<void>
    readonly getEvent: (orgId: OrgId, id: EventId) => Effect.Effect<Option.Option<OutboxEvent>>
    /**
     * Claims up to `limit` pending deliveries due at `now` whose lease is free or expired, leasing
     * them to `worker` until `now + leaseMs`. Two workers never hold the same delivery at once
     * (SKIP LOCKED on PostgreSQL); a crashed worker's lease simply expires.
     */
    readonly claim: (options: {
      readonly worker: string
      readonly now: Date
      readonly leaseMs: number
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
    /** Records one attempt and the delivery's new state, releasing the lease: both or neither (atomic on its own). */
    readonly recordAttempt: (
      orgId: OrgId,
      attempt: DeliveryAttempt,
      next: Pick<Delivery, "status" | "nextAttemptAt">
    ) => Effect.Effect<void>
    readonly deliveries: (orgId: OrgId, webhookId: WebhookId, page: PageRequest) => Effect.Effect<Page<Delivery>>
    readonly attempts: (orgId: OrgId, eventId: EventId, webhookId: WebhookId) => Effect.Effect<ReadonlyArray<DeliveryAttempt>>
    /** Puts a dead delivery back to pending, due now (replay keeps the CloudEvent id). */
    readonly requeue: (orgId: OrgId, eventId: EventId, webhookId: WebhookId, now: Date) => Effect.Effect<boolean>
  }
}

export class Store extends Context.Service<Store, StoreService>()("@image-policy/core/Store") {}

