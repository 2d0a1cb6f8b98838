import { Api } from "@image-policy/client/api/Api"
import { Workflows } from "@image-policy/core"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { VcsConnections } = Workflows

export const VcsConnectionsHandlers = HttpApiBuilder.group(Api, "vcsConnections", (handlers) =>
  handlers
    .handle("createVcsConnection", ({ payload }) => withCaller((c) => VcsConnections.createVcsConnection(c, payload)))
    .handle("getVcsConnection", ({ params }) => withCaller((c) => VcsConnections.getVcsConnection(c, params.connectionId)))
    .handle("replaceVcsConnectionToken", ({ params, payload }) =>
      withCaller((c) => VcsConnections.replaceVcsConnectionToken(c, params.connectionId, payload)))
    .handle("updateVcsConnection", ({ params, payload }) =>
      withCaller((c) =>
        VcsConnections.updateVcsConnection(c, params.connectionId, payload)
      ))
    .handle("deleteVcsConnection", ({ params }) =>
      withCaller((c) => VcsConnections.deleteVcsConnection(c, params.connectionId))))
