import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Assignments, Onboarding, Policy, Repositories } = Workflows

export const RepositoriesHandlers = HttpApiBuilder.group(Api, "repositories", (handlers) =>
  handlers
    .handle("listRepositories", ({ query: { repositoryId, ...page } }) =>
      withCaller((c) =>
        Effect.map(Onboarding.listRepositories(c, page, repositoryId === undefined ? {} : { repositoryId }), toPage)
      ))
    .handle("createRepository", ({ payload }) => withCaller((c) => Onboarding.createRepository(c, payload)))
    .handle("getAssignments", ({ params }) => withCaller((c) => Assignments.getAssignments(c, params.repositoryId)))
    .handle(
      "replaceAssignments",
      ({ params, payload }) => withCaller((c) => Assignments.replaceAssignments(c, params.repositoryId, payload))
    )
    .handle("resolve", ({ params, query }) => withCaller((c) => Policy.resolve(c, params.repositoryId, query)))
    .handle("updateRepository", ({ params, payload }) => withCaller((c) => Repositories.updateRepository(c, params.repositoryId, payload)))
    .handle("deleteRepository", ({ params }) => withCaller((c) => Repositories.deleteRepository(c, params.repositoryId))))
