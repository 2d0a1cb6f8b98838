/**
 * Opaque identifiers: a kind prefix plus 128 random bits in lowercase base32 (26 characters).
 * Ids are never derived from names and never reused across organizations (spec section 2).
 */
import * as Schema from "effect/Schema"

export const prefixes = {
  organization: "org",
  serviceAccount: "sa",
  team: "team",
  routine: "rtn",
  vcsConnection: "vcs",
  repository: "repo",
  policyGroup: "pg",
  phase: "ph",
  mapping: "map",
  apiKey: "key",
  webhook: "wh",
  snoozeRequest: "snz",
  event: "evt",
  audit: "aud",
  scan: "scan",
  remediation: "rem",
  member: "mbr",
  role: "role",
  session: "ses"
} as const

export type Kind = keyof typeof prefixes

const BASE32 = "0123456789abcdefghjkmnpqrstvwxyz"

/** Encodes 16 random bytes as 26 base32 characters (Crockford alphabet, lowercase). */
export const encodeRandom = (bytes: Uint8Array): string => {
  let out = ""
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31]
  return out
}

/** Builds an id of a kind from 16 random bytes supplied by the `Ids` port. */
/** A fresh id of `kind`: the one place where an id is made, so the only place its brand is asserted. */
export const make = <K extends Kind>(kind: K, randomBytes: Uint8Array): IdOfKind[K] =>
  `${prefixes[kind]}_${encodeRandom(randomBytes)}` as IdOfKind[K]

// Seeds may fix an organization id; everything else is `prefix_` + base32.
// the `u` flag makes the pattern part of the JSON Schema (Effect 4 exports only unicode RegExps)
const idPattern = (prefix: string) => new RegExp(`^${prefix}_[0-9a-z_]{1,64}$`, "u")

const idSchema = <B extends string>(kind: Kind, brand: B) => {
  const message = `must be a ${kind} id (${prefixes[kind]}_…)`
  return Schema.String.check(Schema.isPattern(idPattern(prefixes[kind]), { message })).pipe(
    // generic B cannot prove EnsureSingleBrandKey<B>; each call passes one literal brand
    Schema.brand<B>(brand as B & never)
  )
}

export const OrgId = idSchema("organization", "OrgId")
export type OrgId = typeof OrgId.Type
export const ServiceAccountId = idSchema("serviceAccount", "ServiceAccountId")
export type ServiceAccountId = typeof ServiceAccountId.Type
export const TeamId = idSchema("team", "TeamId")
export type TeamId = typeof TeamId.Type
export const RoutineId = idSchema("routine", "RoutineId")
export type RoutineId = typeof RoutineId.Type
export const VcsConnectionId = idSchema("vcsConnection", "VcsConnectionId")
export type VcsConnectionId = typeof VcsConnectionId.Type
export const RepositoryId = idSchema("repository", "RepositoryId")
export type RepositoryId = typeof RepositoryId.Type
export const PolicyGroupId = idSchema("policyGroup", "PolicyGroupId")
export type PolicyGroupId = typeof PolicyGroupId.Type
export const PhaseId = idSchema("phase", "PhaseId")
export type PhaseId = typeof PhaseId.Type
export const MappingId = idSchema("mapping", "MappingId")
export type MappingId = typeof MappingId.Type
export const ApiKeyId = idSchema("apiKey", "ApiKeyId")
export type ApiKeyId = typeof ApiKeyId.Type
export const WebhookId = idSchema("webhook", "WebhookId")
export type WebhookId = typeof WebhookId.Type
export const SnoozeRequestId = idSchema("snoozeRequest", "SnoozeRequestId")
export type SnoozeRequestId = typeof SnoozeRequestId.Type
export const EventId = idSchema("event", "EventId")
export type EventId = typeof EventId.Type
export const AuditEventId = idSchema("audit", "AuditEventId")
export type AuditEventId = typeof AuditEventId.Type
export const ScanId = idSchema("scan", "ScanId")
export type ScanId = typeof ScanId.Type
export const RemediationId = idSchema("remediation", "RemediationId")
export type RemediationId = typeof RemediationId.Type

/** The branded id type of each kind: what `make` and the `Ids` port answer. */
export interface IdOfKind {
  readonly organization: OrgId
  readonly serviceAccount: ServiceAccountId
  readonly team: TeamId
  readonly routine: RoutineId
  readonly vcsConnection: VcsConnectionId
  readonly repository: RepositoryId
  readonly policyGroup: PolicyGroupId
  readonly phase: PhaseId
  readonly mapping: MappingId
  readonly apiKey: ApiKeyId
  readonly webhook: WebhookId
  readonly snoozeRequest: SnoozeRequestId
  readonly event: EventId
  readonly audit: AuditEventId
  readonly scan: ScanId
  readonly remediation: RemediationId
  readonly member: MemberId
  readonly role: RoleId
  readonly session: SessionId
}
export const MemberId = idSchema("member", "MemberId")
export type MemberId = typeof MemberId.Type
export const RoleId = idSchema("role", "RoleId")
export type RoleId = typeof RoleId.Type
export const SessionId = idSchema("session", "SessionId")
export type SessionId = typeof SessionId.Type
