/**
 * API keys (spec 2, 3, 5.6-5.7, 8; contracts 5). The secret exists only in the create answer;
 * the store keeps its hash (computed by the adapters) and a short prefix for display.
 */
import * as Schema from "effect/Schema"
import { ApiKeyId, ServiceAccountId } from "./Id.js"
import { encodeRandom } from "./Id.js"
import { Permission } from "./Permission.js"
import { type CustomRole, permissionsOf, RoleRef } from "./Role.js"
import { storable } from "./Text.js"

export const expiryPresets = [30, 90, 180, 365] as const
const DAY_MS = 86_400_000

/** 1..365 days, or `null` for an explicitly unlimited key (spec 8). */
export const ExpiresInDays = Schema.NullOr(
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 365 }, { message: "must be an integer from 1 to 365, or null for unlimited" }))
)

const Name = storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(100)))

/**
 * A role OR an explicit permission set (spec 5.6). Each form refuses the other's field: a body with
 * both would otherwise decode as a role key and silently drop the permissions the caller asked for.
 */
const Excluded = (other: string) =>
  Schema.optionalKey(
    // Never is already `{ not: {} }` in JSON Schema
    Schema.Never.annotate({
      message: `give either role or permissions, not both (${other} given)`,
      description: `not allowed together with \`${other}\``
    })
  )

export const ApiKeyCreateRequest = Schema.Union([
  // `role`: a built-in role's name or a custom role's id (Role.RoleRef)
  Schema.Struct({ name: Name, role: RoleRef, permissions: Excluded("role"), expiresInDays: ExpiresInDays }),
  Schema.Struct({ name: Name, permissions: Schema.NonEmptyArray(Permission), role: Excluded("permissions"), expiresInDays: ExpiresInDays })
])
export type ApiKeyCreateRequest = typeof ApiKeyCreateRequest.Type

export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  serviceAccountId: ServiceAccountId,
  name: Schema.String,
  prefix: Schema.String,
  secretHash: Schema.String,
  role: Schema.NullOr(RoleRef),
  /** Explicit permission set; empty for role keys, whose permissions are resolved at check time. */
  permissions: Schema.Array(Permission),
  expiresAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String),
  lastUsedAt: Schema.NullOr(Schema.String),
  createdAt: Schema.String
})
export type ApiKey = typeof ApiKey.Type

export const ApiKeyStatus = Schema.Literals(["active", "expired", "revoked"])
export type ApiKeyStatus = typeof ApiKeyStatus.Type

/** Revocation wins over expiry: a revoked key reads as revoked forever. */
export const status = (key: ApiKey, nowMs: number): ApiKeyStatus =>
  key.revokedAt !== null
    ? "revoked"
    : key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs
    ? "expired"
    : "active"

export const expiresAt = (createdAt: Date, days: number | null): string | null =>
  days === null ? null : new Date(createdAt.getTime() + days * DAY_MS).toISOString()

/** `custom`: the custom role the key names, as stored now (none for built-in roles and explicit sets). */
export const grantedPermissions = (key: ApiKey, custom?: CustomRole | null): ReadonlyArray<Permission> =>
  permissionsOf(key.role, key.permissions, custom)

export const SECRET_PREFIX = "ipk_"

/** `ipk_` + 52 base32 characters from 32 random bytes (supplied by the `Ids` port). */
export const formatSecret = (bytes: Uint8Array): string =>
  SECRET_PREFIX + encodeRandom(bytes.subarray(0, 16)) + encodeRandom(bytes.subarray(16, 32))

/** Secrets the service mints (`ipk_` + 52 base32) and seeded secrets (contracts 2: at least 32 printable characters). */
const minSecretLength = 32
const maxSecretLength = 256
const secretPattern = new RegExp(`^[\\x21-\\x7e]{${minSecretLength},${maxSecretLength}}$`)
/** A cheap syntactic check before hashing, so junk headers cost nothing. */
export const looksLikeSecret = (text: string): boolean => secretPattern.test(text)

/** What lists show to recognise a key: the scheme and the first 8 random characters. */
export const secretPrefix = (secret: string): string =>
  // a seeded secret has no public scheme part: show only 4 of its characters
  secret.startsWith(SECRET_PREFIX) ? secret.slice(0, SECRET_PREFIX.length + 8) : secret.slice(0, 4)

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", { apiKeyId: Schema.String }) {
  override get message() {
    return `no API key ${this.apiKeyId} in this organization`
  }
}

/** Revocation keeps every field for audit; revoking twice keeps the first revocation time. */
export const revoke = (key: ApiKey, now: Date): ApiKey => key.revokedAt !== null ? key : { ...key, revokedAt: now.toISOString() }

const viewFields = {
  id: ApiKeyId,
  name: Schema.String,
  prefix: Schema.String,
  role: Schema.optionalKey(RoleRef),
  permissions: Schema.Array(Permission),
  expiresAt: Schema.NullOr(Schema.String)
}

export const ApiKeyView = Schema.Struct({
  ...viewFields,
  status: ApiKeyStatus,
  revokedAt: Schema.NullOr(Schema.String),
  lastUsedAt: Schema.NullOr(Schema.String),
  createdAt: Schema.String
})
export type ApiKeyView = typeof ApiKeyView.Type

/** The create answer: the only place the secret is ever shown. */
export const ApiKeyCreated = Schema.Struct({ ...viewFields, secret: Schema.String })
export type ApiKeyCreated = typeof ApiKeyCreated.Type

export const toView = (key: ApiKey, nowMs: number, custom?: CustomRole | null): ApiKeyView => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  ...(key.role !== null ? { role: key.role } : {}),
  permissions: grantedPermissions(key, custom),
  expiresAt: key.expiresAt,
  status: status(key, nowMs),
  revokedAt: key.revokedAt,
  lastUsedAt: key.lastUsedAt,
  createdAt: key.createdAt
})
