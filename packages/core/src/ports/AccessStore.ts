/** API keys: the organization's service accounts and how a request's key finds its organization. */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ApiKey } from "../ApiKey.js"
import type { ApiKeyId, OrgId } from "../Id.js"
import type { Organization } from "../Organization.js"
import type { Page, PageRequest } from "../Page.js"

/**
 * An API key found by its secret's hash, with the organization that owns it: authentication needs
 * both (the edition gate reads the organization), so a store reads them together.
 */
export interface ApiKeyMatch {
  readonly orgId: OrgId
  readonly key: ApiKey
  readonly organization: Organization
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
}>()("@image-policy/core/AccessStore") {}
