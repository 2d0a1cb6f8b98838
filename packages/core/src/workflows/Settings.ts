/**
 * Organization settings through the API (issue 15): the default notification team and the default
 * cooldown of external phases. Edition and grants are shown, never changed here: operators change
 * them with the CLI (contracts 1), so no key can widen its own organization's access.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Input from "../Input.js"
import * as Organization from "../Organization.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { transaction } from "../ports/Transaction.js"
import { OrganizationNotFound } from "./ApiKeys.js"
import { audit, type Caller, InvalidReferenceInBody } from "./Caller.js"

const loadOrganization = (caller: Caller) =>
  Effect.flatMap(
    OrganizationStore.use(({ organizations }) => organizations.get(caller.orgId)),
    Option.match({
      // the caller's key belongs to it: only an organization removed under a running request is missing
      onNone: () => Effect.fail(new OrganizationNotFound({ orgId: caller.orgId })),
      onSome: Effect.succeed
    })
  )

/** GET /settings */
export const getSettings = Effect.fnUntraced(function*(caller: Caller) {
  return Organization.toSettings(yield* loadOrganization(caller))
})

/** PATCH /settings: the fields given change; a default notification team must be one of the organization's (400). */
export const updateSettings = Effect.fnUntraced(function*(caller: Caller, patch: Organization.SettingsPatch) {
  yield* Input.validate(Organization.SettingsPatch, patch)
  const { organizations, teams } = yield* OrganizationStore
  return yield* transaction(Effect.gen(function*() {
    // team deletion takes the same lock: the team checked here cannot be deleted before this commits
    yield* organizations.lock(caller.orgId)
    const org = yield* loadOrganization(caller)
    const teamId = patch.defaultNotificationTeamId
    if (teamId !== undefined && teamId !== null && Option.isNone(yield* teams.get(caller.orgId, teamId))) {
      return yield* new InvalidReferenceInBody({ path: "defaultNotificationTeamId", message: "no team of this organization has this id" })
    }
    const next = Organization.applySettings(org, patch)
    yield* organizations.insert(next)
    yield* audit(caller, "organization.update_settings", "organization", caller.orgId)
    return Organization.toSettings(next)
  }))
})
