/** Teams of an organization (spec section 2): repositories and routines are assigned to one. */
import * as Schema from "effect/Schema"
import { TeamId } from "./Id.js"

export const Team = Schema.Struct({
  id: TeamId,
  name: Schema.String
})
export type Team = typeof Team.Type

/** A team id in a path that this organization does not have. */
export class TeamNotFound extends Schema.TaggedError<TeamNotFound>()("TeamNotFound", {
  teamId: Schema.String
}) {
  override get message() {
    return `no team ${this.teamId} in this organization`
  }
}
