/**
 * A tracked repository's administration (issue 15): change its team, routine and tracked branches
 * with onboarding's rules (spec 4.2), or untrack it. A branch no longer tracked leaves the
 * repository's assignments, scans and findings in the same transaction, and its remediation
 * requests are closed; an added branch is scanned as onboarding scans one.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { RepositoryId } from "../Id.js"
import * as Input from "../Input.js"
import * as Onboarding from "../Onboarding.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { RemediationStore } from "../ports/RemediationStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { ScanStore } from "../ports/ScanStore.js"
import { transaction } from "../ports/Transaction.js"
import { toRepositoryView } from "../Repository.js"
import type { AvailableBranch } from "../VcsConnection.js"
import { audit, type Caller, now } from "./Caller.js"
import { connectedRepository } from "./ConnectedProvider.js"
import { holdRoutine, required } from "./Onboarding.js"
import { loadRepository } from "./RepositoryAccess.js"
import { queueScans } from "./Scans.js"

/**
 * PATCH /repositories/{repositoryId}: `assignedTeamId`, `assignedRoutineId` (the routine must
 * belong to the repository's team, the given or the current one) and `branchNames` (the complete
 * new list, the default branch kept; added branches must exist on the provider, which is asked
 * only when branches are added). Answers the repository and the scans queued for added branches.
 */
export const updateRepository = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  patch: Onboarding.RepositoryPatch
) {
  yield* Input.validate(Onboarding.RepositoryPatch, patch)
  const { routines, teams } = yield* OrganizationStore
  const { assignments, repositories } = yield* RepositoryStore
  const scans = yield* ScanStore
  const remediations = yield* RemediationStore
  const before = yield* loadRepository(caller.orgId, repositoryId)
  const touchesRoutine = patch.assignedTeamId !== undefined || patch.assignedRoutineId !== undefined
  if (patch.assignedTeamId !== undefined) {
    yield* Effect.flatMap(teams.get(caller.orgId, patch.assignedTeamId), (t) => required(t, "assignedTeamId", "team"))
  }
  const routine = touchesRoutine
    ? yield* Effect.flatMap(
      routines.get(caller.orgId, patch.assignedRoutineId ?? before.assignedRoutineId),
      (r) => required(r, "assignedRoutineId", "routine")
    )
    : undefined
  // the provider is asked (outside the transaction: no lock is held over a network call) only
  // when the patch adds branches, and only once the rest of the request is known to be valid
  let providerBranches: ReadonlyArray<AvailableBranch> | undefined
  if (Onboarding.addedBranches(before, patch).length > 0) {
    yield* Effect.fromResult(Onboarding.validateRepositoryPatch({ repository: before, patch, routine, providerBranches: undefined }))
    const provider = yield* connectedRepository(caller.orgId, before)
    providerBranches = yield* provider.listBranches({ fullName: before.fullName, defaultBranch: before.defaultBranch })
  }
  return yield* transaction(Effect.gen(function*() {
    yield* repositories.lock(caller.orgId, repositoryId)
    const repository = yield* loadRepository(caller.orgId, repositoryId)
    const plan = yield* Effect.fromResult(Onboarding.validateRepositoryPatch({ repository, patch, routine, providerBranches }))
    if (routine !== undefined) yield* holdRoutine(caller, routine.id)
    yield* repositories.update(caller.orgId, plan.repository)
    if (plan.removed.length > 0) {
      const removed = new Set(plan.removed)
      const kept = (yield* assignments.get(caller.orgId, repositoryId))
        .map((a) => ({ ...a, branchNames: a.branchNames.filter((b) => !removed.has(b)) }))
        .filter((a) => a.branchNames.length > 0)
      yield* assignments.replace(caller.orgId, repositoryId, kept)
      yield* scans.remove(caller.orgId, repositoryId, plan.removed)
      yield* remediations.close(caller.orgId, repositoryId, { at: (yield* now).toISOString(), branchNames: plan.removed })
    }
    const queued = yield* queueScans(caller, plan.repository, "onboarding", plan.added)
    yield* audit(caller, "repository.update", "repository", repositoryId)
    const updated = Option.getOrElse(yield* repositories.get(caller.orgId, repositoryId), () => plan.repository)
    return {
      repository: toRepositoryView(updated),
      scans: queued.map((s) => ({ branchName: s.branchName, status: "queued" as const }))
    } satisfies Onboarding.OnboardResult
  }))
})

/**
 * DELETE /repositories/{repositoryId} -> 204: untracks it. Its assignments, scans and findings go;
 * its remediation requests are kept as `closed` (the pull requests on the provider are left to their
 * owners); its snooze requests stay, as the record of the exceptions granted.
 */
export const deleteRepository = Effect.fnUntraced(function*(caller: Caller, repositoryId: RepositoryId) {
  const { repositories } = yield* RepositoryStore
  const scans = yield* ScanStore
  const remediations = yield* RemediationStore
  yield* transaction(Effect.gen(function*() {
    yield* repositories.lock(caller.orgId, repositoryId)
    yield* loadRepository(caller.orgId, repositoryId)
    yield* scans.remove(caller.orgId, repositoryId)
    yield* remediations.close(caller.orgId, repositoryId, { at: (yield* now).toISOString() })
    yield* repositories.delete(caller.orgId, repositoryId)
    yield* audit(caller, "repository.delete", "repository", repositoryId)
  }))
})
