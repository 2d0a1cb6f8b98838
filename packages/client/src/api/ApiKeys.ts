/** API keys (spec 5.6-5.7; contracts 5): create shows the secret once, list never, revoke keeps metadata. */
import { ApiKey } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

export const ApiKeysGroup = HttpApiGroup.make("apiKeys")
  .annotate(OpenApi.Description, "API keys of the organization: create (the secret shown once), list, revoke")
  .add(
    HttpApiEndpoint.get("listApiKeys", "/org/:orgId/api-keys", {
      params: OrgPath,
      query: PageParams,
      success: Page(ApiKey.ApiKeyView)
    })
      .annotate(OpenApi.Summary, "List the API keys").pipe(requires("api-keys:manage")),
    HttpApiEndpoint.post("createApiKey", "/org/:orgId/api-keys", {
      params: OrgPath,
      payload: ApiKey.ApiKeyCreateRequest,
      success: ApiKey.ApiKeyCreated.pipe(HttpApiSchema.status(201)),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Create an API key").pipe(requires("api-keys:manage")),
    HttpApiEndpoint.post("revokeApiKey", "/org/:orgId/api-keys/:keyId/revoke", {
      params: { ...OrgPath, keyId: pathId("ApiKeyId") },
      success: ApiKey.ApiKeyView
    })
      .annotate(OpenApi.Summary, "Revoke an API key").pipe(requires("api-keys:manage"))
  )
  .middleware(Authentication)
