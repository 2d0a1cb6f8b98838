/**
 * Draft mappings and publishing (spec rules 7-9). Drafts change only the draft; publishing makes
 * the whole group draft live and tells subscribers what changed. Publishing opens no remediation.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { PhaseId, PolicyGroupId, RepositoryId } from "../Id.js"
import * as Mapping from "../Mapping.js"
import type { PageRequest } from "../Page.js"
import * as PolicyGroup from "../PolicyGroup.js"
import { Ids } from "../ports/Ids.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { transaction } from "../ports/Transaction.js"
import * as Resolution from "../Resolution.js"
import { policyForBranch } from "./BranchPolicy.js"
import { audit, type Caller, emit, InvalidReferenceInBody, now } from "./Caller.js"
import { loadGroup } from "./GroupAccess.js"
import { mappingEvent, policyRouting } from "./PolicyEvents.js"
import { loadRepository, trackedBranch } from "./RepositoryAccess.js"

/** POST .../phases/{phaseId}/mappings: upsert a draft by key (rule 8); refused on external phases (rule 7). */
export const upsertDraftMapping = Effect.fnUntraced(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  phaseId: PhaseId,
  input: Mapping.MappingInput
) {
  const { drafts, policyGroups } = yield* PolicyStore
  const ids = yield* Ids
  return yield* transaction(Effect.gen(function*() {
    yield* policyGroups.lock(caller.orgId, groupId)
    const group = yield* loadGroup(caller, groupId)
    const phase = yield* Effect.fromResult(PolicyGroup.ensureInternalPhase(group, phaseId))
    const valid = yield* Effect.fromResult(Mapping.validateMappingInput(input, { source: "api" }))
    const key = Mapping.mappingKey(valid.fromImage, valid.platformScope)
    const existing = yield* drafts.findByKey(caller.orgId, groupId, phase.id, key)
    // a retried upsert of an equal mapping (rule 8) needs no fresh id and no timestamp; an update
    // keeps its id, so only a new mapping draws one
    const unchanged = Option.isSome(existing) && Mapping.sameContent(existing.value, valid)
    const result = Mapping.upsertDraft(Option.toArray(existing), valid, {
      id: Option.isSome(existing) ? existing.value.id : yield* ids.next("mapping"),
      now: unchanged ? "" : (yield* now).toISOString()
    })
    if (result.outcome !== "unchanged") {
      yield* drafts.put(caller.orgId, groupId, { ...result.mapping, phaseId: phase.id })
      yield* audit(caller, `mapping.${result.outcome}`, "policy_mapping", result.mapping.id)
    }
    return { mapping: { ...result.mapping, phaseId: phase.id }, outcome: result.outcome }
  }))
})

/** POST .../publish: the whole group draft goes live (rule 9), one group per call. */
export const publishPolicyGroup = Effect.fnUntraced(function*(caller: Caller, groupId: PolicyGroupId) {
  const { drafts, policyGroups, published } = yield* PolicyStore
  const { organizations } = yield* OrganizationStore
  return yield* transaction(Effect.gen(function*() {
    yield* policyGroups.lock(caller.orgId, groupId)
    const group = yield* loadGroup(caller, groupId)
    const at = yield* now
    const result = PolicyGroup.publish({
      group,
      drafts: yield* drafts.listByGroup(caller.orgId, groupId),
      published: yield* published.listByGroup(caller.orgId, groupId),
      now: at
    })
    const internal = group.phases.filter((p) => p.sourceType === "internal").map((p) => p.id)
    yield* published.replace(caller.orgId, groupId, internal, result.published)
    yield* audit(caller, "policy_group.publish", "policy_group", groupId)
    const org = yield* organizations.get(caller.orgId)
    const routing = policyRouting(group, org)
    const changedAt = at.toISOString()
    yield* emit(caller, routing, [
      {
        type: "service.policy_group.published",
        data: { policy_group_id: groupId, action: "published", mapping_count: result.published.length, changed_at: changedAt }
      },
      ...result.changes.created.map(mappingEvent(groupId, changedAt, "created")),
      ...result.changes.updated.map(mappingEvent(groupId, changedAt, "updated")),
      ...result.changes.removed.map(mappingEvent(groupId, changedAt, "removed"))
    ])
    return { group, published: result.published, changes: result.changes }
  }))
})

export const listPolicyGroups = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const { policyGroups } = yield* PolicyStore
  const result = yield* policyGroups.list(caller.orgId, page)
  return {
    items: result.items.map(({ applyToAllRepos, id, name }) => ({ id, name, applyToAllRepos })),
    nextCursor: result.nextCursor
  }
})

/** GET .../details: phases (in position order) and the published mappings. */
export const getPolicyGroupDetails = Effect.fnUntraced(function*(caller: Caller, groupId: PolicyGroupId) {
  const { published } = yield* PolicyStore
  const group = yield* loadGroup(caller, groupId)
  return PolicyGroup.toDetails(group, yield* published.listByGroup(caller.orgId, groupId))
})

/** GET .../phases/{phaseId}/mappings (contracts 5): the phase's draft, what a retrying client reads first (rule 8). */
export const listDraftMappings = Effect.fnUntraced(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  phaseId: PhaseId,
  page: PageRequest
) {
  const { drafts } = yield* PolicyStore
  const group = yield* loadGroup(caller, groupId)
  const phase = yield* Effect.fromResult(PolicyGroup.findPhase(group, phaseId))
  return yield* drafts.listByPhase(caller.orgId, groupId, phase.id, page)
})

/** POST .../phases/{phaseId}/sync: the external phase follows its mappings file (Sync.ts). */
export { syncExternalPhase as syncPhase } from "./Sync.js"

/**
 * GET /repositories/{id}/resolve: which published mapping applies to `image` on a tracked branch
 * (default: the repository's default branch), and why. Groups apply in the documented order:
 * all-repository groups first, then the repository's explicit assignments for that branch.
 */
export const resolve = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  query: { readonly image: string; readonly branch?: string | undefined; readonly platform?: string | undefined }
) {
  const repository = yield* loadRepository(caller.orgId, repositoryId)
  const branch = yield* trackedBranch(repository, query.branch, "branch")
  const policy = yield* policyForBranch(caller.orgId, repositoryId, branch)
  return yield* explain(policy, query)
})

/**
 * The resolution of an image against a policy with its `considered` list, at the clock's time; an
 * invalid image or platform is a 400 naming `image` or `platform`. The REST resolve and the decision
 * API's `Explain` answer with it.
 */
export const explain = (
  policy: Resolution.ResolutionPolicy,
  query: { readonly image: string; readonly platform?: string | undefined }
) =>
  Effect.flatMap(now, (at) =>
    Effect.fromResult(
      Result.mapError(
        Resolution.resolve({ policy, image: query.image, platform: query.platform, now: at }),
        (e) => new InvalidReferenceInBody({ path: e._tag === "InvalidPlatform" ? "platform" : "image", message: e.message })
      )
    ))
