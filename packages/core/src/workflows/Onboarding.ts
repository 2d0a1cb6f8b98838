/**
 * Onboarding and the organization reads around it (spec 4: repositories, VCS connections, available
 * repositories and branches, teams, routines; rules 1-3, 10).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { RepositoryId, RoutineId, TeamId, VcsConnectionId } from "../Id.js"
import * as Input from "../Input.js"
import * as Onboarding from "../Onboarding.js"
import type { PageRequest } from "../Page.js"
import { Ids } from "../ports/Ids.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { transaction } from "../ports/Transaction.js"
import { toRepositoryView } from "../Repository.js"
import { TeamNotFound } from "../Team.js"
import { type AvailableBranch, type AvailableRepository, type ProviderRepository, VcsConnectionNotFound } from "../VcsConnection.js"
import { audit, type Caller, InvalidReferenceInBody, now } from "./Caller.js"
import { connectedProvider } from "./ConnectedProvider.js"
import { queueScans } from "./Scans.js"

const mapPage = <A, B>(page: { readonly items: ReadonlyArray<A>; readonly nextCursor: string | null }, f: (a: A) => B) => ({
  items: page.items.map(f),
  nextCursor: page.nextCursor
})

export const listTeams = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const { teams } = yield* OrganizationStore
  return yield* teams.list(caller.orgId, page)
})

/** GET /teams/{teamId}/routines: the team must exist in this organization (404 otherwise). */
export const listTeamRoutines = Effect.fnUntraced(function*(
  caller: Caller,
  teamId: TeamId,
  page: PageRequest
) {
  const { routines, teams } = yield* OrganizationStore
  if (Option.isNone(yield* teams.get(caller.orgId, teamId))) {
    return yield* new TeamNotFound({ teamId })
  }
  const result = yield* routines.list(caller.orgId, page, { teamId })
  return mapPage(result, ({ teamId: _teamId, ...routine }) => routine)
})

/** GET /routines (contracts 5): every routine with its `teamId`, null for a routine without team. */
export const listRoutines = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const { routines } = yield* OrganizationStore
  return yield* routines.list(caller.orgId, page)
})

export const listVcsConnections = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const { vcsConnections } = yield* RepositoryStore
  return yield* vcsConnections.list(caller.orgId, page)
})

const loadConnection = (caller: Caller, id: VcsConnectionId) =>
  Effect.gen(function*() {
    const { vcsConnections } = yield* RepositoryStore
    const connection = yield* vcsConnections.get(caller.orgId, id)
    if (Option.isNone(connection)) return Option.none()
    const settings = yield* vcsConnections.settings(caller.orgId, id)
    return Option.some({ orgId: caller.orgId, connection: connection.value, settings: Option.getOrNull(settings) })
  })

const connectionInPath = (caller: Caller, id: VcsConnectionId) =>
  Effect.flatMap(
    loadConnection(caller, id),
    Option.match({
      onNone: () => Effect.fail(new VcsConnectionNotFound({ vcsConnectionId: id })),
      onSome: Effect.succeed
    })
  )

/**
 * GET /vcs-connections/{id}/available-repos: what the provider lists, each marked `tracked` when this
 * organization already tracks it. `refresh` asks the provider again and spends its quota (rule 1).
 */
export const listAvailableRepositories = Effect.fnUntraced(function*(
  caller: Caller,
  connectionId: VcsConnectionId,
  options: { readonly refresh: boolean }
) {
  const { repositories } = yield* RepositoryStore
  const provider = yield* Effect.flatMap(connectionInPath(caller, connectionId), connectedProvider)
  const listed = yield* provider.listRepositories(options)
  const tracked = yield* repositories.trackedExternalIds(caller.orgId, connectionId)
  return listed.map((r): AvailableRepository => ({ ...r, tracked: tracked.has(r.externalRepoId) }))
})

/** GET /vcs-connections/{id}/available-branches?repositoryFullName=&defaultBranch= */
export const listAvailableBranches = Effect.fnUntraced(function*(
  caller: Caller,
  connectionId: VcsConnectionId,
  repository: { readonly fullName: string; readonly defaultBranch: string }
) {
  const provider = yield* Effect.flatMap(connectionInPath(caller, connectionId), connectedProvider)
  return yield* provider.listBranches(repository)
})

export const listRepositories = Effect.fnUntraced(function*(
  caller: Caller,
  page: PageRequest,
  filter: { readonly repositoryId?: RepositoryId }
) {
  const { repositories } = yield* RepositoryStore
  const result = yield* repositories.list(caller.orgId, page, filter)
  return mapPage(result, toRepositoryView)
})

/** A row named in the body, or the 400 naming its path (contracts 4). */
export const required = <A>(found: Option.Option<A>, path: string, what: string) =>
  Option.match(found, {
    onNone: () => Effect.fail(new InvalidReferenceInBody({ path, message: `no ${what} of this organization has this id` })),
    onSome: Effect.succeed
  })

/**
 * Locks the routine a repository is given until the transaction ends, and fails when it is gone: a
 * team or routine deleted meanwhile (they are deleted only while no repository uses them, and their
 * deletion waits for this lock) is never left named by a tracked repository.
 */
export const holdRoutine = (caller: Caller, routineId: RoutineId) =>
  Effect.gen(function*() {
    const { routines } = yield* OrganizationStore
    yield* routines.lock(caller.orgId, routineId)
    if (Option.isNone(yield* routines.get(caller.orgId, routineId))) {
      return yield* new InvalidReferenceInBody({ path: "assignedRoutineId", message: "no routine of this organization has this id" })
    }
  })

/**
 * POST /repositories: one repository per request (rule 2), checked by the core's rule in its
 * documented order; the repository and its queued scans are written with their audit row at once.
 * The provider is asked only when the connection is usable, so a bad request costs no quota.
 */
export const createRepository = Effect.fnUntraced(function*(
  caller: Caller,
  request: Onboarding.OnboardRequest
) {
  yield* Input.validate(Onboarding.OnboardRequest, request)
  const { routines, teams } = yield* OrganizationStore
  const { repositories } = yield* RepositoryStore
  const ids = yield* Ids
  const ctx = yield* Effect.flatMap(
    loadConnection(caller, request.vcsConnectionId),
    (c) => required(c, "vcsConnectionId", "VCS connection")
  )
  const team = yield* Effect.flatMap(teams.get(caller.orgId, request.assignedTeamId), (t) => required(t, "assignedTeamId", "team"))
  const routine = yield* Effect.flatMap(
    routines.get(caller.orgId, request.assignedRoutineId),
    (r) => required(r, "assignedRoutineId", "routine")
  )
  const existing = yield* repositories.findByExternalId(caller.orgId, request.vcsConnectionId, request.externalRepoId)
  let repository: ProviderRepository | undefined
  let branches: ReadonlyArray<AvailableBranch> = []
  if (ctx.connection.status === "active" && Option.isNone(existing)) {
    const provider = yield* connectedProvider(ctx)
    const listed = yield* provider.listRepositories({ refresh: false })
    repository = listed.find((r) => r.externalRepoId === request.externalRepoId)
    if (repository !== undefined) branches = yield* provider.listBranches(repository)
  }
  const plan = yield* Effect.fromResult(Onboarding.validateOnboarding({
    request,
    connection: ctx.connection,
    repository: Option.isSome(existing) ? { ...existing.value } : repository,
    branches,
    team,
    routine,
    existing: Option.getOrUndefined(existing)
  }))
  const created = Onboarding.makeRepository(plan, {
    id: yield* ids.next("repository"),
    request,
    now: yield* now
  })
  yield* transaction(Effect.gen(function*() {
    yield* holdRoutine(caller, request.assignedRoutineId)
    yield* repositories.insert(caller.orgId, created)
    yield* queueScans(caller, created, "onboarding")
    yield* audit(caller, "repository.create", "repository", created.id)
  }))
  return { repository: toRepositoryView(created), scans: plan.scans } satisfies Onboarding.OnboardResult
})
