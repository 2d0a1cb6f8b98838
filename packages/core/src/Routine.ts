/** Scan routines (spec section 2): how often a team's repositories are scanned and remediated. */
import * as Schema from "effect/Schema"
import { RoutineId, TeamId } from "./Id.js"
import { TeamName } from "./Team.js"

/** `teamId` is null for a routine without a team, which onboarding rejects (spec 4.2). */
export const Routine = Schema.Struct({
  id: RoutineId,
  teamId: Schema.NullOr(TeamId),
  name: Schema.String,
  active: Schema.Boolean,
  intervalDays: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
})
export type Routine = typeof Routine.Type

/** Days between two routine runs of a branch, as the API and seed files take it. */
export const IntervalDays = Schema.Int.check(
  Schema.isBetween({ minimum: 1, maximum: 365 }, { message: "must be a whole number of days from 1 to 365" })
)

/** Body of POST /teams/{teamId}/routines: the team is the path's (a routine belongs to one team). */
export const CreateRoutineRequest = Schema.Struct({
  name: TeamName,
  active: Schema.optionalKey(Schema.Boolean),
  intervalDays: IntervalDays
})
export type CreateRoutineRequest = typeof CreateRoutineRequest.Type

/** Body of PATCH /routines/{routineId}: the fields given change, the others stay. */
export const RoutinePatch = Schema.Struct({
  name: Schema.optionalKey(TeamName),
  active: Schema.optionalKey(Schema.Boolean),
  intervalDays: Schema.optionalKey(IntervalDays)
})
export type RoutinePatch = typeof RoutinePatch.Type

/** The routine a patch makes: the given fields replaced, id and team kept. */
export const applyPatch = (routine: Routine, patch: RoutinePatch): Routine => ({
  ...routine,
  ...(patch.name !== undefined ? { name: patch.name } : {}),
  ...(patch.active !== undefined ? { active: patch.active } : {}),
  ...(patch.intervalDays !== undefined ? { intervalDays: patch.intervalDays } : {})
})

/** A routine id in a path that this organization does not have. */
export class RoutineNotFound extends Schema.TaggedError<RoutineNotFound>()("RoutineNotFound", {
  routineId: Schema.String
}) {
  override get message() {
    return `no routine ${this.routineId} in this organization`
  }
}

/** DELETE /routines/{routineId} while a tracked repository runs on it (409): nothing is deleted. */
export class RoutineInUse extends Schema.TaggedError<RoutineInUse>()("RoutineInUse", {
  routineId: RoutineId
}) {
  override get message() {
    return `routine ${this.routineId} is in use: a tracked repository is assigned to it`
  }
}
