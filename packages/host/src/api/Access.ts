/** API keys (spec 5.6-5.7; contracts 5): create shows the secret once, list never, revoke keeps metadata. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { ApiKey } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { Created, OrgPath, Page, PageParams, PathId, strictPayload } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem413, Problem429 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

export const ApiKeysGroup = HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("listApiKeys", "/org/:orgId/api-keys")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(ApiKey.ApiKeyView))
      .pipe(requires("api-keys:manage"))
  )
  .add(
    HttpApiEndpoint.post("createApiKey", "/org/:orgId/api-keys")
      .setPath(OrgPath)
      .setPayload(strictPayload(ApiKey.ApiKeyCreateRequest))
      .addSuccess(Created(ApiKey.ApiKeyCreated))
      .addError(Problem413)
      .pipe(requires("api-keys:manage"))
  )
  .add(
    HttpApiEndpoint.post("revokeApiKey", "/org/:orgId/api-keys/:keyId/revoke")
      .setPath(Schema.Struct({ orgId: PathId, keyId: PathId }))
      .addSuccess(ApiKey.ApiKeyView)
      .pipe(requires("api-keys:manage"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
