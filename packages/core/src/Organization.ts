/** Organizations, their edition and grants, and the Automation API gate (spec 1; contracts 3). */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { OrgId, TeamId } from "./Id.js"

export const Edition = Schema.Literals(["free", "team", "enterprise"])
export type Edition = typeof Edition.Type

export const Feature = Schema.Literal("automation-api")
export type Feature = typeof Feature.Type

export const Grant = Schema.Struct({ feature: Feature, expiresAt: Schema.NullOr(Schema.String) })
export type Grant = typeof Grant.Type

/**
 * A cooldown as an organization or a policy group is given one (seed files): at most a year. Longer
 * delays name no instant a date can hold once added to "now", and no policy waits that long.
 */
export const maxCooldownSeconds = 31_536_000
export const CooldownSeconds = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: maxCooldownSeconds }))

export const Organization = Schema.Struct({
  id: OrgId,
  name: Schema.String,
  edition: Edition,
  grants: Schema.Array(Grant),
  defaultNotificationTeamId: Schema.NullOr(TeamId),
  /** Default delay before external-phase changes become active. */
  cooldownSeconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})
export type Organization = typeof Organization.Type

export class AutomationApiNotIncluded extends Schema.TaggedError<AutomationApiNotIncluded>()(
  "AutomationApiNotIncluded",
  { orgId: OrgId }
) {
  override get message() {
    return "the organization's edition does not include the Automation API"
  }
}

const activeGrant = (grant: Grant, nowMs: number) =>
  grant.feature === "automation-api" && (grant.expiresAt === null || Date.parse(grant.expiresAt) > nowMs)

/** API access exists only with the enterprise edition or an unexpired `automation-api` grant. */
export const checkAutomationApi = (
  org: Organization,
  nowMs: number
): Result.Result<void, AutomationApiNotIncluded> =>
  org.edition === "enterprise" || org.grants.some((g) => activeGrant(g, nowMs))
    ? Result.void
    : Result.fail(new AutomationApiNotIncluded({ orgId: org.id }))

/** GET /settings: what an organization's owner may change, and what only operators change (read-only). */
export const Settings = Schema.Struct({
  id: OrgId,
  name: Schema.String,
  /** Read-only through the API: operators change it with the CLI (or a seed). */
  edition: Edition,
  /** Read-only through the API, like `edition`. */
  grants: Schema.Array(Grant),
  defaultNotificationTeamId: Schema.NullOr(TeamId),
  cooldownSeconds: Schema.Int
})
export type Settings = typeof Settings.Type

export const toSettings = (org: Organization): Settings => ({
  id: org.id,
  name: org.name,
  edition: org.edition,
  grants: org.grants,
  defaultNotificationTeamId: org.defaultNotificationTeamId,
  cooldownSeconds: org.cooldownSeconds
})

/** Body of PATCH /settings: the fields given change (`defaultNotificationTeamId: null` clears it). */
export const SettingsPatch = Schema.Struct({
  defaultNotificationTeamId: Schema.optionalKey(Schema.NullOr(TeamId)),
  cooldownSeconds: Schema.optionalKey(CooldownSeconds)
})
export type SettingsPatch = typeof SettingsPatch.Type

/** The organization a settings patch makes; edition, grants, name and id are never touched. */
export const applySettings = (org: Organization, patch: SettingsPatch): Organization => ({
  ...org,
  ...(patch.defaultNotificationTeamId !== undefined ? { defaultNotificationTeamId: patch.defaultNotificationTeamId } : {}),
  ...(patch.cooldownSeconds !== undefined ? { cooldownSeconds: patch.cooldownSeconds } : {})
})
