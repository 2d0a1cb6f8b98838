import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Onboarding } = Workflows

export const OrganizationHandlers = HttpApiBuilder.group(Api, "organization", (handlers) =>
  handlers
    .handle("listTeams", ({ urlParams }) => withCaller((c) => Effect.map(Onboarding.listTeams(c, urlParams), toPage)))
    .handle("listTeamRoutines", ({ path, urlParams }) =>
      withCaller((c) => Effect.map(Onboarding.listTeamRoutines(c, path.teamId as Id.TeamId, urlParams), toPage)))
    .handle("listRoutines", ({ urlParams }) => withCaller((c) => Effect.map(Onboarding.listRoutines(c, urlParams), toPage)))
    .handle("listVcsConnections", ({ urlParams }) =>
      withCaller((c) => Effect.map(Onboarding.listConnections(c, urlParams), toPage)))
    .handle("listAvailableRepositories", ({ path, urlParams }) =>
      withCaller((c) =>
        Effect.map(
          Onboarding.availableRepositories(c, path.connectionId as Id.VcsConnectionId, {
            refresh: urlParams.refresh === "1" || urlParams.refresh === "true"
          }),
          (items) => ({ items })
        )
      ))
    .handle("listAvailableBranches", ({ path, urlParams }) =>
      withCaller((c) =>
        Effect.map(
          Onboarding.availableBranches(c, path.connectionId as Id.VcsConnectionId, {
            fullName: urlParams.repositoryFullName,
            defaultBranch: urlParams.defaultBranch
          }),
          (items) => ({ items })
        )
      ))
)
