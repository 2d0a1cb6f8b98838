/** Organization settings (issue 15): the default notification team and cooldown; edition and grants read-only. */
import { Organization } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { OrgPath } from "./Common.js"
import { Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

export const SettingsGroup = HttpApiGroup.make("settings")
  .annotate(OpenApi.Description, "The organization's settings")
  .add(
    HttpApiEndpoint.get("getSettings", "/org/:orgId/settings", {
      params: OrgPath,
      success: Organization.Settings
    })
      .annotate(OpenApi.Summary, "Read the organization's settings")
      .annotate(OpenApi.Description, "Edition and grants are shown read-only: operators change them with the CLI.")
      .pipe(requires("policy:read")),
    HttpApiEndpoint.patch("updateSettings", "/org/:orgId/settings", {
      params: OrgPath,
      payload: Organization.SettingsPatch,
      success: Organization.Settings,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Change the default notification team or cooldown")
      .annotate(OpenApi.Description, "`defaultNotificationTeamId: null` clears it; `cooldownSeconds` is 0..31536000.")
      .pipe(requires("organization:manage"))
  )
  .middleware(Authentication)
