/**
 * Who may act in an organization: its API keys (the service accounts; at the top, as before), its
 * members and its custom roles (one section each), and how a request's key finds its organization.
 * One port, because authentication reads a key with the custom role it names in one read.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ApiKey } from "../ApiKey.js"
import type { ApiKeyId, MemberId, OrgId, RoleId } from "../Id.js"
import type { Member } from "../Member.js"
import type { Organization } from "../Organization.js"
import type { Page, PageRequest } from "../Page.js"
import type { CustomRole } from "../Role.js"

/**
 * An API key found by its secret's hash, with the organization that owns it: authentication needs
 * both (the edition gate reads the organization), so a store reads them together.
 */
export interface ApiKeyMatch {
  readonly orgId: OrgId
  readonly key: ApiKey
  readonly organization: Organization
  /** The custom role the key names, as stored now; `null` for a built-in role or an explicit set. */
  readonly customRole: CustomRole | null
}

/** Who holds a custom role: members (enabled or not) and API keys that are neither revoked nor expired. */
export interface RoleUsage {
  readonly members: number
  readonly apiKeys: number
}

export class AccessStore extends Context.Service<AccessStore, {
  readonly insert: (orgId: OrgId, key: ApiKey) => Effect.Effect<void>
  readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<ApiKey>>
  readonly get: (orgId: OrgId, id: ApiKeyId) => Effect.Effect<Option.Option<ApiKey>>
  /**
   * The only unscoped read of a key: authentication starts from the secret, before the org is known.
   * Reads the key and its organization as they are now (one read per request, never cached: a
   * revoked key or a changed edition counts at once).
   */
  readonly findBySecretHash: (secretHash: string) => Effect.Effect<Option.Option<ApiKeyMatch>>
  readonly update: (orgId: OrgId, key: ApiKey) => Effect.Effect<void>
  /**
   * Records a use of the key at `at` (ISO 8601) unless a later use is already recorded. Touches
   * no other field, so it can never undo a concurrent revocation.
   */
  readonly touch: (orgId: OrgId, id: ApiKeyId, at: string) => Effect.Effect<void>
  readonly members: {
    /** Answers `false` (and writes nothing) when a member with the same email, ignoring case, exists. */
    readonly insert: (orgId: OrgId, member: Member) => Effect.Effect<boolean>
    /** Ordered by (createdAt, id). */
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<Member>>
    readonly get: (orgId: OrgId, id: MemberId) => Effect.Effect<Option.Option<Member>>
    /** Replaces a member (its email never changes); a missing member is left alone. */
    readonly update: (orgId: OrgId, member: Member) => Effect.Effect<void>
    readonly delete: (orgId: OrgId, id: MemberId) => Effect.Effect<void>
  }
  readonly roles: {
    /** Answers `false` (and writes nothing) when a custom role with the same name, ignoring case, exists. */
    readonly insert: (orgId: OrgId, role: CustomRole) => Effect.Effect<boolean>
    /** Ordered by (name, id). */
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<CustomRole>>
    /** Every custom role of the organization (a handful), to resolve the roles of a list of keys or members. */
    readonly all: (orgId: OrgId) => Effect.Effect<ReadonlyArray<CustomRole>>
    readonly get: (orgId: OrgId, id: RoleId) => Effect.Effect<Option.Option<CustomRole>>
    /**
     * `get`, taking the role's row lock until the transaction ends: what naming a role (a new key
     * or member) and deleting one serialize on, so a role is never deleted under a new holder.
     */
    readonly lock: (orgId: OrgId, id: RoleId) => Effect.Effect<Option.Option<CustomRole>>
    /** Answers `false` (and writes nothing) when another custom role has the new name, ignoring case, or the role is gone. */
    readonly update: (orgId: OrgId, role: CustomRole) => Effect.Effect<boolean>
    readonly delete: (orgId: OrgId, id: RoleId) => Effect.Effect<void>
    /** Holders of the role at `now` (ISO 8601): what a deletion must wait for. */
    readonly usage: (orgId: OrgId, id: RoleId, now: string) => Effect.Effect<RoleUsage>
  }
}>()("@image-policy/core/AccessStore") {}
