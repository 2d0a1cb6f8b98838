/**
 * Repository onboarding (spec section 4 rules 2-3; section 3 "POST repositories"): the request, its
 * rules and their errors. `validateOnboarding` is pure: the workflow looks up the connection,
 * provider repository and branches, team, routine and any existing tracked repository, and hands
 * them in. Unknown ids in the body are the workflow's business (it reads the store and answers 400
 * naming the path, contracts section 4).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { RepositoryId, RoutineId, TeamId, VcsConnectionId } from "./Id.js"
import { type Repository, RepositoryAlreadyTracked, RepositoryView } from "./Repository.js"
import type { Routine } from "./Routine.js"
import type { Team } from "./Team.js"
import { storable } from "./Text.js"
import { type AvailableBranch, ConnectionStatus, type ProviderRepository, type VcsConnection } from "./VcsConnection.js"

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

// Rejected rather than silently trimmed: a branch name with surrounding blanks is a client bug, and
// quietly tracking a different name than the one sent would surprise the caller.
export const BranchName = storable(Schema.Trimmed.check(Schema.isNonEmpty(), Schema.isMaxLength(255)))

/** Body of POST /repositories (spec section 4). One repository per request (spec 4.2). */
export const OnboardRequest = Schema.Struct({
  vcsConnectionId: VcsConnectionId,
  // the provider's id (GitHub and GitLab use numbers); bounded, as every key a store indexes
  externalRepoId: storable(Schema.NonEmptyString.check(Schema.isMaxLength(255))),
  assignedTeamId: TeamId,
  assignedRoutineId: RoutineId,
  // minItems rather than NonEmptyArray: an empty list is reported at `branchNames` itself, not as a
  // missing `branchNames[0]` (contracts 4: the path names what the client has to fix)
  branchNames: Schema.Array(BranchName).check(
    Schema.isMinLength(1, { message: "must list at least one branch, including the default branch" }),
    Schema.isMaxLength(100)
  )
})
export type OnboardRequest = typeof OnboardRequest.Type

// ---------------------------------------------------------------------------------------------
// Errors (no HTTP status: the host maps them; contracts section 4 for the choices)
// ---------------------------------------------------------------------------------------------

/** Only active connections are usable for onboarding (spec section 2); contracts: 400. */
export class ConnectionNotActive extends Schema.TaggedError<ConnectionNotActive>()("ConnectionNotActive", {
  vcsConnectionId: VcsConnectionId,
  status: ConnectionStatus
}) {
  override get message() {
    return `VCS connection ${this.vcsConnectionId} is ${this.status}; only active connections can onboard repositories`
  }
}

/** The provider does not list the repository for this connection. */
export class RepositoryNotAvailable extends Schema.TaggedError<RepositoryNotAvailable>()("RepositoryNotAvailable", {
  externalRepoId: Schema.String
}) {
  override get message() {
    return `repository ${this.externalRepoId} is not available through this connection (try available-repos with refresh=1 once)`
  }
}

export class DuplicateBranchName extends Schema.TaggedError<DuplicateBranchName>()("DuplicateBranchName", {
  branchName: Schema.String,
  path: Schema.String
}) {
  override get message() {
    return `branch ${this.branchName} is listed more than once`
  }
}

/** spec 4.2: the provider default branch must be among `branchNames`. */
export class DefaultBranchNotIncluded extends Schema.TaggedError<DefaultBranchNotIncluded>()("DefaultBranchNotIncluded", {
  defaultBranch: Schema.String,
  path: Schema.Literal("branchNames")
}) {
  override get message() {
    return `branchNames must include the default branch ${this.defaultBranch}`
  }
}

export class BranchNotAvailable extends Schema.TaggedError<BranchNotAvailable>()("BranchNotAvailable", {
  branchName: Schema.String,
  path: Schema.String
}) {
  override get message() {
    return `branch ${this.branchName} does not exist on the provider`
  }
}

/** spec 4.2: a routine without a team is rejected. */
export class RoutineWithoutTeam extends Schema.TaggedError<RoutineWithoutTeam>()("RoutineWithoutTeam", {
  routineId: RoutineId
}) {
  override get message() {
    return `routine ${this.routineId} belongs to no team`
  }
}

/** spec 4.2: the routine must belong to the team given in `assignedTeamId`. */
export class RoutineTeamMismatch extends Schema.TaggedError<RoutineTeamMismatch>()("RoutineTeamMismatch", {
  routineId: RoutineId,
  routineTeamId: TeamId,
  assignedTeamId: TeamId
}) {
  override get message() {
    return `routine ${this.routineId} belongs to team ${this.routineTeamId}, not to ${this.assignedTeamId}`
  }
}

export type OnboardingError =
  | ConnectionNotActive
  | RepositoryNotAvailable
  | RepositoryAlreadyTracked
  | DuplicateBranchName
  | DefaultBranchNotIncluded
  | BranchNotAvailable
  | RoutineWithoutTeam
  | RoutineTeamMismatch

export const OnboardingError = Schema.Union([
  ConnectionNotActive,
  RepositoryNotAvailable,
  RepositoryAlreadyTracked,
  DuplicateBranchName,
  DefaultBranchNotIncluded,
  BranchNotAvailable,
  RoutineWithoutTeam,
  RoutineTeamMismatch
])

// ---------------------------------------------------------------------------------------------
// Rule
// ---------------------------------------------------------------------------------------------

/**
 * The branch rules of onboarding and of a repository's update, in this order: no duplicate, the
 * default branch included (spec 4.2), each branch on the provider, except those in `known` (tracked
 * already: a branch kept needs no provider call).
 */
const checkBranches = (
  branchNames: ReadonlyArray<string>,
  defaultBranch: string,
  onProvider: ReadonlyArray<AvailableBranch> | undefined,
  known: ReadonlySet<string>
): DuplicateBranchName | DefaultBranchNotIncluded | BranchNotAvailable | undefined => {
  const seen = new Set<string>()
  for (const [i, branchName] of branchNames.entries()) {
    if (seen.has(branchName)) return new DuplicateBranchName({ branchName, path: `branchNames[${i}]` })
    seen.add(branchName)
  }
  if (!seen.has(defaultBranch)) return new DefaultBranchNotIncluded({ defaultBranch, path: "branchNames" })
  if (onProvider === undefined) return undefined
  const listed = new Set(onProvider.map((b) => b.name))
  for (const [i, branchName] of branchNames.entries()) {
    if (!known.has(branchName) && !listed.has(branchName)) return new BranchNotAvailable({ branchName, path: `branchNames[${i}]` })
  }
  return undefined
}

/** spec 4.2: the routine has a team, and it is the repository's team. */
const checkRoutine = (routine: Routine, teamId: TeamId): RoutineWithoutTeam | RoutineTeamMismatch | undefined => {
  if (routine.teamId === null) return new RoutineWithoutTeam({ routineId: routine.id })
  if (routine.teamId !== teamId) {
    return new RoutineTeamMismatch({ routineId: routine.id, routineTeamId: routine.teamId, assignedTeamId: teamId })
  }
  return undefined
}

export interface OnboardingPlan {
  readonly externalRepoId: string
  readonly fullName: string
  readonly defaultBranch: string
  /** In request order; duplicates are an error, never silently removed. */
  readonly branches: ReadonlyArray<string>
  /** One queued scan per branch (spec section 3). */
  readonly scans: ReadonlyArray<{ readonly branchName: string; readonly status: "queued" }>
}

export interface OnboardingInput {
  readonly request: OnboardRequest
  readonly connection: VcsConnection
  /** Undefined when the provider does not list the repository for this connection. */
  readonly repository: ProviderRepository | undefined
  /** Branches the provider reports for the repository. */
  readonly branches: ReadonlyArray<AvailableBranch>
  /** The team named by `assignedTeamId`. */
  readonly team: Team
  /** The routine named by `assignedRoutineId`. */
  readonly routine: Routine
  /** The tracked repository with the same provider id in this organization, if any. */
  readonly existing: Repository | undefined
}

/**
 * Validates POST /repositories. Checks run in this order and the first failure wins, so a client
 * fixes the most fundamental problem first and the answer is deterministic:
 * 1. connection active, 2. repository available on the provider, 3. not already tracked (409, spec 4.3),
 * 4. no duplicate branch, 5. default branch included (spec 4.2), 6. each branch exists on the provider,
 * 7. routine has a team, 8. routine's team equals `assignedTeamId` (spec 4.2).
 * The 409 comes after the 400s about the connection and repository because those make the request
 * meaningless, but before branch checks: a tracked repository cannot be onboarded whatever the branches.
 */
export const validateOnboarding = (input: OnboardingInput): Result.Result<OnboardingPlan, OnboardingError> => {
  const { branches, connection, existing, request, routine } = input
  if (connection.status !== "active") {
    return Result.fail(new ConnectionNotActive({ vcsConnectionId: connection.id, status: connection.status }))
  }
  const repository = input.repository
  if (repository === undefined || repository.externalRepoId !== request.externalRepoId) {
    return Result.fail(new RepositoryNotAvailable({ externalRepoId: request.externalRepoId }))
  }
  if (existing !== undefined) {
    return Result.fail(new RepositoryAlreadyTracked({ externalRepoId: request.externalRepoId, repositoryId: existing.id }))
  }
  const branchProblem = checkBranches(request.branchNames, repository.defaultBranch, branches, new Set())
  if (branchProblem !== undefined) return Result.fail(branchProblem)
  const routineProblem = checkRoutine(routine, request.assignedTeamId)
  if (routineProblem !== undefined) return Result.fail(routineProblem)
  return Result.succeed({
    externalRepoId: repository.externalRepoId,
    fullName: repository.fullName,
    defaultBranch: repository.defaultBranch,
    branches: [...request.branchNames],
    scans: request.branchNames.map((branchName) => ({ branchName, status: "queued" as const }))
  })
}

/** The tracked repository a valid plan creates; every initial branch scan is queued (spec section 3). */
export const makeRepository = (
  plan: OnboardingPlan,
  options: { readonly id: RepositoryId; readonly request: OnboardRequest; readonly now: Date }
): Repository => ({
  id: options.id,
  vcsConnectionId: options.request.vcsConnectionId,
  externalRepoId: plan.externalRepoId,
  fullName: plan.fullName,
  defaultBranch: plan.defaultBranch,
  assignedTeamId: options.request.assignedTeamId,
  assignedRoutineId: options.request.assignedRoutineId,
  branches: plan.branches.map((branchName) => ({ branchName, scan: { status: "queued" } })),
  createdAt: options.now.toISOString()
})

/** The answer of POST /repositories: the repository and its initial scans, all queued. */
export const OnboardResult = Schema.Struct({
  repository: RepositoryView,
  scans: Schema.Array(Schema.Struct({ branchName: Schema.String, status: Schema.Literal("queued") }))
})
export type OnboardResult = typeof OnboardResult.Type

// ---------------------------------------------------------------------------------------------
// Update of a tracked repository (PATCH /repositories/{id}, issue 15)
// ---------------------------------------------------------------------------------------------

/** Body of PATCH /repositories/{id}: the fields given change. `branchNames` is the complete new list. */
export const RepositoryPatch = Schema.Struct({
  assignedTeamId: Schema.optionalKey(TeamId),
  assignedRoutineId: Schema.optionalKey(RoutineId),
  branchNames: Schema.optionalKey(OnboardRequest.fields.branchNames)
})
export type RepositoryPatch = typeof RepositoryPatch.Type

export interface RepositoryPatchInput {
  readonly repository: Repository
  readonly patch: RepositoryPatch
  /**
   * The routine the repository will have (the patch's, else its current one); needed only when the
   * patch names a team or a routine, the only case it is checked.
   */
  readonly routine: Routine | undefined
  /**
   * Branches the provider reports for the repository, asked only when the patch adds branches
   * (branches kept are not checked again). `undefined`: not asked yet, added branches are not
   * checked (a first pass, so that a request the other rules refuse costs no provider call).
   */
  readonly providerBranches: ReadonlyArray<AvailableBranch> | undefined
}

export interface RepositoryPatchPlan {
  readonly repository: Repository
  /** Branches the patch adds (their scans are queued), in request order. */
  readonly added: ReadonlyArray<string>
  /** Branches the patch removes (their assignments, scans and findings go). */
  readonly removed: ReadonlyArray<string>
}

/** The branches a patch adds to the repository (those the provider must list). */
export const addedBranches = (repository: Repository, patch: RepositoryPatch): ReadonlyArray<string> => {
  const tracked = new Set(repository.branches.map((b) => b.branchName))
  return [...new Set(patch.branchNames ?? [])].filter((b) => !tracked.has(b))
}

/**
 * Validates PATCH /repositories/{id} with onboarding's rules, in onboarding's order: branches (no
 * duplicate, the default branch kept, each added branch on the provider), then the routine (has a
 * team, and it is the repository's team, the patch's or the current one). Kept branches keep their
 * scan status; added ones are queued.
 */
export const validateRepositoryPatch = (
  input: RepositoryPatchInput
): Result.Result<
  RepositoryPatchPlan,
  DuplicateBranchName | DefaultBranchNotIncluded | BranchNotAvailable | RoutineWithoutTeam | RoutineTeamMismatch
> => {
  const { patch, repository, routine } = input
  const current = new Map(repository.branches.map((b) => [b.branchName, b]))
  const branchNames = patch.branchNames ?? repository.branches.map((b) => b.branchName)
  if (patch.branchNames !== undefined) {
    const problem = checkBranches(branchNames, repository.defaultBranch, input.providerBranches, new Set(current.keys()))
    if (problem !== undefined) return Result.fail(problem)
  }
  const teamId = patch.assignedTeamId ?? repository.assignedTeamId
  if (routine !== undefined && (patch.assignedTeamId !== undefined || patch.assignedRoutineId !== undefined)) {
    const problem = checkRoutine(routine, teamId)
    if (problem !== undefined) return Result.fail(problem)
  }
  const wanted = new Set(branchNames)
  return Result.succeed({
    repository: {
      ...repository,
      assignedTeamId: teamId,
      assignedRoutineId: routine?.id ?? repository.assignedRoutineId,
      branches: branchNames.map((branchName) => current.get(branchName) ?? { branchName, scan: { status: "queued" } })
    },
    added: branchNames.filter((b) => !current.has(b)),
    removed: repository.branches.map((b) => b.branchName).filter((b) => !wanted.has(b))
  })
}
