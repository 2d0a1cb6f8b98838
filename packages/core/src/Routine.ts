/** Scan routines (spec section 2): how often a team's repositories are scanned and remediated. */
import * as Schema from "effect/Schema"
import { RoutineId, TeamId } from "./Id.js"

/** `teamId` is null for a routine without a team, which onboarding rejects (spec 4.2). */
export const Routine = Schema.Struct({
  id: RoutineId,
  teamId: Schema.NullOr(TeamId),
  name: Schema.String,
  active: Schema.Boolean,
  intervalDays: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
})
export type Routine = typeof Routine.Type
