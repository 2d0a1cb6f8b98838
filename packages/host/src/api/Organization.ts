/** Teams, routines, VCS connections, available repositories and branches (spec 4; contracts 5). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Onboarding } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, PathId } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem429 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const RoutineItem = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  active: Schema.Boolean,
  intervalDays: Schema.Int
})

export const OrganizationGroup = HttpApiGroup.make("organization")
  .add(
    HttpApiEndpoint.get("listTeams", "/org/:orgId/teams")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Onboarding.Team))
      .pipe(requires("teams:read"))
  )
  .add(
    HttpApiEndpoint.get("listTeamRoutines", "/org/:orgId/teams/:teamId/routines")
      .setPath(Schema.Struct({ orgId: PathId, teamId: PathId }))
      .setUrlParams(PageParams)
      .addSuccess(Page(RoutineItem))
      .pipe(requires("teams:read"))
  )
  .add(
    HttpApiEndpoint.get("listRoutines", "/org/:orgId/routines")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Onboarding.Routine))
      .annotate(OpenApi.Description, "Every routine of the organization with its `teamId` (null for a routine without team).")
      .pipe(requires("teams:read"))
  )
  .add(
    HttpApiEndpoint.get("listVcsConnections", "/org/:orgId/vcs-connections")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Onboarding.VcsConnection))
      .pipe(requires("vcs:read"))
  )
  .add(
    HttpApiEndpoint.get("listAvailableRepositories", "/org/:orgId/vcs-connections/:connectionId/available-repos")
      .setPath(Schema.Struct({ orgId: PathId, connectionId: PathId }))
      .setUrlParams(Schema.Struct({
        refresh: Schema.optional(Schema.Literal("1", "0", "true", "false").annotations({
          description: "`1` asks the provider again and spends its API quota; use it once when a recently granted repository is missing, not on every poll"
        }))
      }))
      .addSuccess(Schema.Struct({ items: Schema.Array(Onboarding.AvailableRepository) }))
      .pipe(requires("vcs:read"))
  )
  .add(
    HttpApiEndpoint.get("listAvailableBranches", "/org/:orgId/vcs-connections/:connectionId/available-branches")
      .setPath(Schema.Struct({ orgId: PathId, connectionId: PathId }))
      .setUrlParams(Schema.Struct({
        repositoryFullName: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1024)),
        defaultBranch: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))
      }))
      .addSuccess(Schema.Struct({ items: Schema.Array(Onboarding.AvailableBranch) }))
      .pipe(requires("vcs:read"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
