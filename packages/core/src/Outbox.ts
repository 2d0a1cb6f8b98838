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

/**
 * A delivery that needs attention, as the organization's deliveries list names it: `dead` (a
 * dead letter, replayable) or `failed` (an attempt failed and a retry is pending).
 */
export const FailingStatus = Schema.Literals(["failed", "dead"])
export type FailingStatus = typeof FailingStatus.Type

/** The failing status of a delivery, or null for one that is not failing (never tried, succeeded, cancelled). */
export const failingStatus = (delivery: Pick<WebhookDelivery, "status" | "attempts">): FailingStatus | null =>
  delivery.status === "dead" ? "dead" : delivery.status === "pending" && delivery.attempts > 0 ? "failed" : null

/** The filters of the organization's deliveries list: no `status` means both failing statuses. */
export interface FailingDeliveryFilter {
  readonly status?: FailingStatus | undefined
  readonly webhookId?: string | undefined
}

export const matchesFailing = (filter: FailingDeliveryFilter, delivery: WebhookDelivery): boolean => {
  const failing = failingStatus(delivery)
  return failing !== null && (filter.status === undefined || failing === filter.status) &&
    (filter.webhookId === undefined || delivery.webhookId === filter.webhookId)
}

/** What the last attempt of a failing delivery says went wrong (codes only, never a raw error). */
export const LastError = Schema.Struct({
  at: Schema.String,
  statusCode: Schema.NullOr(Schema.Int),
  outcome: Schema.String,
  errorCode: Schema.NullOr(Schema.String)
})
export type LastError = typeof LastError.Type

export const lastErrorOf = (attempt: WebhookDeliveryAttempt | undefined): LastError | null =>
  attempt === undefined
    ? null
    : { at: attempt.at, statusCode: attempt.statusCode, outcome: attempt.outcome, errorCode: attempt.errorCode }

/** One failing delivery of the organization, with its destination and event type (`GET /deliveries`). */
export const FailingDelivery = Schema.Struct({
  eventId: EventId,
  destinationId: WebhookId,
  /** Null only for a destination deleted meanwhile. */
  destinationName: Schema.NullOr(Schema.String),
  /** The event's type; null only for a delivery whose event row is gone. */
  type: Schema.NullOr(Schema.String),
  status: FailingStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Schema.String),
  lastStatusCode: Schema.NullOr(Schema.Int),
  updatedAt: Schema.String,
  lastError: Schema.NullOr(LastError)
})
export type FailingDelivery = typeof FailingDelivery.Type

/**
 * The keyset position of a failing delivery: newest first by (updatedAt, eventId, webhookId). The
 * two ids join with a space, below every character an id holds, so the joined text orders as the pair.
 */
export const failingKey = (d: { readonly updatedAt: string; readonly eventId: string; readonly destinationId: string }) =>
  [d.updatedAt, `${d.eventId} ${d.destinationId}`] as const
