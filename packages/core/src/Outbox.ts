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

export const DeliveryStatus = Schema.Literals(["pending", "succeeded", "dead", "cancelled"])
export type DeliveryStatus = typeof DeliveryStatus.Type

export const Delivery = Schema.Struct({
  eventId: EventId,
  webhookId: WebhookId,
  status: DeliveryStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.String),
  lastStatusCode: Schema.NullOr(Schema.Int),
  updatedAt: Schema.String
})
export type Delivery = typeof Delivery.Type

export const DeliveryAttempt = Schema.Struct({
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
export type DeliveryAttempt = typeof DeliveryAttempt.Type

/** A delivery as its destination's deliveries list shows it: its event's type and every attempt, oldest first. */
export interface DeliveryWithAttempts extends Delivery {
  /** The event's type; null only for a delivery whose event row is gone. */
  readonly type: string | null
  readonly attemptsDetail: ReadonlyArray<DeliveryAttempt>
}

/** A delivery claimed by a worker together with what it needs to send it. */
export interface ClaimedDelivery {
  readonly orgId: string
  readonly delivery: Delivery
  readonly event: OutboxEvent
}
