import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Onboarding } = Workflows

export const OrganizationHandlers = HttpApiBuilder.group(Api, "organization", (handlers) =>
  handlers
    .handle("listTeams", ({ query }) => withCaller((c) => Effect.map(Onboarding.listTeams(c, query), toPage)))
    .handle("listTeamRoutines", ({ params, query }) =>
      withCaller((c) => Effect.map(Onboarding.listTeamRoutines(c, params.teamId, query), toPage)))
    .handle("listRoutines", ({ query }) =>
      withCaller((c) => Effect.map(Onboarding.listRoutines(c, query), toPage)))
    .handle("listVcsConnections", ({ query }) => withCaller((c) => Effect.map(Onboarding.listVcsConnections(c, query), toPage)))
    .handle("listAvailableRepositories", ({ params, query }) =>
      withCaller((c) =>
        Effect.map(
          Onboarding.listAvailableRepositories(c, params.connectionId, { refresh: query.refresh === true }),
          (items) => ({ items })
        )
      ))
    .handle("listAvailableBranches", ({ params, query }) =>
      withCaller((c) =>
        Effect.map(
          Onboarding.listAvailableBranches(c, params.connectionId, {
            fullName: query.repositoryFullName,
            defaultBranch: query.defaultBranch
          }),
          (items) => ({ items })
        )
      )))
