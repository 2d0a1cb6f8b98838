/**
 * Policy groups and phases through the API (issue 15): create, change and delete groups and
 * phases, remove a draft mapping, and read a group's draft against its published policy. Every
 * change writes its audit row and its `service.policy_group.updated` event (and, where published
 * mappings go at once, their `service.policy_mapping.removed` events) in its transaction, under
 * the group's row lock like drafts, publish and sync.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { MappingId, PhaseId, PolicyGroupId } from "../Id.js"
import * as Input from "../Input.js"
import { MappingNotFound } from "../Mapping.js"
import * as Admin from "../PolicyAdministration.js"
import * as PolicyGroup from "../PolicyGroup.js"
import { Ids } from "../ports/Ids.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { transaction } from "../ports/Transaction.js"
import { audit, type Caller, emit, InvalidReferenceInBody, now } from "./Caller.js"
import { loadGroup } from "./GroupAccess.js"
import { mappingEvent, policyRouting } from "./PolicyEvents.js"

/** The group named in the path, under its row lock (404 when it does not exist). */
const lockGroup = (caller: Caller, groupId: PolicyGroupId) =>
  Effect.gen(function*() {
    const { policyGroups } = yield* PolicyStore
    yield* policyGroups.lock(caller.orgId, groupId)
    return yield* loadGroup(caller, groupId)
  })

/** A team named in a body must be one of the organization's (400 naming its path). */
const checkTeam = (caller: Caller, setting: Admin.NotificationSetting | undefined) =>
  Effect.gen(function*() {
    const teamId = Admin.teamOf(setting)
    if (teamId === undefined) return
    const { teams } = yield* OrganizationStore
    if (Option.isNone(yield* teams.get(caller.orgId, teamId))) {
      return yield* new InvalidReferenceInBody({ path: "notification.teamId", message: "no such team in this organization" })
    }
  })

/** A connection named in a phase's file must be one of the organization's (400 naming its path). */
const checkConnection = (caller: Caller, phase: PolicyGroup.Phase) =>
  Effect.gen(function*() {
    if (phase.external === undefined) return
    const { vcsConnections } = yield* RepositoryStore
    if (Option.isNone(yield* vcsConnections.get(caller.orgId, phase.external.vcsConnectionId))) {
      return yield* new InvalidReferenceInBody({ path: "external.vcsConnectionId", message: "no such VCS connection in this organization" })
    }
  })

/**
 * Tells subscribers about a change of `group` (routed as publish events are): one
 * `service.policy_group.updated` with the group's published mapping count after the change, and a
 * `service.policy_mapping.removed` for each published mapping the change removed at once.
 */
const emitUpdated = (
  caller: Caller,
  group: PolicyGroup.PolicyGroup,
  mappingCount: number,
  removed: ReadonlyArray<PolicyGroup.PublishedMapping> = []
) =>
  Effect.gen(function*() {
    const { organizations } = yield* OrganizationStore
    const changedAt = (yield* now).toISOString()
    yield* emit(caller, policyRouting(group, yield* organizations.get(caller.orgId)), [
      {
        type: "service.policy_group.updated",
        data: { policy_group_id: group.id, action: "updated", mapping_count: mappingCount, changed_at: changedAt }
      },
      ...removed.map(mappingEvent(group.id, changedAt, "removed"))
    ])
  })

const publishedCount = (caller: Caller, groupId: PolicyGroupId) =>
  PolicyStore.use(({ published }) => Effect.map(published.listByGroup(caller.orgId, groupId), (m) => m.length))

/** GET /policy-groups/{groupId}: the group's settings and phases (with their files). */
export const getPolicyGroup = Effect.fnUntraced(function*(caller: Caller, groupId: PolicyGroupId) {
  return Admin.toSettings(yield* loadGroup(caller, groupId))
})

/** POST /policy-groups: a new group without phases (201). Names are unique in an organization (409). */
export const createPolicyGroup = Effect.fnUntraced(function*(caller: Caller, request: Admin.CreatePolicyGroupRequest) {
  yield* Input.validate(Admin.CreatePolicyGroupRequest, request)
  const { policyGroups } = yield* PolicyStore
  const ids = yield* Ids
  return yield* transaction(Effect.gen(function*() {
    yield* checkTeam(caller, request.notification)
    yield* policyGroups.lockNames(caller.orgId)
    const group = yield* Effect.fromResult(Admin.createGroup({
      id: (yield* ids.next("policyGroup")) as PolicyGroupId,
      request,
      existing: yield* policyGroups.all(caller.orgId)
    }))
    yield* policyGroups.insert(caller.orgId, group)
    yield* audit(caller, "policy_group.create", "policy_group", group.id)
    yield* emitUpdated(caller, group, 0)
    return Admin.toSettings(group)
  }))
})

/**
 * PATCH /policy-groups/{groupId}: the fields given replace the group's. `applyToAllRepos: true`
 * is refused (409) while repositories have the group assigned explicitly (spec 4.5).
 */
export const updatePolicyGroup = Effect.fnUntraced(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  request: Admin.UpdatePolicyGroupRequest
) {
  yield* Input.validate(Admin.UpdatePolicyGroupRequest, request)
  const { policyGroups } = yield* PolicyStore
  const { assignments } = yield* RepositoryStore
  return yield* transaction(Effect.gen(function*() {
    const group = yield* lockGroup(caller, groupId)
    yield* checkTeam(caller, request.notification)
    const renamed = request.name !== undefined && request.name !== group.name
    if (renamed) yield* policyGroups.lockNames(caller.orgId)
    const next = yield* Effect.fromResult(Admin.updateGroup({
      group,
      request,
      existing: renamed ? yield* policyGroups.all(caller.orgId) : [],
      assignedRepositories: request.applyToAllRepos === true && !group.applyToAllRepos
        ? (yield* assignments.referencing(caller.orgId, groupId)).length
        : 0
    }))
    if (JSON.stringify(next) !== JSON.stringify(group)) {
      yield* policyGroups.insert(caller.orgId, next)
      yield* audit(caller, "policy_group.update", "policy_group", groupId)
      yield* emitUpdated(caller, next, yield* publishedCount(caller, groupId))
    }
    return Admin.toSettings(next)
  }))
})

/**
 * DELETE /policy-groups/{groupId}: the group, its phases, drafts and published mappings. Refused
 * (409) while repositories have it assigned, unless `force`, which removes it from their
 * assignments in the same transaction (an audit row per repository).
 */
export const deletePolicyGroup = Effect.fnUntraced(function*(caller: Caller, groupId: PolicyGroupId, force: boolean) {
  const { policyGroups, published } = yield* PolicyStore
  const { assignments, repositories } = yield* RepositoryStore
  return yield* transaction(Effect.gen(function*() {
    // the group's lock first, then the repositories' (the order replaceAssignments takes them in)
    const group = yield* lockGroup(caller, groupId)
    const referencing = yield* assignments.referencing(caller.orgId, groupId)
    yield* Effect.fromResult(Admin.ensureDeletable(group, referencing.length, force))
    for (const { repositoryId } of referencing) {
      yield* repositories.lock(caller.orgId, repositoryId)
      const current = yield* assignments.get(caller.orgId, repositoryId)
      yield* assignments.replace(caller.orgId, repositoryId, current.filter((a) => a.policyGroupId !== groupId))
      yield* audit(caller, "assignments.replace", "repository", repositoryId)
    }
    const removed = yield* published.listByGroup(caller.orgId, groupId)
    yield* policyGroups.delete(caller.orgId, groupId)
    yield* audit(caller, "policy_group.delete", "policy_group", groupId)
    yield* emitUpdated(caller, group, 0, removed)
  }))
})

/** POST /policy-groups/{groupId}/phases: a new internal or external phase (201), last unless `position` says. */
export const createPhase = Effect.fnUntraced(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  request: Admin.CreatePhaseRequest
) {
  yield* Input.validate(Admin.CreatePhaseRequest, request)
  const { policyGroups } = yield* PolicyStore
  const ids = yield* Ids
  const { phase } = yield* Effect.fromResult(Admin.nextPhase(undefined, request, (yield* ids.next("phase")) as PhaseId))
  return yield* transaction(Effect.gen(function*() {
    const group = yield* lockGroup(caller, groupId)
    yield* checkConnection(caller, phase)
    const next = yield* Effect.fromResult(Admin.placePhase(group, phase, request.position))
    yield* policyGroups.insert(caller.orgId, next)
    yield* audit(caller, "phase.create", "phase", phase.id)
    yield* emitUpdated(caller, next, yield* publishedCount(caller, groupId))
    return Admin.toPhaseSettings(next.phases.find((p) => p.id === phase.id)!)
  }))
})

/**
 * PATCH /policy-groups/{groupId}/phases/{phaseId}: name, position, poll interval or source. A new
 * source keeps one source of truth (spec 1; `PolicyAdministration.SourceChange`): internal ->
 * external drops the phase's drafts, external -> internal makes its published mappings its drafts.
 */
export const updatePhase = Effect.fnUntraced(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  phaseId: PhaseId,
  request: Admin.UpdatePhaseRequest
) {
  yield* Input.validate(Admin.UpdatePhaseRequest, request)
  const { drafts, policyGroups, published } = yield* PolicyStore
  return yield* transaction(Effect.gen(function*() {
    const group = yield* lockGroup(caller, groupId)
    const current = yield* Effect.fromResult(PolicyGroup.findPhase(group, phaseId))
    const { change, phase } = yield* Effect.fromResult(Admin.nextPhase(current, request, current.id))
    if (request.external?.vcsConnectionId !== undefined) yield* checkConnection(caller, phase)
    const next = yield* Effect.fromResult(Admin.placePhase(group, phase, request.position))
    if (JSON.stringify(next) === JSON.stringify(group)) return Admin.toPhaseSettings(current)
    if (change === "toExternal" || change === "toInternal") yield* drafts.removeByPhase(caller.orgId, groupId, phaseId)
    if (change === "toInternal") {
      const live = (yield* published.listByGroup(caller.orgId, groupId)).filter((m) => m.phaseId === phaseId)
      for (const draft of Admin.draftsFromPublished(live)) yield* drafts.put(caller.orgId, groupId, draft)
    }
    yield* policyGroups.insert(caller.orgId, next)
    yield* audit(caller, "phase.update", "phase", phaseId)
    yield* emitUpdated(caller, next, yield* publishedCount(caller, groupId))
    return Admin.toPhaseSettings(next.phases.find((p) => p.id === phaseId)!)
  }))
})

/**
 * DELETE /policy-groups/{groupId}/phases/{phaseId}: the phase with its drafts and its published
 * mappings, which stop applying at once (a published mapping cannot outlive its phase).
 */
export const deletePhase = Effect.fnUntraced(function*(caller: Caller, groupId: PolicyGroupId, phaseId: PhaseId) {
  const { drafts, policyGroups, published } = yield* PolicyStore
  return yield* transaction(Effect.gen(function*() {
    const group = yield* lockGroup(caller, groupId)
    const phase = yield* Effect.fromResult(PolicyGroup.findPhase(group, phaseId))
    const all = yield* published.listByGroup(caller.orgId, groupId)
    const removed = all.filter((m) => m.phaseId === phase.id)
    yield* drafts.removeByPhase(caller.orgId, groupId, phase.id)
    yield* published.replace(caller.orgId, groupId, [phase.id], [])
    const next = Admin.removePhase(group, phase.id)
    yield* policyGroups.insert(caller.orgId, next)
    yield* audit(caller, "phase.delete", "phase", phase.id)
    yield* emitUpdated(caller, next, all.length - removed.length, removed)
  }))
})

/**
 * DELETE .../phases/{phaseId}/mappings/{mappingId}: removes a draft mapping. Published policy
 * changes only on publish, which counts and announces the removal. On an external phase a
 * mapping of its file is refused (409, spec rule 7), an unknown one is a 404 as anywhere.
 */
export const removeDraftMapping = Effect.fnUntraced(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  phaseId: PhaseId,
  mappingId: MappingId
) {
  const { drafts, published } = yield* PolicyStore
  return yield* transaction(Effect.gen(function*() {
    const group = yield* lockGroup(caller, groupId)
    const phase = yield* Effect.fromResult(PolicyGroup.findPhase(group, phaseId))
    const notFound = new MappingNotFound({ policyGroupId: groupId, phaseId: phase.id, mappingId })
    if (phase.sourceType === "external") {
      const live = yield* published.listByGroup(caller.orgId, groupId)
      if (!live.some((m) => m.phaseId === phase.id && m.id === mappingId)) return yield* notFound
      return yield* new PolicyGroup.ExternalPhaseReadOnly({ policyGroupId: groupId, phaseId: phase.id })
    }
    const removed = yield* drafts.remove(caller.orgId, groupId, phase.id, mappingId)
    if (Option.isNone(removed)) return yield* notFound
    yield* audit(caller, "mapping.removed", "policy_mapping", mappingId)
  }))
})

/** GET /policy-groups/{groupId}/draft: the group's draft against its published policy (what a publish would do). */
export const getPolicyGroupDraft = Effect.fnUntraced(function*(caller: Caller, groupId: PolicyGroupId) {
  const { drafts, published } = yield* PolicyStore
  const group = yield* loadGroup(caller, groupId)
  return Admin.draftView({
    group,
    drafts: yield* drafts.listByGroup(caller.orgId, groupId),
    published: yield* published.listByGroup(caller.orgId, groupId)
  })
})
