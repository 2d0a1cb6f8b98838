import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Roles } = Workflows

export const RolesHandlers = HttpApiBuilder.group(Api, "roles", (handlers) =>
  handlers
    .handle("listRoles", ({ query }) => withCaller((c) => Effect.map(Roles.listRoles(c, query), toPage)))
    .handle("createRole", ({ payload }) => withCaller((c) => Roles.createRole(c, payload)))
    .handle("updateRole", ({ params, payload }) => withCaller((c) => Roles.updateRole(c, params.roleId, payload)))
    .handle("deleteRole", ({ params }) => withCaller((c) => Roles.deleteRole(c, params.roleId))))
