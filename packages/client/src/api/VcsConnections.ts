/**
 * VCS connections administration (issue 15): create, read, replace the token, switch off and on,
 * delete. Tokens and webhook secrets are sealed and never answered. The list and the provider's
 * repositories and branches are in Organization.ts (`vcs:read`).
 */
import { VcsConnection } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { OrgPath, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const ConnectionPath = { ...OrgPath, connectionId: pathId("VcsConnectionId") }

export const VcsConnectionsGroup = HttpApiGroup.make("vcsConnections")
  .annotate(OpenApi.Description, "Administration of VCS connections")
  .add(
    HttpApiEndpoint.post("createVcsConnection", "/org/:orgId/vcs-connections", {
      params: OrgPath,
      payload: VcsConnection.CreateVcsConnectionRequest,
      success: VcsConnection.VcsConnectionDetails.pipe(HttpApiSchema.status(201)),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Connect a provider account")
      .annotate(
        OpenApi.Description,
        "An `active` connection to GitHub or GitLab (`baseUrl` for a self-hosted instance, default the public API). " +
          "`token` and `webhookSecret` are stored encrypted and never shown again: reads say `tokenConfigured`."
      )
      .pipe(requires("repositories:manage")),
    HttpApiEndpoint.get("getVcsConnection", "/org/:orgId/vcs-connections/:connectionId", {
      params: ConnectionPath,
      success: VcsConnection.VcsConnectionDetails
    })
      .annotate(OpenApi.Summary, "Read a VCS connection")
      .pipe(requires("vcs:read")),
    HttpApiEndpoint.put("replaceVcsConnectionToken", "/org/:orgId/vcs-connections/:connectionId/token", {
      params: ConnectionPath,
      payload: VcsConnection.ReplaceTokenRequest,
      success: VcsConnection.VcsConnectionDetails,
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Replace a connection's token")
      .annotate(OpenApi.Description, "409 for a connection serving fixture data (it has no token).")
      .pipe(requires("repositories:manage")),
    HttpApiEndpoint.patch("updateVcsConnection", "/org/:orgId/vcs-connections/:connectionId", {
      params: ConnectionPath,
      payload: VcsConnection.VcsConnectionPatch,
      success: VcsConnection.VcsConnectionDetails,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Switch a connection off or on")
      .annotate(
        OpenApi.Description,
        "`inactive`: nothing goes through it (onboarding, syncs, scans, remediation) until it is `active` again."
      )
      .pipe(requires("repositories:manage")),
    HttpApiEndpoint.delete("deleteVcsConnection", "/org/:orgId/vcs-connections/:connectionId", {
      params: ConnectionPath,
      success: HttpApiSchema.NoContent,
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Delete a VCS connection")
      .annotate(OpenApi.Description, "409 while a tracked repository or an external phase reads through it.")
      .pipe(requires("repositories:manage"))
  )
  .middleware(Authentication)
