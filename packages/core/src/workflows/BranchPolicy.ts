/**
 * The policy that applies to one tracked branch of a repository: the policy groups in the
 * documented order (all-repository groups first, then the repository's explicit assignments for
 * that branch, `Assignment.groupsForBranch`) with their published mappings. `Policy.resolve`, the
 * findings route, remediation and the decision API all read it here, so a branch is never judged by
 * two rules.
 */
import * as Effect from "effect/Effect"
import * as Assignment from "../Assignment.js"
import type { OrgId, RepositoryId } from "../Id.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import type * as Resolution from "../Resolution.js"

/** The groups of `assignments` that apply on `branchName`, in precedence order, with their published mappings. */
const policyOf = (orgId: OrgId, assignments: ReadonlyArray<Assignment.RepositoryAssignment>, branchName: string) =>
  Effect.gen(function*() {
    const { policyGroups, published } = yield* PolicyStore
    const groups = yield* policyGroups.all(orgId)
    const applying = Assignment.groupsForBranch({ groups, assignments, branchName })
    // one read for every applying group, not one per group
    const live = yield* published.listByGroups(orgId, applying.map((g) => g.id))
    return applying.map((group) => ({ group, phases: group.phases, published: live.get(group.id) ?? [] })) as Resolution.ResolutionPolicy
  })

/** The groups that apply to the branch, in precedence order, with their published mappings. */
export const policyForBranch = (orgId: OrgId, repositoryId: RepositoryId, branchName: string) =>
  Effect.flatMap(
    RepositoryStore.use(({ assignments }) => assignments.get(orgId, repositoryId)),
    (assigned) => policyOf(orgId, assigned, branchName)
  )

/**
 * The policy of a reference named without a repository (the decision API): the groups that apply
 * to every repository, which come first on every branch.
 */
export const policyForAllRepositories = (orgId: OrgId) => policyOf(orgId, [], "")
