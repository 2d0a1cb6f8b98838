/**
 * API keys (spec 2, 3, 5; contracts 3, 5): create (the secret is shown once), list, revoke, and
 * authenticate a request's `x-api-key` in the order of contracts section 4.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as ApiKey from "../ApiKey.js"
import type { ApiKeyId, OrgId, ServiceAccountId } from "../Id.js"
import * as Input from "../Input.js"
import { type AutomationApiNotIncluded, checkAutomationApi, type Organization } from "../Organization.js"
import type { PageRequest } from "../Page.js"
import type { Permission, PermissionDenied, RoleName } from "../Permission.js"
import { requirePermissions } from "../Permission.js"
import { AccessStore } from "../ports/AccessStore.js"
import { Ids } from "../ports/Ids.js"
import { SecretHasher } from "../ports/SecretHasher.js"
import { transaction } from "../ports/Transaction.js"
import * as Role from "../Role.js"
import { audit, type Caller, now } from "./Caller.js"
import { roleInBody } from "./RoleAccess.js"

export const createApiKey = Effect.fnUntraced(function*(caller: Caller, request: ApiKey.ApiKeyCreateRequest) {
  yield* Input.validate(ApiKey.ApiKeyCreateRequest, request)
  const apiKeys = yield* AccessStore
  const ids = yield* Ids
  const hasher = yield* SecretHasher
  const secret = ApiKey.formatSecret(yield* ids.randomBytes(32))
  const at = yield* now
  const key: ApiKey.ApiKey = {
    id: yield* ids.next("apiKey"),
    // each key acts as its own service account of the organization
    serviceAccountId: yield* ids.next("serviceAccount"),
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
  // a custom role (named by its id) must exist, and stays locked until the key is stored
  const named = yield* transaction(Effect.gen(function*() {
    const role = "role" in request ? yield* roleInBody(caller, request.role, "role") : null
    yield* apiKeys.insert(caller.orgId, key)
    yield* audit(caller, "api_key.create", "api_key", key.id)
    return role
  }))
  const view = ApiKey.toView(key, at.getTime(), named?.custom)
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

export const listApiKeys = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const apiKeys = yield* AccessStore
  const at = yield* now
  const result = yield* apiKeys.list(caller.orgId, page)
  const custom = result.items.some((k) => k.role !== null && !Role.isBuiltIn(k.role))
    ? new Map((yield* apiKeys.roles.all(caller.orgId)).map((r) => [r.id as string, r]))
    : new Map<string, Role.CustomRole>()
  return {
    items: result.items.map((k) => ApiKey.toView(k, at.getTime(), k.role !== null ? custom.get(k.role) : null)),
    nextCursor: result.nextCursor
  }
})

/** Revocation disables the key at once and keeps its metadata; revoking again changes nothing. */
export const revokeApiKey = Effect.fnUntraced(function*(caller: Caller, keyId: ApiKeyId) {
  const apiKeys = yield* AccessStore
  return yield* transaction(Effect.gen(function*() {
    const key = yield* apiKeys.get(caller.orgId, keyId)
    if (Option.isNone(key)) return yield* new ApiKey.ApiKeyNotFound({ apiKeyId: keyId })
    const at = yield* now
    const revoked = ApiKey.revoke(key.value, at)
    if (revoked !== key.value) {
      yield* apiKeys.update(caller.orgId, revoked)
      yield* audit(caller, "api_key.revoke", "api_key", keyId)
    }
    const custom = revoked.role !== null && !Role.isBuiltIn(revoked.role)
      ? Option.getOrNull(yield* apiKeys.roles.get(caller.orgId, revoked.role))
      : null
    return ApiKey.toView(revoked, at.getTime(), custom)
  }))
})

// Authentication ----------------------------------------------------------------------------------

/** How fresh `lastUsedAt` is kept: a key used again within this window is not written again. */
export const lastUsedResolutionMs = 60_000

/** 401: no key, unknown, expired or revoked. The reason is for logs; the answer never says which. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.Literals(["missing", "unknown", "expired", "revoked"])
}) {
  override get message() {
    return `unauthenticated: API key ${this.reason}`
  }
}

/** 404: the organization in the path is not the key's (nothing cross-organization is disclosed). */
export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  orgId: Schema.String
}) {
  override get message() {
    return `no organization ${this.orgId} for this API key`
  }
}

export interface Principal {
  readonly orgId: OrgId
  readonly apiKeyId: ApiKeyId
  readonly serviceAccountId: ServiceAccountId
  readonly permissions: ReadonlyArray<Permission>
  /** The key's role (a built-in name or a custom role's id), `null` for an explicit permission set. */
  readonly role: Role.RoleRef | null
}

/**
 * What an operation requires: permissions, and for a few operations one of some built-in roles
 * (spec 5.8: creating webhooks needs Owner or Security Administrator, not only `webhooks:manage`).
 */
export interface Requirement {
  readonly permissions: ReadonlyArray<Permission>
  readonly roles?: ReadonlyArray<RoleName> | undefined
}

/**
 * Contracts section 4, first failure wins: 401 (missing, unknown, expired, revoked) -> 404 (org in
 * the path is not the key's) -> 403 (edition or grant) -> 403 (missing permission). The secret is
 * only ever hashed; the stored hash is found by an index, so no secret comparison runs in JS.
 */
export const authenticate = (
  secret: string | undefined,
  orgIdInPath: string,
  required: ReadonlyArray<Permission> | Requirement
): Effect.Effect<Principal, AuthenticationError, AccessStore | SecretHasher> =>
  Effect.flatMap(Effect.context<AccessStore | SecretHasher>(), (services) => authenticateWith(services, secret, orgIdInPath, required))

/**
 * `authenticate` with its services given: for a caller that holds them already (the host's
 * middleware, since its layer was built), so no request pays for a context lookup or for providing
 * them. Same checks, same order.
 */
export const authenticateWith = (
  services: Context.Context<AccessStore | SecretHasher>,
  secret: string | undefined,
  orgIdInPath: string,
  required: ReadonlyArray<Permission> | Requirement
): Effect.Effect<Principal, AuthenticationError> => {
  if (secret === undefined || secret === "") return Effect.fail(new Unauthenticated({ reason: "missing" }))
  if (!ApiKey.looksLikeSecret(secret)) return Effect.fail(new Unauthenticated({ reason: "unknown" }))
  // a plain chain, not a generator: this runs on every request, and each generator step is an
  // Effect step of its own (about half of this workflow's cost)
  const apiKeys = Context.get(services, AccessStore)
  return Effect.flatMap(
    Effect.flatMap(Context.get(services, SecretHasher).hash(secret), (hash) => apiKeys.findBySecretHash(hash)),
    (match) => {
      if (Option.isNone(match)) return Effect.fail(new Unauthenticated({ reason: "unknown" }))
      return Effect.clockWith((clock) => {
        const { customRole, key, orgId, organization } = match.value
        const at = clock.currentTimeMillisUnsafe()
        const status = ApiKey.status(key, at)
        if (status !== "active") return Effect.fail(new Unauthenticated({ reason: status }))
        const checked = checkAccess(key, customRole, orgId, organization, orgIdInPath, required, at)
        // lastUsedAt (contracts 5) tells a rotating owner whether the old key is still in use (spec
        // 5.7). Recorded at most once a minute per key, so a busy key does not write on every
        // request; `touch` sets only that field, so it never undoes a concurrent revocation.
        return key.lastUsedAt === null || at - Date.parse(key.lastUsedAt) >= lastUsedResolutionMs
          ? Effect.andThen(apiKeys.touch(orgId, key.id, new Date(at).toISOString()), checked)
          : checked
      })
    }
  )
}

/**
 * After the key is known active: 404 (another organization) -> 403 (edition) -> 403 (permission,
 * with a custom role's permissions as stored now) -> 403 (a role the operation needs by name).
 */
const checkAccess = (
  key: ApiKey.ApiKey,
  customRole: Role.CustomRole | null,
  orgId: OrgId,
  organization: Organization,
  orgIdInPath: string,
  required: ReadonlyArray<Permission> | Requirement,
  at: number
): Effect.Effect<Principal, AuthenticationError> => {
  if (orgId !== orgIdInPath) return Effect.fail(new OrganizationNotFound({ orgId: orgIdInPath }))
  const edition = checkAutomationApi(organization, at)
  if (Result.isFailure(edition)) return Effect.fail(edition.failure)
  const permissions = ApiKey.grantedPermissions(key, customRole)
  const requirement: Requirement = isRequirement(required) ? required : { permissions: required }
  const granted = requirePermissions(permissions, requirement.permissions)
  if (Result.isFailure(granted)) return Effect.fail(granted.failure)
  if (requirement.roles !== undefined) {
    const role = Role.requireRole(key.role, requirement.roles)
    if (Result.isFailure(role)) return Effect.fail(role.failure)
  }
  return Effect.succeed({ orgId, apiKeyId: key.id, serviceAccountId: key.serviceAccountId, permissions, role: key.role })
}

const isRequirement = (required: ReadonlyArray<Permission> | Requirement): required is Requirement => !Array.isArray(required)

/** Every way `authenticate` refuses a key, in the order it checks them. */
export type AuthenticationError =
  | Unauthenticated
  | OrganizationNotFound
  | AutomationApiNotIncluded
  | PermissionDenied
  | Role.RoleRequired
