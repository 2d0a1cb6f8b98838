/**
 * The policy that applies to one tracked branch of a repository: the policy groups in the
 * documented order (all-repository groups first, then the repository's explicit assignments for
 * that branch, `Assignment.groupsForBranch`) with their published mappings. `Policy.resolve`, the
 * findings route and remediation all read it here, so a branch is never judged by two rules.
 */
import * as Effect from "effect/Effect"
import * as Assignment from "../Assignment.js"
import type { OrgId, RepositoryId } from "../Id.js"
import { Store } from "../ports/Store.js"
import type * as Resolution from "../Resolution.js"

/** The groups that apply to the branch, in precedence order, with their published mappings. */
export const policyForBranch = (orgId: OrgId, repositoryId: RepositoryId, branchName: string) =>
  Effect.gen(function*() {
    const store = yield* Store
    const groups = yield* store.policyGroups.all(orgId)
    const assignments = yield* store.assignments.get(orgId, repositoryId)
    const applying = Assignment.groupsForBranch({ groups, assignments, branchName })
    // one read for every applying group, not one per group
    const published = yield* store.published.listByGroups(orgId, applying.map((g) => g.id))
    return applying.map((group) => ({ group, phases: group.phases, published: published.get(group.id) ?? [] })) as Resolution.ResolutionPolicy
  })
