/**
 * Policy groups and their phases (spec 2, 3; rules 7 and 9; contracts 5 "Phase (in details)").
 * A phase is managed either through the API (internal) or by a mappings file (external).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { PhaseId, PolicyGroupId, TeamId, VcsConnectionId } from "./Id.js"
import { type DraftMapping, Mapping, sameContent } from "./Mapping.js"

export const NotificationRouting = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("inherit") }),
  Schema.Struct({ kind: Schema.Literal("none") }),
  Schema.Struct({ kind: Schema.Literal("team"), teamId: TeamId })
])
export type NotificationRouting = typeof NotificationRouting.Type

/** An external phase's poll interval: whole seconds, 10 s to a day. */
export const PollIntervalSeconds = Schema.Int.check(
  Schema.isBetween({ minimum: 10, maximum: 86_400 }, { message: "must be a whole number of seconds from 10 to 86400" })
)

export const ExternalSource = Schema.Struct({
  vcsConnectionId: VcsConnectionId,
  repositoryFullName: Schema.String,
  branch: Schema.String,
  path: Schema.String,
  /** How often the poll worker reads the file (push webhooks make a change arrive sooner). */
  pollIntervalSeconds: PollIntervalSeconds,
  lastSyncedAt: Schema.NullOr(Schema.String),
  lastError: Schema.NullOr(Schema.String),
  /** Blob sha of the last applied file version: the same version is never applied twice. */
  lastVersion: Schema.NullOr(Schema.String)
})
export type ExternalSource = typeof ExternalSource.Type

/** The poll interval of an external phase that does not set one (and of rows stored before it existed). */
export const defaultPollIntervalSeconds = 60

/**
 * Whether an external phase is due for a poll of its mappings file at `nowMs` (spec 3 "external
 * phase" row): never synced and never attempted, or `pollIntervalSeconds` have passed since the
 * later of its `lastSyncedAt` and `lastAttemptMs` (the poller's last read of it, if any). The
 * attempt counts because a read that finds the same file version (or a provider that cannot
 * answer) leaves `lastSyncedAt` as it was: an unchanged phase must not be read on every tick. A
 * `lastSyncedAt` that does not parse counts as never synced.
 */
export const isPollDue = (
  external: Pick<ExternalSource, "lastSyncedAt" | "pollIntervalSeconds">,
  lastAttemptMs: number | undefined,
  nowMs: number
): boolean => (neverPolled(external, lastAttemptMs) || nowMs >= pollDueAt(external, lastAttemptMs))

const neverPolled = (external: Pick<ExternalSource, "lastSyncedAt">, lastAttemptMs: number | undefined) =>
  lastAttemptMs === undefined && (external.lastSyncedAt === null || Number.isNaN(Date.parse(external.lastSyncedAt)))

/**
 * When the phase's next poll is due (epoch ms) by the rule of `isPollDue`: the epoch (at once) when
 * it was never synced nor polled. Every host computes the same time from the same stored state, so
 * it names one poll across hosts (the poll worker claims it once).
 */
export const pollDueAt = (
  external: Pick<ExternalSource, "lastSyncedAt" | "pollIntervalSeconds">,
  lastAttemptMs: number | undefined
): number => {
  if (neverPolled(external, lastAttemptMs)) return 0
  const synced = external.lastSyncedAt === null ? Number.NaN : Date.parse(external.lastSyncedAt)
  const last = Math.max(Number.isNaN(synced) ? -Infinity : synced, lastAttemptMs ?? -Infinity)
  return last + external.pollIntervalSeconds * 1000
}

export const SourceType = Schema.Literals(["internal", "external"])
export type SourceType = typeof SourceType.Type

export const Phase = Schema.Struct({
  id: PhaseId,
  name: Schema.String,
  sourceType: SourceType,
  position: Schema.Int,
  external: Schema.optionalKey(ExternalSource)
})
export type Phase = typeof Phase.Type

export const PolicyGroup = Schema.Struct({
  id: PolicyGroupId,
  name: Schema.String,
  applyToAllRepos: Schema.Boolean,
  notificationRouting: NotificationRouting,
  /** Cooldown of external phases; `null` = the organization's default. */
  cooldownSeconds: Schema.NullOr(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  phases: Schema.Array(Phase)
})
export type PolicyGroup = typeof PolicyGroup.Type

export const PublishedMapping = Schema.Struct({
  ...Mapping.fields,
  phaseId: PhaseId,
  /** When the mapping takes effect: publish time for API phases, after cooldown for external ones. */
  activeFrom: Schema.String
})
export type PublishedMapping = typeof PublishedMapping.Type

// API views -----------------------------------------------------------------------------------

export const PolicyGroupListItem = Schema.Struct({ id: PolicyGroupId, name: Schema.String, applyToAllRepos: Schema.Boolean })

// exactly the shape of contracts section 5 ("Phase (in details)"): clients outside this repository
// compare it whole, so internal state (connection, file version, poll interval) stays out
export const PhaseView = Schema.Struct({
  id: PhaseId,
  name: Schema.String,
  sourceType: SourceType,
  external: Schema.optionalKey(Schema.Struct({
    repositoryFullName: Schema.String,
    branch: Schema.String,
    path: Schema.String,
    lastSyncedAt: Schema.NullOr(Schema.String),
    lastError: Schema.NullOr(Schema.String)
  }))
})
export type PhaseView = typeof PhaseView.Type

export const PolicyGroupDetails = Schema.Struct({
  id: PolicyGroupId,
  name: Schema.String,
  applyToAllRepos: Schema.Boolean,
  phases: Schema.Array(PhaseView),
  publishedMappings: Schema.Array(PublishedMapping)
})
export type PolicyGroupDetails = typeof PolicyGroupDetails.Type

const byPosition = (a: Phase, b: Phase) => a.position - b.position

export const toDetails = (group: PolicyGroup, published: ReadonlyArray<PublishedMapping>): PolicyGroupDetails => ({
  id: group.id,
  name: group.name,
  applyToAllRepos: group.applyToAllRepos,
  phases: [...group.phases].sort(byPosition).map((p) => ({
    id: p.id,
    name: p.name,
    sourceType: p.sourceType,
    ...(p.external
      ? {
        external: {
          repositoryFullName: p.external.repositoryFullName,
          branch: p.external.branch,
          path: p.external.path,
          lastSyncedAt: p.external.lastSyncedAt,
          lastError: p.external.lastError
        }
      }
      : {})
  })),
  publishedMappings: published
})

// Rules ---------------------------------------------------------------------------------------

export class PolicyGroupNotFound extends Schema.TaggedError<PolicyGroupNotFound>()("PolicyGroupNotFound", {
  policyGroupId: Schema.String
}) {
  override get message() {
    return `no policy group ${this.policyGroupId} in this organization`
  }
}

export class PhaseNotFound extends Schema.TaggedError<PhaseNotFound>()("PhaseNotFound", {
  policyGroupId: PolicyGroupId,
  phaseId: Schema.String
}) {
  override get message() {
    return `no phase ${this.phaseId} in policy group ${this.policyGroupId}`
  }
}

export class ExternalPhaseReadOnly extends Schema.TaggedError<ExternalPhaseReadOnly>()("ExternalPhaseReadOnly", {
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId
}) {
  override get message() {
    return "this phase is managed by an external mappings file; change the file instead"
  }
}

export const findPhase = (group: PolicyGroup, phaseId: string): Result.Result<Phase, PhaseNotFound> => {
  const phase = group.phases.find((p) => p.id === phaseId)
  return phase ? Result.succeed(phase) : Result.fail(new PhaseNotFound({ policyGroupId: group.id, phaseId }))
}

/** Spec rule 7: mapping edits through the API are refused on an external phase. */
export const ensureInternalPhase = (
  group: PolicyGroup,
  phaseId: string
): Result.Result<Phase, ExternalPhaseReadOnly | PhaseNotFound> =>
  Result.flatMap(findPhase(group, phaseId), (phase): Result.Result<Phase, ExternalPhaseReadOnly> =>
    phase.sourceType === "external"
      ? Result.fail(new ExternalPhaseReadOnly({ policyGroupId: group.id, phaseId: phase.id }))
      : Result.succeed(phase))

export interface PublishChanges {
  readonly created: ReadonlyArray<PublishedMapping>
  readonly updated: ReadonlyArray<PublishedMapping>
  readonly removed: ReadonlyArray<PublishedMapping>
}

/** A draft mapping against the published mapping in its slot (same phase, same key). */
export type DraftStep =
  | { readonly kind: "added"; readonly draft: DraftMapping }
  | { readonly kind: "changed"; readonly draft: DraftMapping; readonly previous: PublishedMapping }
  | { readonly kind: "unchanged"; readonly draft: DraftMapping; readonly previous: PublishedMapping }

/**
 * The group's draft against its published state, internal phases only (external phases follow
 * their files and have no draft): one step per draft mapping, in draft order, and the published
 * mappings no draft holds any more (they go on the next publish). Publish and the draft view
 * (GET .../draft) both read it, so the view shows exactly what a publish would do.
 */
export const diffDraft = (input: {
  readonly group: PolicyGroup
  readonly drafts: ReadonlyArray<DraftMapping>
  readonly published: ReadonlyArray<PublishedMapping>
}): { readonly steps: ReadonlyArray<DraftStep>; readonly removed: ReadonlyArray<PublishedMapping> } => {
  const internal = new Set(input.group.phases.filter((p) => p.sourceType === "internal").map((p) => p.id))
  const slot = (m: { readonly phaseId: string; readonly key: string }) => `${m.phaseId}\u0000${m.key}`
  const before = new Map(input.published.filter((m) => internal.has(m.phaseId)).map((m) => [slot(m), m]))
  const steps: Array<DraftStep> = []
  for (const draft of input.drafts) {
    if (!internal.has(draft.phaseId)) continue
    const previous = before.get(slot(draft))
    before.delete(slot(draft))
    steps.push(
      previous === undefined
        ? { kind: "added", draft }
        : { kind: sameContent(previous, draft) ? "unchanged" : "changed", draft, previous }
    )
  }
  return { steps, removed: [...before.values()] }
}

/**
 * Spec rule 9 and the states table: the complete draft of the group's internal phases becomes its
 * published policy, unrelated draft changes included; drafts removed since the last publish vanish.
 * External phases follow their files and are untouched here. The result describes policy only:
 * there is nothing in it that could open a remediation request (publishing opens none at once).
 */
export const publish = (input: {
  readonly group: PolicyGroup
  readonly drafts: ReadonlyArray<DraftMapping>
  readonly published: ReadonlyArray<PublishedMapping>
  readonly now: Date
}): { readonly published: ReadonlyArray<PublishedMapping>; readonly changes: PublishChanges } => {
  const internal = new Set(input.group.phases.filter((p) => p.sourceType === "internal").map((p) => p.id))
  const diff = diffDraft(input)
  const now = input.now.toISOString()
  const created: Array<PublishedMapping> = []
  const updated: Array<PublishedMapping> = []
  const next: Array<PublishedMapping> = input.published.filter((m) => !internal.has(m.phaseId))
  for (const step of diff.steps) {
    if (step.kind === "unchanged") {
      next.push(step.previous)
      continue
    }
    const live: PublishedMapping = { ...step.draft, activeFrom: now }
    ;(step.kind === "changed" ? updated : created).push(live)
    next.push(live)
  }
  return { published: next, changes: { created, updated, removed: diff.removed } }
}

/** POST .../sync on a phase managed through the API: there is no file to follow. */
export class PhaseNotExternal extends Schema.TaggedError<PhaseNotExternal>()("PhaseNotExternal", {
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId
}) {
  override get message() {
    return "this phase is managed through the API; only external phases follow a mappings file"
  }
}

/** An external phase with its source, as the sync reads it. */
export type ExternalPhase = Phase & { readonly sourceType: "external"; readonly external: ExternalSource }

/** POST .../sync and the sync triggers: only an external phase follows a file (409 otherwise). */
export const ensureExternalPhase = (
  group: PolicyGroup,
  phaseId: string
): Result.Result<ExternalPhase, PhaseNotExternal | PhaseNotFound> =>
  Result.flatMap(
    findPhase(group, phaseId),
    (phase): Result.Result<ExternalPhase, PhaseNotExternal> =>
      phase.sourceType === "external" && phase.external !== undefined
        ? Result.succeed(phase as ExternalPhase)
        : Result.fail(new PhaseNotExternal({ policyGroupId: group.id, phaseId: phase.id }))
  )

/** The external phases of a group, in position order. */
export const externalPhases = (group: PolicyGroup): ReadonlyArray<ExternalPhase> =>
  [...group.phases].sort(byPosition).filter((p): p is ExternalPhase => p.sourceType === "external" && p.external !== undefined)

/**
 * The cooldown of a group's external phases: the group's own setting, or the organization's
 * default when the group has none (`null`). Zero is a setting, not an absence.
 */
export const cooldownSecondsOf = (group: PolicyGroup, organizationCooldownSeconds: number): number =>
  group.cooldownSeconds ?? organizationCooldownSeconds
