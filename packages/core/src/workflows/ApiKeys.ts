/**
 * API keys (spec 2, 3, 5; contracts 3, 5): create (the secret is shown once), list, revoke, and
 * authenticate a request's `x-api-key` in the order of contracts section 4.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ApiKey from "../ApiKey.js"
import type { ApiKeyId, OrgId, ServiceAccountId } from "../Id.js"
import { checkAutomationApi } from "../Organization.js"
import type { Permission } from "../Permission.js"
import { requirePermissions } from "../Permission.js"
import { Ids } from "../ports/Ids.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import type { PageRequest } from "../ports/Store.js"
import { Store } from "../ports/Store.js"
import { audit, type Caller, now } from "./Caller.js"

export const create = Effect.fnUntraced(function*(caller: Caller, request: ApiKey.ApiKeyCreateRequest) {
  const store = yield* Store
  const ids = yield* Ids
  const hasher = yield* SecretHasher
  const secret = ApiKey.formatSecret(yield* ids.randomBytes(32))
  const at = yield* now
  const key: ApiKey.ApiKey = {
    id: (yield* ids.next("apiKey")) as ApiKeyId,
    // each key acts as its own service account of the organization
    serviceAccountId: (yield* ids.next("serviceAccount")) as ServiceAccountId,
    name: request.name,
    prefix: ApiKey.secretPrefix(secret),
    secretHash: yield* hasher.hash(secret),
    role: "role" in request ? request.role : null,
    permissions: "permissions" in request ? [...new Set(request.permissions)] : [],
    expiresAt: ApiKey.expiresAt(at, request.expiresInDays),
    revokedAt: null,
    lastUsedAt: null,
    createdAt: at.toISOString()
  }
  yield* store.transaction(Effect.gen(function*() {
    yield* store.apiKeys.insert(caller.orgId, key)
    yield* audit(caller, "api_key.create", "api_key", key.id)
  }))
  const view = ApiKey.toView(key, at.getTime())
  return {
    id: view.id,
    name: view.name,
    prefix: view.prefix,
    ...(view.role !== undefined ? { role: view.role } : {}),
    permissions: view.permissions,
    expiresAt: view.expiresAt,
    secret
  } satisfies ApiKey.ApiKeyCreated
})

export const list = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const store = yield* Store
  const at = yield* now
  const result = yield* store.apiKeys.list(caller.orgId, page)
  return { items: result.items.map((k) => ApiKey.toView(k, at.getTime())), nextCursor: result.nextCursor }
})

/** Revocation disables the key at once and keeps its metadata; revoking again changes nothing. */
export const revoke = Effect.fnUntraced(function*(caller: Caller, keyId: ApiKeyId) {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const key = yield* store.apiKeys.get(caller.orgId, keyId)
    if (Option.isNone(key)) return yield* new ApiKey.ApiKeyNotFound({ apiKeyId: keyId })
    const at = yield* now
    const revoked = ApiKey.revoke(key.value, at)
    if (revoked !== key.value) {
      yield* store.apiKeys.update(caller.orgId, revoked)
      yield* audit(caller, "api_key.revoke", "api_key", keyId)
    }
    return ApiKey.toView(revoked, at.getTime())
  }))
})

// Authentication ----------------------------------------------------------------------------------

/** How fresh `lastUsedAt` is kept: a key used again within this window is not written again. */
export const lastUsedResolutionMs = 60_000

/** 401: no key, unknown, expired or revoked. The reason is for logs; the answer never says which. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.Literal("missing", "unknown", "expired", "revoked")
}) {}

/** 404: the organization in the path is not the key's (nothing cross-organization is disclosed). */
export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  orgId: Schema.String
}) {}

export interface Principal {
  readonly orgId: OrgId
  readonly apiKeyId: ApiKeyId
  readonly serviceAccountId: ServiceAccountId
  readonly permissions: ReadonlyArray<Permission>
}

/**
 * Contracts section 4, first failure wins: 401 (missing, unknown, expired, revoked) -> 404 (org in
 * the path is not the key's) -> 403 (edition or grant) -> 403 (missing permission). The secret is
 * only ever hashed; the stored hash is found by an index, so no secret comparison runs in JS.
 */
export const authenticate = Effect.fnUntraced(function*(
  secret: string | undefined,
  orgIdInPath: string,
  required: ReadonlyArray<Permission>
) {
  if (secret === undefined || secret === "") return yield* new Unauthenticated({ reason: "missing" })
  if (!ApiKey.looksLikeSecret(secret)) return yield* new Unauthenticated({ reason: "unknown" })
  const store = yield* Store
  const hasher = yield* SecretHasher
  const match = yield* store.apiKeys.findBySecretHash(yield* hasher.hash(secret))
  if (Option.isNone(match)) return yield* new Unauthenticated({ reason: "unknown" })
  const { key, orgId, organization } = match.value
  const at = yield* now
  const status = ApiKey.status(key, at.getTime())
  if (status !== "active") return yield* new Unauthenticated({ reason: status })
  // lastUsedAt (contracts 5) tells a rotating owner whether the old key is still in use (spec 5.7).
  // Recorded at most once a minute per key, so a busy key does not write on every request; `touch`
  // sets only that field, so it never undoes a concurrent revocation.
  if (key.lastUsedAt === null || at.getTime() - Date.parse(key.lastUsedAt) >= lastUsedResolutionMs) {
    yield* store.apiKeys.touch(orgId, key.id, at.toISOString())
  }
  if (orgId !== orgIdInPath) return yield* new OrganizationNotFound({ orgId: orgIdInPath })
  yield* checkAutomationApi(organization, at.getTime())
  const permissions = ApiKey.grantedPermissions(key)
  yield* requirePermissions(permissions, required)
  return { orgId, apiKeyId: key.id, serviceAccountId: key.serviceAccountId, permissions } satisfies Principal
})
