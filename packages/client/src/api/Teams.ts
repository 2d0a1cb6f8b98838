/**
 * Teams and routines administration (issue 15). Reads are in Organization.ts (`teams:read`);
 * writes need `organization:manage` (docs/api.md "Organization administration").
 */
import { Routine, Team } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OrgPath, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const TeamPath = { ...OrgPath, teamId: pathId("TeamId") }
const RoutinePath = { ...OrgPath, routineId: pathId("RoutineId") }

export const TeamsGroup = HttpApiGroup.make("teams")
  .annotate(OpenApi.Description, "Administration of teams and routines")
  .add(
    HttpApiEndpoint.post("createTeam", "/org/:orgId/teams", {
      params: OrgPath,
      payload: Team.TeamRequest,
      success: Team.Team.pipe(HttpApiSchema.status(201)),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Create a team")
      .pipe(requires("organization:manage")),
    HttpApiEndpoint.patch("renameTeam", "/org/:orgId/teams/:teamId", {
      params: TeamPath,
      payload: Team.TeamRequest,
      success: Team.Team,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Rename a team")
      .pipe(requires("organization:manage")),
    HttpApiEndpoint.delete("deleteTeam", "/org/:orgId/teams/:teamId", {
      params: TeamPath,
      success: HttpApiSchema.NoContent,
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Delete a team and its routines")
      .annotate(
        OpenApi.Description,
        "409 while a tracked repository is assigned to it, or it is the default notification team, a policy group's " +
          "notification team or a webhook destination's audience or scope."
      )
      .pipe(requires("organization:manage")),
    HttpApiEndpoint.post("createRoutine", "/org/:orgId/teams/:teamId/routines", {
      params: TeamPath,
      payload: Routine.CreateRoutineRequest,
      success: Routine.Routine.pipe(HttpApiSchema.status(201)),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Create a routine of a team")
      .annotate(OpenApi.Description, "`active` defaults to true; `intervalDays` is 1..365.")
      .pipe(requires("organization:manage")),
    HttpApiEndpoint.patch("updateRoutine", "/org/:orgId/routines/:routineId", {
      params: RoutinePath,
      payload: Routine.RoutinePatch,
      success: Routine.Routine,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Rename a routine, switch it on or off, change its interval")
      .pipe(requires("organization:manage")),
    HttpApiEndpoint.delete("deleteRoutine", "/org/:orgId/routines/:routineId", {
      params: RoutinePath,
      success: HttpApiSchema.NoContent,
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Delete a routine")
      .annotate(OpenApi.Description, "409 while a tracked repository is assigned to it.")
      .pipe(requires("organization:manage"))
  )
  .middleware(Authentication)
