/**
 * The event outbox: events are written in the same transaction as the change that causes them,
 * fanned out to one delivery row per matching destination, and delivered later by a worker.
 */
import * as Schema from "effect/Schema"
import { EventId, WebhookId } from "./Id.js"

export const OutboxEvent = Schema.Struct({
  id: EventId,
  type: Schema.String,
  subject: Schema.String,
  time: Schema.String,
  correlationId: Schema.String,
  data: Schema.Unknown
})
export type OutboxEvent = typeof OutboxEvent.Type

export const WebhookDeliveryStatus = Schema.Literals(["pending", "succeeded", "dead", "cancelled"])
export type WebhookDeliveryStatus = typeof WebhookDeliveryStatus.Type

export const WebhookDelivery = Schema.Struct({
  eventId: EventId,
  webhookId: WebhookId,
  status: WebhookDeliveryStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.String),
  lastStatusCode: Schema.NullOr(Schema.Int),
  updatedAt: Schema.String
})
export type WebhookDelivery = typeof WebhookDelivery.Type

export const WebhookDeliveryAttempt = Schema.Struct({
  eventId: EventId,
  webhookId: WebhookId,
  attempt: Schema.Int,
  at: Schema.String,
  statusCode: Schema.NullOr(Schema.Int),
  durationMs: Schema.Int,
  /** "success" | "retry" | "disable" | "fail": the core's classification of the answer. */
  outcome: Schema.String,
  /** A short code ("timeout", "network", "ssrf-refused"), never a raw error text. */
  errorCode: Schema.NullOr(Schema.String)
})
export type WebhookDeliveryAttempt = typeof WebhookDeliveryAttempt.Type

/** A delivery as its destination's deliveries list shows it: its event's type and every attempt, oldest first. */
export interface WebhookDeliveryWithAttempts extends WebhookDelivery {
  /** The event's type; null only for a delivery whose event row is gone. */
  readonly type: string | null
  readonly attemptsDetail: ReadonlyArray<WebhookDeliveryAttempt>
}

/** A delivery claimed by a worker together with what it needs to send it. */
export interface ClaimedWebhookDelivery {
  readonly orgId: string
  readonly delivery: WebhookDelivery
  readonly event: OutboxEvent
}
