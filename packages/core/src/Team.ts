/** Teams of an organization (spec section 2): repositories and routines are assigned to one. */
import * as Schema from "effect/Schema"
import { TeamId } from "./Id.js"
import { storable } from "./Text.js"

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

/** A team or routine name as the API takes it: trimmed, 1..200 characters (as seed files allow). */
export const TeamName = storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(200)))

/** Body of POST /teams and PATCH /teams/{teamId} (a rename: the name is a team's only field). */
export const TeamRequest = Schema.Struct({ name: TeamName })
export type TeamRequest = typeof TeamRequest.Type

/** What still names a team, so deleting it would leave a dangling reference. */
export const TeamUse = Schema.Literals([
  "repository",
  "defaultNotificationTeam",
  "policyGroupNotification",
  "webhook"
])
export type TeamUse = typeof TeamUse.Type

/** DELETE /teams/{teamId} while something uses the team (409): nothing is deleted. */
export class TeamInUse extends Schema.TaggedError<TeamInUse>()("TeamInUse", {
  teamId: TeamId,
  usedBy: TeamUse
}) {
  override get message() {
    const what: Record<TeamUse, string> = {
      repository: "a tracked repository is assigned to it",
      defaultNotificationTeam: "it is the organization's default notification team",
      policyGroupNotification: "a policy group routes its notifications to it",
      webhook: "a webhook destination names it as audience or scope"
    }
    return `team ${this.teamId} is in use: ${what[this.usedBy]}`
  }
}
