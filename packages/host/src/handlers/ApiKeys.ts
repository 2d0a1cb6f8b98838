import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { ApiKeys } = Workflows

export const ApiKeysHandlers = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  handlers
    .handle("listApiKeys", ({ query }) => withCaller((c) => Effect.map(ApiKeys.listApiKeys(c, query), toPage)))
    .handle("createApiKey", ({ payload }) => withCaller((c) => ApiKeys.createApiKey(c, payload)))
    .handle("revokeApiKey", ({ params }) => withCaller((c) => ApiKeys.revokeApiKey(c, params.keyId))))
