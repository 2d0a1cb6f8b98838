/**
 * Organizations and what they hold before any repository: teams and routines. Every method but
 * `organizations.*` is scoped by organization (contracts: org_id scoping). Reads of a single row
 * return `Option`; the workflow turns `None` into the domain's `...NotFound`. Infrastructure
 * failures (database gone) are defects: a 500 with a correlation id, never a user error. The same
 * holds for every store port.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId, RoutineId, TeamId } from "../Id.js"
import type { Organization } from "../Organization.js"
import type { Page, PageRequest } from "../Page.js"
import type { Routine } from "../Routine.js"
import type { Team } from "../Team.js"

export class OrganizationStore extends Context.Service<OrganizationStore, {
  readonly organizations: {
    readonly get: (orgId: OrgId) => Effect.Effect<Option.Option<Organization>>
    /** Inserts the organization, or replaces the one with the same id (its rows stay). */
    readonly insert: (org: Organization) => Effect.Effect<void>
    /** Takes the organization's row lock until the transaction ends (serializes settings writers). */
    readonly lock: (orgId: OrgId) => Effect.Effect<void>
  }
  readonly teams: {
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<Team>>
    readonly get: (orgId: OrgId, teamId: TeamId) => Effect.Effect<Option.Option<Team>>
    /** Inserts the team, or replaces the one with the same id (a rename). */
    readonly insert: (orgId: OrgId, team: Team) => Effect.Effect<void>
    /** Removes the team and its routines; an unknown id changes nothing. */
    readonly delete: (orgId: OrgId, teamId: TeamId) => Effect.Effect<void>
  }
  readonly routines: {
    /** All routines of the org, or those of one team when `teamId` is given. */
    readonly list: (orgId: OrgId, page: PageRequest, filter?: { readonly teamId?: TeamId }) => Effect.Effect<Page<Routine>>
    readonly get: (orgId: OrgId, routineId: RoutineId) => Effect.Effect<Option.Option<Routine>>
    /** Inserts the routine, or replaces the one with the same id. */
    readonly insert: (orgId: OrgId, routine: Routine) => Effect.Effect<void>
    /** Takes the routine's row lock until the transaction ends (serializes its writers). */
    readonly lock: (orgId: OrgId, routineId: RoutineId) => Effect.Effect<void>
    readonly delete: (orgId: OrgId, routineId: RoutineId) => Effect.Effect<void>
  }
}>()("@image-policy/core/OrganizationStore") {}
