/**
 * Policy groups and phases edited through the API (issue 15): the request bodies, the views the
 * routes answer, and the rules that turn a request into the group's next state. A phase keeps one
 * source of truth (spec 1): changing its source says what happens to its drafts (`SourceChange`).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { PhaseId, PolicyGroupId, TeamId, VcsConnectionId } from "./Id.js"
import { type FieldError, InvalidInput } from "./Input.js"
import { Mapping } from "./Mapping.js"
import type { DraftMapping } from "./Mapping.js"
import { CooldownSeconds } from "./Organization.js"
import {
  defaultPollIntervalSeconds,
  diffDraft,
  type DraftStep,
  type ExternalSource,
  type NotificationRouting,
  type Phase,
  type PolicyGroup,
  PollIntervalSeconds,
  PublishedMapping,
  SourceType
} from "./PolicyGroup.js"
import { StorableString } from "./Text.js"

const text = (max: number) => StorableString.check(Schema.isMinLength(1), Schema.isMaxLength(max))
const Name = text(200)

// Requests ------------------------------------------------------------------------------------

/**
 * Where a group's events go besides organization-scoped destinations (contracts 5 "Routing"):
 * the organization's default team, another team, or none (`disabled`, the seed's `none`).
 */
export const NotificationSetting = Schema.Union([
  Schema.Literals(["inherit", "disabled"]),
  Schema.Struct({ teamId: TeamId })
])
export type NotificationSetting = typeof NotificationSetting.Type

export const toRouting = (setting: NotificationSetting): NotificationRouting =>
  setting === "inherit"
    ? { kind: "inherit" }
    : setting === "disabled"
    ? { kind: "none" }
    : { kind: "team", teamId: setting.teamId }

export const toSetting = (routing: NotificationRouting): NotificationSetting =>
  routing.kind === "inherit" ? "inherit" : routing.kind === "none" ? "disabled" : { teamId: routing.teamId }

/** The team a setting names, to check that it exists in the organization. */
export const teamOf = (setting: NotificationSetting | undefined): TeamId | undefined =>
  typeof setting === "object" ? setting.teamId : undefined

export const CreatePolicyGroupRequest = Schema.Struct({
  name: Name,
  applyToAllRepos: Schema.optionalKey(Schema.Boolean),
  notification: Schema.optionalKey(NotificationSetting),
  /** Cooldown of the group's external phases; `null` (the default) = the organization's. */
  cooldownSeconds: Schema.optionalKey(Schema.NullOr(CooldownSeconds))
})
export type CreatePolicyGroupRequest = typeof CreatePolicyGroupRequest.Type

export const UpdatePolicyGroupRequest = Schema.Struct({
  name: Schema.optionalKey(Name),
  applyToAllRepos: Schema.optionalKey(Schema.Boolean),
  notification: Schema.optionalKey(NotificationSetting),
  cooldownSeconds: Schema.optionalKey(Schema.NullOr(CooldownSeconds))
})
export type UpdatePolicyGroupRequest = typeof UpdatePolicyGroupRequest.Type

const externalFields = {
  vcsConnectionId: VcsConnectionId,
  repositoryFullName: text(400),
  branch: text(255),
  path: text(1024)
}

/** An external phase's file: where it lives and how often the poll worker reads it (default 60 s). */
export const ExternalSourceRequest = Schema.Struct({
  ...externalFields,
  pollIntervalSeconds: Schema.optionalKey(PollIntervalSeconds)
})

/** A PATCH of an external phase's file: the fields given replace the phase's. */
export const ExternalSourcePatch = Schema.Struct({
  vcsConnectionId: Schema.optionalKey(externalFields.vcsConnectionId),
  repositoryFullName: Schema.optionalKey(externalFields.repositoryFullName),
  branch: Schema.optionalKey(externalFields.branch),
  path: Schema.optionalKey(externalFields.path),
  pollIntervalSeconds: Schema.optionalKey(PollIntervalSeconds)
})
export type ExternalSourcePatch = typeof ExternalSourcePatch.Type

/** Where the phase goes in the group's order (0 = first); past the end, or absent on create, = last. */
const Position = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const CreatePhaseRequest = Schema.Struct({
  name: Name,
  sourceType: SourceType,
  external: Schema.optionalKey(ExternalSourceRequest),
  position: Schema.optionalKey(Position)
})
export type CreatePhaseRequest = typeof CreatePhaseRequest.Type

export const UpdatePhaseRequest = Schema.Struct({
  name: Schema.optionalKey(Name),
  sourceType: Schema.optionalKey(SourceType),
  external: Schema.optionalKey(ExternalSourcePatch),
  position: Schema.optionalKey(Position)
})
export type UpdatePhaseRequest = typeof UpdatePhaseRequest.Type

// Views ---------------------------------------------------------------------------------------

/** A phase as the administration routes answer it: its file too, never the file version. */
export const PhaseSettings = Schema.Struct({
  id: PhaseId,
  name: Schema.String,
  sourceType: SourceType,
  position: Schema.Int,
  external: Schema.optionalKey(Schema.Struct({
    vcsConnectionId: Schema.String,
    repositoryFullName: Schema.String,
    branch: Schema.String,
    path: Schema.String,
    pollIntervalSeconds: Schema.Int,
    lastSyncedAt: Schema.NullOr(Schema.String),
    lastError: Schema.NullOr(Schema.String)
  }))
})
export type PhaseSettings = typeof PhaseSettings.Type

export const PolicyGroupSettings = Schema.Struct({
  id: PolicyGroupId,
  name: Schema.String,
  applyToAllRepos: Schema.Boolean,
  notification: NotificationSetting,
  cooldownSeconds: Schema.NullOr(Schema.Int),
  phases: Schema.Array(PhaseSettings)
})
export type PolicyGroupSettings = typeof PolicyGroupSettings.Type

export const toPhaseSettings = (phase: Phase): PhaseSettings => ({
  id: phase.id,
  name: phase.name,
  sourceType: phase.sourceType,
  position: phase.position,
  ...(phase.external
    ? {
      external: {
        vcsConnectionId: phase.external.vcsConnectionId,
        repositoryFullName: phase.external.repositoryFullName,
        branch: phase.external.branch,
        path: phase.external.path,
        pollIntervalSeconds: phase.external.pollIntervalSeconds,
        lastSyncedAt: phase.external.lastSyncedAt,
        lastError: phase.external.lastError
      }
    }
    : {})
})

export const toSettings = (group: PolicyGroup): PolicyGroupSettings => ({
  id: group.id,
  name: group.name,
  applyToAllRepos: group.applyToAllRepos,
  notification: toSetting(group.notificationRouting),
  cooldownSeconds: group.cooldownSeconds,
  phases: [...group.phases].sort((a, b) => a.position - b.position).map(toPhaseSettings)
})

export const DraftMappingView = Schema.Struct({ ...Mapping.fields, phaseId: PhaseId })

/** GET .../draft: what the next publish would do (`PolicyGroup.diffDraft`). */
export const DraftView = Schema.Struct({
  policyGroupId: PolicyGroupId,
  added: Schema.Array(DraftMappingView),
  changed: Schema.Array(Schema.Struct({ before: PublishedMapping, after: DraftMappingView })),
  removed: Schema.Array(PublishedMapping),
  unchanged: Schema.Int
})
export type DraftView = typeof DraftView.Type

export const draftView = (input: {
  readonly group: PolicyGroup
  readonly drafts: ReadonlyArray<DraftMapping>
  readonly published: ReadonlyArray<PublishedMapping>
}): DraftView => {
  const { removed, steps } = diffDraft(input)
  const of = <K extends DraftStep["kind"]>(kind: K) => steps.filter((s): s is Extract<DraftStep, { kind: K }> => s.kind === kind)
  return {
    policyGroupId: input.group.id,
    added: of("added").map((s) => s.draft),
    changed: of("changed").map((s) => ({ before: s.previous, after: s.draft })),
    removed,
    unchanged: of("unchanged").length
  }
}

// Errors --------------------------------------------------------------------------------------

export class PolicyGroupNameTaken extends Schema.TaggedError<PolicyGroupNameTaken>()("PolicyGroupNameTaken", {
  name: Schema.String,
  path: Schema.String
}) {
  override get message() {
    return "another policy group of this organization has this name"
  }
}

export class PhaseNameTaken extends Schema.TaggedError<PhaseNameTaken>()("PhaseNameTaken", {
  policyGroupId: PolicyGroupId,
  name: Schema.String,
  path: Schema.String
}) {
  override get message() {
    return "another phase of this policy group has this name"
  }
}

/**
 * A group assigned to repositories cannot be deleted (without `force`) nor made to apply to all
 * repositories: an all-repositories group is never assigned individually (spec 4.5).
 */
export class PolicyGroupAssigned extends Schema.TaggedError<PolicyGroupAssigned>()("PolicyGroupAssigned", {
  policyGroupId: PolicyGroupId,
  repositoryCount: Schema.Int,
  change: Schema.Literals(["delete", "applyToAllRepos"])
}) {
  override get message() {
    return this.change === "delete"
      ? `the policy group is assigned to ${this.repositoryCount} repositories; remove the assignments first, or delete with force=true`
      : `the policy group is assigned to ${this.repositoryCount} repositories; remove the assignments before it applies to all repositories`
  }
}

// Rules ---------------------------------------------------------------------------------------

const nameTaken = (names: Iterable<string>, name: string) => [...names].includes(name)

/** A new group: no phases, `inherit` routing and the organization's cooldown unless given. */
export const createGroup = (input: {
  readonly id: PolicyGroupId
  readonly request: CreatePolicyGroupRequest
  readonly existing: ReadonlyArray<PolicyGroup>
}): Result.Result<PolicyGroup, PolicyGroupNameTaken> => {
  const { request } = input
  if (nameTaken(input.existing.map((g) => g.name), request.name)) {
    return Result.fail(new PolicyGroupNameTaken({ name: request.name, path: "name" }))
  }
  return Result.succeed({
    id: input.id,
    name: request.name,
    applyToAllRepos: request.applyToAllRepos ?? false,
    notificationRouting: toRouting(request.notification ?? "inherit"),
    cooldownSeconds: request.cooldownSeconds ?? null,
    phases: []
  })
}

/** The group with the fields given replaced; `assignedRepositories` counts its explicit assignments. */
export const updateGroup = (input: {
  readonly group: PolicyGroup
  readonly request: UpdatePolicyGroupRequest
  readonly existing: ReadonlyArray<PolicyGroup>
  readonly assignedRepositories: number
}): Result.Result<PolicyGroup, PolicyGroupNameTaken | PolicyGroupAssigned> => {
  const { group, request } = input
  if (
    request.name !== undefined && request.name !== group.name &&
    nameTaken(input.existing.filter((g) => g.id !== group.id).map((g) => g.name), request.name)
  ) {
    return Result.fail(new PolicyGroupNameTaken({ name: request.name, path: "name" }))
  }
  if (request.applyToAllRepos === true && !group.applyToAllRepos && input.assignedRepositories > 0) {
    return Result.fail(
      new PolicyGroupAssigned({ policyGroupId: group.id, repositoryCount: input.assignedRepositories, change: "applyToAllRepos" })
    )
  }
  return Result.succeed({
    ...group,
    ...(request.name !== undefined ? { name: request.name } : {}),
    ...(request.applyToAllRepos !== undefined ? { applyToAllRepos: request.applyToAllRepos } : {}),
    ...(request.notification !== undefined ? { notificationRouting: toRouting(request.notification) } : {}),
    ...(request.cooldownSeconds !== undefined ? { cooldownSeconds: request.cooldownSeconds } : {})
  })
}

/** DELETE /policy-groups/{id}: refused while assigned, unless `force` removes the assignments too. */
export const ensureDeletable = (
  group: PolicyGroup,
  assignedRepositories: number,
  force: boolean
): Result.Result<void, PolicyGroupAssigned> =>
  assignedRepositories > 0 && !force
    ? Result.fail(new PolicyGroupAssigned({ policyGroupId: group.id, repositoryCount: assignedRepositories, change: "delete" }))
    : Result.void

/**
 * What a phase's new source means for its mappings (spec 1, one source of truth per phase):
 * - `toExternal`: the file becomes the source; the phase's drafts are dropped, its published
 *   mappings stay until the first sync replaces them with the file's;
 * - `toInternal`: the API becomes the source; the published mappings become the phase's drafts,
 *   so the next publish keeps them unless they are edited;
 * - `fileChanged`: another file (connection, repository, branch or path); it is read afresh at
 *   the next sync, the published mappings stay until then;
 * - `none`: the source is the same (a new name, position or poll interval only).
 */
export type SourceChange = "none" | "toExternal" | "toInternal" | "fileChanged"

const required = ["vcsConnectionId", "repositoryFullName", "branch", "path"] as const

/**
 * The phase a create (`current` undefined) or a PATCH makes, before it is placed in its group.
 * An external phase needs its whole file (400 naming each missing field); an internal one has
 * none. A new file starts unsynced, so the poll worker reads it at once.
 */
export const nextPhase = (
  current: Phase | undefined,
  request: UpdatePhaseRequest,
  id: PhaseId
): Result.Result<{ readonly phase: Phase; readonly change: SourceChange }, InvalidInput> => {
  const sourceType = request.sourceType ?? current?.sourceType
  const name = request.name ?? current?.name
  const errors: Array<FieldError> = []
  if (name === undefined) errors.push({ path: "name", message: "is missing" })
  if (sourceType === undefined) errors.push({ path: "sourceType", message: "is missing" })
  if (sourceType === "internal" && request.external !== undefined) {
    errors.push({ path: "external", message: "only an external phase has a mappings file" })
  }
  const before = current?.external
  const merged = { ...before, ...request.external }
  if (sourceType === "external") {
    for (const field of required) {
      if (merged[field] === undefined) errors.push({ path: `external.${field}`, message: "is missing" })
    }
  }
  if (errors.length > 0 || name === undefined || sourceType === undefined) return Result.fail(new InvalidInput({ errors }))
  const position = current?.position ?? 0
  if (sourceType === "internal") {
    return Result.succeed({
      phase: { id, name, sourceType, position },
      change: current?.sourceType === "external" ? "toInternal" : "none"
    })
  }
  const sameFile = before !== undefined && required.every((f) => before[f] === merged[f])
  const external: ExternalSource = {
    vcsConnectionId: merged.vcsConnectionId!,
    repositoryFullName: merged.repositoryFullName!,
    branch: merged.branch!,
    path: merged.path!,
    pollIntervalSeconds: merged.pollIntervalSeconds ?? defaultPollIntervalSeconds,
    ...(sameFile
      ? { lastSyncedAt: before.lastSyncedAt, lastError: before.lastError, lastVersion: before.lastVersion }
      : { lastSyncedAt: null, lastError: null, lastVersion: null })
  }
  const change: SourceChange = current === undefined || sameFile ? "none" : current.sourceType === "internal" ? "toExternal" : "fileChanged"
  return Result.succeed({ phase: { id, name, sourceType, position, external }, change })
}

const renumber = (phases: ReadonlyArray<Phase>): ReadonlyArray<Phase> => phases.map((p, position) => ({ ...p, position }))
const ordered = (group: PolicyGroup) => [...group.phases].sort((a, b) => a.position - b.position)

/**
 * The group with `phase` in it (replacing the phase with its id), at `position` in the group's
 * order (past the end or absent: last for a new phase, where it was for an existing one);
 * positions are renumbered 0..n-1. Phase names are unique in a group.
 */
export const placePhase = (
  group: PolicyGroup,
  phase: Phase,
  position: number | undefined
): Result.Result<PolicyGroup, PhaseNameTaken> => {
  const others = ordered(group).filter((p) => p.id !== phase.id)
  if (nameTaken(others.map((p) => p.name), phase.name)) {
    return Result.fail(new PhaseNameTaken({ policyGroupId: group.id, name: phase.name, path: "name" }))
  }
  const existing = ordered(group).findIndex((p) => p.id === phase.id)
  const at = Math.min(position ?? (existing === -1 ? others.length : existing), others.length)
  return Result.succeed({ ...group, phases: renumber([...others.slice(0, at), phase, ...others.slice(at)]) })
}

/** The group without the phase, positions renumbered. */
export const removePhase = (group: PolicyGroup, phaseId: PhaseId): PolicyGroup => ({
  ...group,
  phases: renumber(ordered(group).filter((p) => p.id !== phaseId))
})

/** The drafts an external phase's published mappings become when it turns internal (`toInternal`). */
export const draftsFromPublished = (published: ReadonlyArray<PublishedMapping>): ReadonlyArray<DraftMapping> =>
  published.map(({ activeFrom: _activeFrom, ...draft }) => draft)
