/**
 * Audit trail rows: who did what to which resource, with which outcome, and when.
 * Rows never hold secrets: the actor is named by key id and service account, never by key.
 */
import * as Schema from "effect/Schema"
import { ApiKeyId, AuditEventId, ServiceAccountId } from "./Id.js"

export const Actor = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("apiKey"), apiKeyId: ApiKeyId, serviceAccountId: ServiceAccountId }),
  Schema.Struct({ kind: Schema.Literal("system"), name: Schema.String })
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
