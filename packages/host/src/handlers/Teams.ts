import { Api } from "@image-policy/client/api/Api"
import { Workflows } from "@image-policy/core"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Teams } = Workflows

export const TeamsHandlers = HttpApiBuilder.group(Api, "teams", (handlers) =>
  handlers
    .handle("createTeam", ({ payload }) => withCaller((c) => Teams.createTeam(c, payload)))
    .handle("renameTeam", ({ params, payload }) => withCaller((c) => Teams.renameTeam(c, params.teamId, payload)))
    .handle("deleteTeam", ({ params }) => withCaller((c) => Teams.deleteTeam(c, params.teamId)))
    .handle("createRoutine", ({ params, payload }) => withCaller((c) => Teams.createRoutine(c, params.teamId, payload)))
    .handle("updateRoutine", ({ params, payload }) => withCaller((c) => Teams.updateRoutine(c, params.routineId, payload)))
    .handle("deleteRoutine", ({ params }) => withCaller((c) => Teams.deleteRoutine(c, params.routineId))))
