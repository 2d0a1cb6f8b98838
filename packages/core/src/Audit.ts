/**
 * Audit trail rows: who did what to which resource, with which outcome, and when.
 * Rows never hold secrets: the actor is named by key id and service account, never by key; a
 * member signed in to the web console by its member id, never by email, password or session token.
 */
import * as Schema from "effect/Schema"
import { ApiKeyId, AuditEventId, MemberId, ServiceAccountId } from "./Id.js"
import { IsoDateTime } from "./IsoDateTime.js"
import { StorableString } from "./Text.js"

export const Actor = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("apiKey"), apiKeyId: ApiKeyId, serviceAccountId: ServiceAccountId }),
  Schema.Struct({ kind: Schema.Literal("system"), name: Schema.String }),
  // a member acting through a browser session (issue 17)
  Schema.Struct({ kind: Schema.Literal("member"), memberId: MemberId })
])
export type Actor = typeof Actor.Type

export const Outcome = Schema.Literals(["success", "rejected"])
export type Outcome = typeof Outcome.Type

export const AuditEvent = Schema.Struct({
  id: AuditEventId,
  at: Schema.String,
  actor: Actor,
  action: Schema.String,
  resourceType: Schema.String,
  resourceId: Schema.NullOr(Schema.String),
  outcome: Outcome,
  /** A machine-readable code such as the error tag of a rejection; never a raw message. */
  detail: Schema.NullOr(Schema.String)
})
export type AuditEvent = typeof AuditEvent.Type

/**
 * Who a row names as its actor, as the `actor` filter matches it: the API key id of a key, the
 * member id of a member, the name of a `system` actor (`sync-worker`, `snooze-expiry`, ...).
 */
export const actorName = (actor: Actor): string =>
  actor.kind === "apiKey" ? actor.apiKeyId : actor.kind === "member" ? actor.memberId : actor.name

const FilterText = StorableString.check(Schema.isMinLength(1), Schema.isMaxLength(200))

/**
 * The filters of `GET /audit-events` and its export: every filter given must match. `from` is
 * inclusive and `to` exclusive, both ISO 8601 date-times with a zone.
 */
export const AuditFilter = Schema.Struct({
  actor: Schema.optionalKey(FilterText),
  action: Schema.optionalKey(FilterText),
  resourceType: Schema.optionalKey(FilterText),
  resourceId: Schema.optionalKey(FilterText),
  from: Schema.optionalKey(IsoDateTime),
  to: Schema.optionalKey(IsoDateTime)
})
export type AuditFilter = typeof AuditFilter.Type

const earliest = "0000-01-01T00:00:00.000Z"
const latest = "9999-12-31T23:59:59.999Z"

/**
 * An instant in the form rows store `at` (`Date.toISOString()`, UTC, milliseconds), so bounds
 * compare with `at` as text, in the same order on every store. Instants outside years 0..9999
 * (which `toISOString` writes with a sign, out of text order) are clamped to that range: no row
 * is written outside it.
 */
export const boundText = (iso: string): string => {
  const ms = Date.parse(iso)
  if (ms < Date.parse(earliest)) return earliest
  if (ms > Date.parse(latest)) return latest
  return new Date(ms).toISOString()
}

/** The filter with its bounds in stored form (`boundText`): what the stores compare with. */
export const normalizeFilter = (filter: AuditFilter): AuditFilter => ({
  ...filter,
  ...(filter.from !== undefined ? { from: boundText(filter.from) } : {}),
  ...(filter.to !== undefined ? { to: boundText(filter.to) } : {})
})

/** Whether a row passes a filter already normalized by `normalizeFilter`. */
export const matches = (filter: AuditFilter, event: AuditEvent): boolean =>
  (filter.actor === undefined || actorName(event.actor) === filter.actor) &&
  (filter.action === undefined || event.action === filter.action) &&
  (filter.resourceType === undefined || event.resourceType === filter.resourceType) &&
  (filter.resourceId === undefined || event.resourceId === filter.resourceId) &&
  (filter.from === undefined || event.at >= filter.from) &&
  (filter.to === undefined || event.at < filter.to)
