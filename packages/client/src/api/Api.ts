/**
 * The `/api/v1` contract, and the health probes beside it at the root. `GET /api/v1/openapi.json` is generated from this definition, so paths,
 * schemas, problems and `x-required-permissions` cannot drift from what the handlers serve.
 */
import { version } from "@image-policy/core"
import { HttpApi, OpenApi } from "effect/http-api"
import { ApiKeysGroup } from "./ApiKeys.js"
import { AuditGroup } from "./Audit.js"
import { DecisionsGroup } from "./Decisions.js"
import { HealthGroup } from "./Health.js"
import { MembersGroup } from "./Members.js"
import { MetaGroup } from "./Meta.js"
import { OrganizationGroup } from "./Organization.js"
import { PolicyGroupApi } from "./Policy.js"
import { ProblemResponses } from "./Problem.js"
import { ReportsGroup } from "./Reports.js"
import { RepositoriesGroup } from "./Repositories.js"
import { RolesGroup } from "./Roles.js"
import { ScansGroup } from "./Scans.js"
import { SnoozeRequestsGroup } from "./SnoozeRequests.js"
import { VcsEventsGroup } from "./VcsEvents.js"
import { WebhooksGroup } from "./Webhooks.js"
// organization administration (issue 15)
import { SettingsGroup } from "./Settings.js"
// the web console's sessions (issue 17)
import { SessionGroup } from "./Session.js"
import { TeamsGroup } from "./Teams.js"
import { VcsConnectionsGroup } from "./VcsConnections.js"

export class Api extends HttpApi.make("image-policy")
  .add(
    MetaGroup,
    OrganizationGroup,
    RepositoriesGroup,
    ScansGroup,
    PolicyGroupApi,
    ApiKeysGroup,
    SnoozeRequestsGroup,
    AuditGroup,
    WebhooksGroup,
    VcsEventsGroup,
    ReportsGroup,
    // organization administration (issue 15)
    TeamsGroup,
    VcsConnectionsGroup,
    SettingsGroup,
    MembersGroup,
    RolesGroup,
    // the web console's sessions (issue 17)
    SessionGroup,
    // the decision API (issue 18)
    DecisionsGroup
  )
  // after the groups: an API middleware reaches the endpoints already added, and the last added runs outermost
  .middleware(ProblemResponses)
  .prefix("/api/v1")
  // probes live at the root, where orchestrators and operators look for them (issue 16)
  .add(HealthGroup.middleware(ProblemResponses))
  // request bodies are checked whole and strictly: every offending field is named at once, and a field
  // the route does not know is an error, so a misspelt optional field never passes silently
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotate(OpenApi.Title, "image-policy")
  .annotate(OpenApi.Version, version)
  .annotate(
    OpenApi.Description,
    "Image mapping policy, repository onboarding and webhook automation. Organization routes need `x-api-key` " +
      "or the console's session cookie (with `x-csrf-token` on unsafe methods); " +
      "every error is RFC 9457 problem JSON."
  )
{}
