/** Teams, routines, VCS connections, available repositories and branches (spec 4; contracts 5). */
import { Routine, Team, VcsConnection } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, pathId, QueryFlag } from "./Common.js"
import { Authentication, requires } from "./Security.js"

const RoutineItem = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  active: Schema.Boolean,
  intervalDays: Schema.Int
})

const ConnectionPath = { ...OrgPath, connectionId: pathId("VcsConnectionId") }

export const OrganizationGroup = HttpApiGroup.make("organization")
  .annotate(OpenApi.Description, "Teams, routines, VCS connections and the repositories and branches they reach")
  .add(
    HttpApiEndpoint.get("listTeams", "/org/:orgId/teams", {
      params: OrgPath,
      query: PageParams,
      success: Page(Team.Team)
    })
      .annotate(OpenApi.Summary, "List the organization's teams").pipe(requires("teams:read")),
    HttpApiEndpoint.get("listTeamRoutines", "/org/:orgId/teams/:teamId/routines", {
      params: { ...OrgPath, teamId: pathId("TeamId") },
      query: PageParams,
      success: Page(RoutineItem)
    })
      .annotate(OpenApi.Summary, "List a team's routines").pipe(requires("teams:read")),
    HttpApiEndpoint.get("listRoutines", "/org/:orgId/routines", {
      params: OrgPath,
      query: PageParams,
      success: Page(Routine.Routine)
    })
      .annotate(OpenApi.Summary, "List every routine")
      .annotate(OpenApi.Description, "Every routine of the organization with its `teamId` (null for a routine without team).")
      .pipe(requires("teams:read")),
    HttpApiEndpoint.get("listVcsConnections", "/org/:orgId/vcs-connections", {
      params: OrgPath,
      query: PageParams,
      success: Page(VcsConnection.VcsConnection)
    })
      .annotate(OpenApi.Summary, "List the VCS connections").pipe(requires("vcs:read")),
    HttpApiEndpoint.get("listAvailableRepositories", "/org/:orgId/vcs-connections/:connectionId/available-repos", {
      params: ConnectionPath,
      query: {
        refresh: Schema.optionalKey(
          QueryFlag.annotate({
            description:
              "`1` (or `true`) asks the provider again and spends its API quota; use it once when a recently granted repository is missing, not on every poll"
          })
        )
      },
      success: Schema.Struct({ items: Schema.Array(VcsConnection.AvailableRepository) })
    })
      .annotate(OpenApi.Summary, "List the repositories a connection can reach").pipe(requires("vcs:read")),
    HttpApiEndpoint.get("listAvailableBranches", "/org/:orgId/vcs-connections/:connectionId/available-branches", {
      params: ConnectionPath,
      query: {
        repositoryFullName: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
        defaultBranch: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))
      },
      success: Schema.Struct({ items: Schema.Array(VcsConnection.AvailableBranch) })
    })
      .annotate(OpenApi.Summary, "List a reachable repository's branches").pipe(requires("vcs:read"))
  )
  .middleware(Authentication)
