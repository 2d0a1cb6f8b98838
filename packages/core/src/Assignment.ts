/**
 * Repository Policy Group assignments (spec section 2 "Repository Policy Group assignment";
 * section 4 rules 4-6). Only explicit, repository-specific assignments are stored; groups with
 * `applyToAllRepos` apply through organization configuration and are never stored here, which is
 * why replacing (or emptying) the assignments can never touch them (spec 4.4).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { PolicyGroupId } from "./Id.js"

// ---------------------------------------------------------------------------------------------
// Request and stored shape
// ---------------------------------------------------------------------------------------------

export const AssignmentItem = Schema.Struct({
  policyGroupId: PolicyGroupId,
  branchNames: Schema.Array(Schema.NonEmptyString)
})
export type AssignmentItem = typeof AssignmentItem.Type

/** Body of POST /repositories/{repositoryId}/policy-groups: the complete set (spec 4.4). */
export const AssignmentRequest = Schema.Struct({
  assignments: Schema.Array(AssignmentItem).check(Schema.isMaxLength(500))
})
export type AssignmentRequest = typeof AssignmentRequest.Type

/** One stored repository-specific assignment. */
export const RepositoryAssignment = Schema.Struct({
  policyGroupId: PolicyGroupId,
  branchNames: Schema.Array(Schema.String)
})
export type RepositoryAssignment = typeof RepositoryAssignment.Type

/** What the rule needs to know about a group of the organization. */
export interface GroupInfo {
  readonly id: PolicyGroupId
  readonly applyToAllRepos: boolean
}

// ---------------------------------------------------------------------------------------------
// Errors (no HTTP status; contracts section 4: all of these are 400)
// ---------------------------------------------------------------------------------------------

/** An id in the body that names no group of this organization: a 400 naming its path (contracts 4). */
export class PolicyGroupNotFoundInBody extends Schema.TaggedError<PolicyGroupNotFoundInBody>()(
  "PolicyGroupNotFoundInBody",
  { policyGroupId: PolicyGroupId, path: Schema.String }
) {
  override get message() {
    return `policy group ${this.policyGroupId} does not exist in this organization`
  }
}

/** spec 4.5 */
export class AllReposGroupNotAssignable extends Schema.TaggedError<AllReposGroupNotAssignable>()(
  "AllReposGroupNotAssignable",
  { policyGroupId: PolicyGroupId, path: Schema.String }
) {
  override get message() {
    return `policy group ${this.policyGroupId} applies to all repositories and cannot be assigned individually`
  }
}

/** spec 4.6 */
export class BranchNotTracked extends Schema.TaggedError<BranchNotTracked>()("BranchNotTracked", {
  policyGroupId: PolicyGroupId,
  branchName: Schema.String,
  path: Schema.String
}) {
  override get message() {
    return `branch ${this.branchName} is not tracked for this repository`
  }
}

/** The same group twice would make "the result equals the request" ambiguous: which branch list wins? */
export class DuplicateAssignment extends Schema.TaggedError<DuplicateAssignment>()("DuplicateAssignment", {
  policyGroupId: PolicyGroupId,
  path: Schema.String
}) {
  override get message() {
    return `policy group ${this.policyGroupId} is assigned more than once; list each group once`
  }
}

/**
 * An assignment without branches is rejected rather than read as "remove": the way to remove a
 * group from the repository is to omit it from `assignments` (spec 4.4), and a stored assignment
 * that applies nowhere would only confuse readers.
 */
export class EmptyBranchNames extends Schema.TaggedError<EmptyBranchNames>()("EmptyBranchNames", {
  policyGroupId: PolicyGroupId,
  path: Schema.String
}) {
  override get message() {
    return `assignment of ${this.policyGroupId} lists no branch; omit the group to remove it`
  }
}

export class DuplicateBranchInAssignment extends Schema.TaggedError<DuplicateBranchInAssignment>()(
  "DuplicateBranchInAssignment",
  { policyGroupId: PolicyGroupId, branchName: Schema.String, path: Schema.String }
) {
  override get message() {
    return `branch ${this.branchName} is listed more than once for ${this.policyGroupId}`
  }
}

export type AssignmentError =
  | PolicyGroupNotFoundInBody
  | AllReposGroupNotAssignable
  | BranchNotTracked
  | DuplicateAssignment
  | EmptyBranchNames
  | DuplicateBranchInAssignment

export const AssignmentError = Schema.Union([
  PolicyGroupNotFoundInBody,
  AllReposGroupNotAssignable,
  BranchNotTracked,
  DuplicateAssignment,
  EmptyBranchNames,
  DuplicateBranchInAssignment
])

// ---------------------------------------------------------------------------------------------
// Replacement (spec 4.4-4.6)
// ---------------------------------------------------------------------------------------------

/**
 * The new complete set of repository-specific assignments. On success the result equals the
 * request exactly, order kept; an empty request yields an empty set (spec 4.4).
 * Assignments are checked in request order and the first failure wins; within one assignment:
 * group exists -> group is not all-repos (4.5) -> group not already listed -> at least one branch
 * -> per branch in order: not listed twice -> tracked (4.6).
 */
export const replaceAssignments = (input: {
  readonly request: AssignmentRequest
  readonly groups: ReadonlyMap<PolicyGroupId, GroupInfo>
  readonly trackedBranchNames: ReadonlyArray<string>
}): Result.Result<ReadonlyArray<RepositoryAssignment>, AssignmentError> => {
  const tracked = new Set(input.trackedBranchNames)
  const seenGroups = new Set<PolicyGroupId>()
  const result: Array<RepositoryAssignment> = []
  for (const [i, assignment] of input.request.assignments.entries()) {
    const { policyGroupId } = assignment
    const path = `assignments[${i}]`
    const group = input.groups.get(policyGroupId)
    if (group === undefined) {
      return Result.fail(new PolicyGroupNotFoundInBody({ policyGroupId, path: `${path}.policyGroupId` }))
    }
    if (group.applyToAllRepos) {
      return Result.fail(new AllReposGroupNotAssignable({ policyGroupId, path: `${path}.policyGroupId` }))
    }
    if (seenGroups.has(policyGroupId)) {
      return Result.fail(new DuplicateAssignment({ policyGroupId, path: `${path}.policyGroupId` }))
    }
    seenGroups.add(policyGroupId)
    if (assignment.branchNames.length === 0) {
      return Result.fail(new EmptyBranchNames({ policyGroupId, path: `${path}.branchNames` }))
    }
    const seenBranches = new Set<string>()
    for (const [j, branchName] of assignment.branchNames.entries()) {
      const branchPath = `${path}.branchNames[${j}]`
      if (seenBranches.has(branchName)) {
        return Result.fail(new DuplicateBranchInAssignment({ policyGroupId, branchName, path: branchPath }))
      }
      seenBranches.add(branchName)
      if (!tracked.has(branchName)) {
        return Result.fail(new BranchNotTracked({ policyGroupId, branchName, path: branchPath }))
      }
    }
    result.push({ policyGroupId, branchNames: [...assignment.branchNames] })
  }
  return Result.succeed(result)
}

// ---------------------------------------------------------------------------------------------
// Read view (GET /repositories/{repositoryId}/policy-groups)
// ---------------------------------------------------------------------------------------------

export const AssignmentSource = Schema.Literals(["all_repositories", "repository_assignment"])
export type AssignmentSource = typeof AssignmentSource.Type

/**
 * The spec leaves the values of `assignmentState` open (section 3). Ours: "active" when every
 * assigned branch is tracked; "stale" when an explicit assignment names a branch that is no longer
 * tracked (assignments are validated on write, but tracking can change afterwards). All-repos groups
 * follow the tracked branches, so they are always "active".
 */
export const AssignmentState = Schema.Literals(["active", "stale"])
export type AssignmentState = typeof AssignmentState.Type

export const AssignmentViewItem = Schema.Struct({
  id: PolicyGroupId,
  name: Schema.String,
  source: AssignmentSource,
  branchNames: Schema.Array(Schema.String),
  assignmentState: AssignmentState
})
export type AssignmentViewItem = typeof AssignmentViewItem.Type

export const AssignmentView = Schema.Struct({
  trackedBranchNames: Schema.Array(Schema.String),
  items: Schema.Array(AssignmentViewItem)
})
export type AssignmentView = typeof AssignmentView.Type

/**
 * The assignment read. Order is stable: all-repos groups first, by name (then id, so equal names
 * do not flicker), then explicit assignments in their stored (request) order.
 * A stored assignment whose group no longer exists is left out (there is no name to show), and one
 * whose group has since become all-repos is shown once, as `all_repositories`, because that is
 * how the group applies now.
 */
const byNameThenId = (a: { readonly name: string; readonly id: string }, b: { readonly name: string; readonly id: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/**
 * The groups that apply to one branch of a repository, in resolution order (docs/policy-resolution.md):
 * all-repository groups by (name, id), then the explicit assignments naming the branch, as stored.
 */
export const groupsForBranch = <G extends GroupInfo & { readonly name: string }>(input: {
  readonly groups: ReadonlyArray<G>
  readonly assignments: ReadonlyArray<RepositoryAssignment>
  readonly branchName: string
}): ReadonlyArray<G> => {
  const byId = new Map(input.groups.map((g) => [g.id, g] as const))
  const explicit = input.assignments
    .filter((a) => a.branchNames.includes(input.branchName))
    .flatMap((a) => {
      const group = byId.get(a.policyGroupId)
      return group === undefined || group.applyToAllRepos ? [] : [group]
    })
  return [...input.groups.filter((g) => g.applyToAllRepos).sort(byNameThenId), ...explicit]
}

export const assignmentView = (input: {
  readonly groups: ReadonlyArray<{ readonly id: PolicyGroupId; readonly name: string; readonly applyToAllRepos: boolean }>
  readonly assignments: ReadonlyArray<RepositoryAssignment>
  readonly trackedBranchNames: ReadonlyArray<string>
}): AssignmentView => {
  const tracked = new Set(input.trackedBranchNames)
  const byId = new Map(input.groups.map((g) => [g.id, g] as const))
  const allRepos: Array<AssignmentViewItem> = input.groups
    .filter((g) => g.applyToAllRepos)
    .sort(byNameThenId)
    .map((g) => ({
      id: g.id,
      name: g.name,
      source: "all_repositories",
      branchNames: [...input.trackedBranchNames],
      assignmentState: "active"
    }))
  const explicit: Array<AssignmentViewItem> = []
  for (const assignment of input.assignments) {
    const group = byId.get(assignment.policyGroupId)
    if (group === undefined || group.applyToAllRepos) continue
    explicit.push({
      id: group.id,
      name: group.name,
      source: "repository_assignment",
      branchNames: [...assignment.branchNames],
      assignmentState: assignment.branchNames.every((b) => tracked.has(b)) ? "active" : "stale"
    })
  }
  return { trackedBranchNames: [...input.trackedBranchNames], items: [...allRepos, ...explicit] }
}
