/** Repository policy-group assignments (spec rules 4-6, 10): read and replace. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Input from "../Input.js"
import * as Assignment from "../Assignment.js"
import type { RepositoryId } from "../Id.js"
import { RepositoryNotFound } from "../Repository.js"
import { Store } from "../ports/Store.js"
import { audit, type Caller } from "./Caller.js"

const loadRepository = (caller: Caller, repositoryId: RepositoryId) =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(store.repositories.get(caller.orgId, repositoryId), Option.match({
      onNone: () => Effect.fail(new RepositoryNotFound({ repositoryId })),
      onSome: Effect.succeed
    })))

const view = (caller: Caller, repositoryId: RepositoryId) =>
  Effect.gen(function*() {
    const store = yield* Store
    const repository = yield* loadRepository(caller, repositoryId)
    return Assignment.assignmentView({
      groups: yield* store.policyGroups.all(caller.orgId),
      assignments: yield* store.assignments.get(caller.orgId, repositoryId),
      trackedBranchNames: repository.branches.map((b) => b.branchName)
    })
  })

/** GET /repositories/{id}/policy-groups */
export const readAssignments = Effect.fnUntraced(function*(caller: Caller, repositoryId: RepositoryId) {
  return yield* view(caller, repositoryId)
})

/** POST /repositories/{id}/policy-groups: the result equals the request (rule 4). */
export const replaceAssignments = Effect.fnUntraced(function*(
  caller: Caller,
  repositoryId: RepositoryId,
  request: Assignment.AssignmentRequest
) {
  yield* Input.validate(Assignment.AssignmentRequest, request)
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    yield* store.repositories.lock(caller.orgId, repositoryId)
    const repository = yield* loadRepository(caller, repositoryId)
    const groups = yield* store.policyGroups.all(caller.orgId)
    const assignments = yield* Effect.fromResult(Assignment.replaceAssignments({
      request,
      groups: new Map(groups.map((g) => [g.id, g])),
      trackedBranchNames: repository.branches.map((b) => b.branchName)
    }))
    yield* store.assignments.replace(caller.orgId, repositoryId, assignments)
    yield* audit(caller, "assignments.replace", "repository", repositoryId)
    return yield* view(caller, repositoryId)
  }))
})
