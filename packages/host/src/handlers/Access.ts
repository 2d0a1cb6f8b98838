import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { ApiKeys } = Workflows

export const ApiKeysHandlers = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  handlers
    .handle("listApiKeys", ({ urlParams }) => withCaller((c) => Effect.map(ApiKeys.list(c, urlParams), toPage)))
    .handle("createApiKey", ({ payload }) => withCaller((c) => ApiKeys.create(c, payload)))
    .handle("revokeApiKey", ({ path }) => withCaller((c) => ApiKeys.revoke(c, path.keyId as Id.ApiKeyId)))
)
