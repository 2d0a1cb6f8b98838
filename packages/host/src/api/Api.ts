/**
 * The `/api/v1` contract. `GET /api/v1/openapi.json` is generated from this definition, so paths,
 * schemas, problems and `x-required-permissions` cannot drift from what the handlers serve.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { version } from "@image-policy/core"
import { ApiKeysGroup } from "./Access.js"
import { AuditGroup, SnoozeRequestsGroup } from "./Exceptions.js"
import { MetaGroup } from "./Meta.js"
import { OrganizationGroup } from "./Organization.js"
import { PolicyGroupApi } from "./Policy.js"
import { Problem } from "./Problem.js"
import { RepositoriesGroup } from "./Repositories.js"
import { ScansGroup } from "./Scans.js"
import { VcsEventsGroup } from "./VcsEvents.js"
import { WebhooksGroup } from "./Webhooks.js"

export class Api extends HttpApi.make("image-policy")
  .add(MetaGroup)
  .add(OrganizationGroup)
  .add(RepositoriesGroup)
  .add(ScansGroup)
  .add(PolicyGroupApi)
  .add(ApiKeysGroup)
  .add(SnoozeRequestsGroup)
  .add(AuditGroup)
  .add(WebhooksGroup)
  .add(VcsEventsGroup)
  .addError(Problem)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "image-policy")
  .annotate(OpenApi.Version, version)
  .annotate(
    OpenApi.Description,
    "Image mapping policy, repository onboarding and webhook automation. Organization routes need `x-api-key`; " +
      "every error is RFC 9457 problem JSON."
  )
{}
