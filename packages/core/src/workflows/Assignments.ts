/** Repository policy-group assignments (spec rules 4-6, 10): read and replace. */
import * as Effect from "effect/Effect"
import * as Assignment from "../Assignment.js"
import type { RepositoryId } from "../Id.js"
import * as Input from "../Input.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { transaction } from "../ports/Transaction.js"
import { audit, type Caller } from "./Caller.js"
import { loadRepository } from "./RepositoryAccess.js"

const view = (caller: Caller, repositoryId: RepositoryId) =>
  Effect.gen(function*() {
    const { policyGroups } = yield* PolicyStore
    const { assignments } = yield* RepositoryStore
    const repository = yield* loadRepository(caller.orgId, repositoryId)
    return Assignment.assignmentView({
      groups: yield* policyGroups.all(caller.orgId),
      assignments: yield* assignments.get(caller.orgId, repositoryId),
      trackedBranchNames: repository.branches.map((b) => b.branchName)
    })
  })

/** GET /repositories/{id}/policy-groups */
export const getAssignments = Effect.fnUntraced(function*(caller: Caller, repositoryId: RepositoryId) {
  return yield* view(caller, repositoryId)
})

/** POST /repositories/{id}/policy-groups: the result equals the request (rule 4). */
export const replaceAssignments = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  request: Assignment.AssignmentRequest
) {
  yield* Input.validate(Assignment.AssignmentRequest, request)
  const { policyGroups } = yield* PolicyStore
  const { assignments, repositories } = yield* RepositoryStore
  return yield* transaction(Effect.gen(function*() {
    // the requested groups' locks before the repository's, in the order deleting a group takes them
    // (PolicyAdministration): a group deleted or made all-repositories meanwhile is seen as such
    for (const id of [...new Set(request.assignments.map((a) => a.policyGroupId))].sort()) yield* policyGroups.lock(caller.orgId, id)
    yield* repositories.lock(caller.orgId, repositoryId)
    const repository = yield* loadRepository(caller.orgId, repositoryId)
    const groups = yield* policyGroups.all(caller.orgId)
    const replaced = yield* Effect.fromResult(Assignment.replaceAssignments({
      request,
      groups: new Map(groups.map((g) => [g.id, g])),
      trackedBranchNames: repository.branches.map((b) => b.branchName)
    }))
    yield* assignments.replace(caller.orgId, repositoryId, replaced)
    yield* audit(caller, "assignments.replace", "repository", repositoryId)
    return yield* view(caller, repositoryId)
  }))
})
