import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Assignments, Onboarding, Policy } = Workflows

export const RepositoriesHandlers = HttpApiBuilder.group(Api, "repositories", (handlers) =>
  handlers
    .handle("listRepositories", ({ urlParams: { repositoryId, ...page } }) =>
      withCaller((c) =>
        Effect.map(
          Onboarding.listRepositories(c, page, repositoryId === undefined ? {} : { repositoryId: repositoryId as Id.RepositoryId }),
          toPage
        )
      ))
    .handle("createRepository", ({ payload }) => withCaller((c) => Onboarding.onboardRepository(c, payload)))
    .handle("getAssignments", ({ path }) =>
      withCaller((c) => Assignments.readAssignments(c, path.repositoryId as Id.RepositoryId)))
    .handle("replaceAssignments", ({ path, payload }) =>
      withCaller((c) => Assignments.replaceAssignments(c, path.repositoryId as Id.RepositoryId, payload)))
    .handle("resolve", ({ path, urlParams }) =>
      withCaller((c) => Policy.resolve(c, path.repositoryId as Id.RepositoryId, urlParams)))
)
