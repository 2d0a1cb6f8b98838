/**
 * Teams and their routines through the API (issue 15): create, rename, delete; a routine's name,
 * `active` and `intervalDays`. A team or routine still in use is never deleted (409), so no tracked
 * repository, policy group, webhook or the organization's settings is left naming one that is gone.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { RoutineId, TeamId } from "../Id.js"
import * as Input from "../Input.js"
import { Ids } from "../ports/Ids.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { transaction } from "../ports/Transaction.js"
import { WebhookStore } from "../ports/WebhookStore.js"
import * as Routine from "../Routine.js"
import * as Team from "../Team.js"
import { audit, type Caller } from "./Caller.js"

const loadTeam = (caller: Caller, teamId: TeamId) =>
  Effect.flatMap(
    OrganizationStore.use(({ teams }) => teams.get(caller.orgId, teamId)),
    Option.match({
      onNone: () => Effect.fail(new Team.TeamNotFound({ teamId })),
      onSome: Effect.succeed
    })
  )

const loadRoutine = (caller: Caller, routineId: RoutineId) =>
  Effect.flatMap(
    OrganizationStore.use(({ routines }) => routines.get(caller.orgId, routineId)),
    Option.match({
      onNone: () => Effect.fail(new Routine.RoutineNotFound({ routineId })),
      onSome: Effect.succeed
    })
  )

/** POST /teams -> 201 with the team. */
export const createTeam = Effect.fnUntraced(function*(caller: Caller, request: Team.TeamRequest) {
  yield* Input.validate(Team.TeamRequest, request)
  const { teams } = yield* OrganizationStore
  const ids = yield* Ids
  const team: Team.Team = { id: (yield* ids.next("team")) as TeamId, name: request.name }
  yield* transaction(Effect.gen(function*() {
    yield* teams.insert(caller.orgId, team)
    yield* audit(caller, "team.create", "team", team.id)
  }))
  return team
})

/** PATCH /teams/{teamId}: a rename (the name is the only field a team has). */
export const renameTeam = Effect.fnUntraced(function*(caller: Caller, teamId: TeamId, request: Team.TeamRequest) {
  yield* Input.validate(Team.TeamRequest, request)
  const { teams } = yield* OrganizationStore
  return yield* transaction(Effect.gen(function*() {
    const team = { ...(yield* loadTeam(caller, teamId)), name: request.name }
    yield* teams.insert(caller.orgId, team)
    yield* audit(caller, "team.rename", "team", teamId)
    return team
  }))
})

/** The first thing that still names the team, if any (the order `TeamInUse.usedBy` lists). */
const teamUse = (caller: Caller, teamId: TeamId) =>
  Effect.gen(function*() {
    const { organizations } = yield* OrganizationStore
    const { repositories } = yield* RepositoryStore
    const { policyGroups } = yield* PolicyStore
    const webhooks = yield* WebhookStore
    if ((yield* repositories.count(caller.orgId, { teamId })) > 0) return Option.some("repository" as const)
    const org = yield* organizations.get(caller.orgId)
    if (Option.isSome(org) && org.value.defaultNotificationTeamId === teamId) return Option.some("defaultNotificationTeam" as const)
    const groups = yield* policyGroups.all(caller.orgId)
    if (groups.some((g) => g.notificationRouting.kind === "team" && g.notificationRouting.teamId === teamId)) {
      return Option.some("policyGroupNotification" as const)
    }
    const destinations = yield* webhooks.all(caller.orgId)
    if (destinations.some((d) => d.audienceTeamId === teamId || (d.scope.kind === "team" && d.scope.teamId === teamId))) {
      return Option.some("webhook" as const)
    }
    return Option.none()
  })

/**
 * DELETE /teams/{teamId} -> 204. Its routines go with it (a routine belongs to one team; none of
 * them can be in use, since a repository's routine belongs to the repository's team). 409 while
 * anything still names the team.
 */
export const deleteTeam = Effect.fnUntraced(function*(caller: Caller, teamId: TeamId) {
  const { organizations, teams } = yield* OrganizationStore
  yield* transaction(Effect.gen(function*() {
    // settings writers and team deleters serialize on the organization, so a team cannot become
    // the default notification team between the check and the delete
    yield* organizations.lock(caller.orgId)
    yield* loadTeam(caller, teamId)
    // deleted first, checked after: deleting the routines waits for an onboarding that holds one of
    // them (it locks its routine), and the check then sees the repository it tracked; a team in
    // use fails the transaction, which restores it
    yield* teams.delete(caller.orgId, teamId)
    const use = yield* teamUse(caller, teamId)
    if (Option.isSome(use)) return yield* new Team.TeamInUse({ teamId, usedBy: use.value })
    yield* audit(caller, "team.delete", "team", teamId)
  }))
})

/** POST /teams/{teamId}/routines -> 201 with the routine (and its `teamId`). */
export const createRoutine = Effect.fnUntraced(function*(caller: Caller, teamId: TeamId, request: Routine.CreateRoutineRequest) {
  yield* Input.validate(Routine.CreateRoutineRequest, request)
  const { routines } = yield* OrganizationStore
  const ids = yield* Ids
  return yield* transaction(Effect.gen(function*() {
    yield* loadTeam(caller, teamId)
    const routine: Routine.Routine = {
      id: (yield* ids.next("routine")) as RoutineId,
      teamId,
      name: request.name,
      active: request.active ?? true,
      intervalDays: request.intervalDays
    }
    yield* routines.insert(caller.orgId, routine)
    yield* audit(caller, "routine.create", "routine", routine.id)
    return routine
  }))
})

/** PATCH /routines/{routineId}: name, `active`, `intervalDays` (1..365); the team stays. */
export const updateRoutine = Effect.fnUntraced(function*(caller: Caller, routineId: RoutineId, patch: Routine.RoutinePatch) {
  yield* Input.validate(Routine.RoutinePatch, patch)
  const { routines } = yield* OrganizationStore
  return yield* transaction(Effect.gen(function*() {
    yield* routines.lock(caller.orgId, routineId)
    const routine = Routine.applyPatch(yield* loadRoutine(caller, routineId), patch)
    yield* routines.insert(caller.orgId, routine)
    yield* audit(caller, "routine.update", "routine", routineId)
    return routine
  }))
})

/** DELETE /routines/{routineId} -> 204; 409 while a tracked repository runs on it. */
export const deleteRoutine = Effect.fnUntraced(function*(caller: Caller, routineId: RoutineId) {
  const { routines } = yield* OrganizationStore
  const { repositories } = yield* RepositoryStore
  yield* transaction(Effect.gen(function*() {
    // the lock waits for an onboarding or repository update that holds the routine (they lock
    // it), so the count sees the repository it wrote
    yield* routines.lock(caller.orgId, routineId)
    yield* loadRoutine(caller, routineId)
    if ((yield* repositories.count(caller.orgId, { routineId })) > 0) return yield* new Routine.RoutineInUse({ routineId })
    yield* routines.delete(caller.orgId, routineId)
    yield* audit(caller, "routine.delete", "routine", routineId)
  }))
})
