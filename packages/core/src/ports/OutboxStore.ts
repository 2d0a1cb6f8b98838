/**
 * The event outbox: events appended in the transaction of the change that causes them, one
 * delivery per event and destination, claimed and recorded by the delivery worker.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { EventId, OrgId, WebhookId } from "../Id.js"
import type { Owners } from "../Lease.js"
import type {
  ClaimedWebhookDelivery,
  FailingDelivery,
  FailingDeliveryFilter,
  OutboxEvent,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryWithAttempts
} from "../Outbox.js"
import type { Page, PageRequest } from "../Page.js"

/** A new event and the destinations it fans out to (one delivery row each). */
export interface NewOutboxEvent {
  readonly event: OutboxEvent
  readonly destinations: ReadonlyArray<WebhookId>
}

/** One delivery, as a lease renewal names it. */
export interface DeliveryKey {
  readonly orgId: string
  readonly eventId: string
  readonly webhookId: string
}

/** One attempt to record with its delivery's new state (`OutboxStore.recordMany`). */
export interface AttemptRecord {
  readonly orgId: OrgId
  readonly attempt: WebhookDeliveryAttempt
  readonly next: Pick<WebhookDelivery, "status" | "nextAttemptAt">
}

/** The pending part of the outbox (`OutboxStore.backlog`). */
export interface OutboxBacklog {
  readonly pending: number
  readonly oldestPendingAt: string | null
}

export class OutboxStore extends Context.Service<OutboxStore, {
  /** Appends the events and their deliveries in one write (whatever the number of events and destinations). */
  readonly append: (orgId: OrgId, events: ReadonlyArray<NewOutboxEvent>) => Effect.Effect<void>
  readonly getEvent: (orgId: OrgId, id: EventId) => Effect.Effect<Option.Option<OutboxEvent>>
  /**
   * Claims up to `limit` pending deliveries due at `now` whose lease is free or expired, leasing
   * them to `worker` until `now + leaseMs`. Two workers never hold the same delivery at once
   * (SKIP LOCKED on PostgreSQL); a crashed worker's lease simply expires.
   */
  readonly claim: (options: {
    readonly worker: string
    readonly now: Date
    readonly leaseMs: number
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<ClaimedWebhookDelivery>>
  /**
   * Extends to `now + leaseMs` the leases `worker` still holds among `deliveries` (one write,
   * whatever their number) and answers those: a delivery missing from the answer was recorded,
   * released or claimed by another worker, and must not be attempted by this one.
   */
  readonly renew: (options: {
    readonly worker: string
    readonly now: Date
    readonly leaseMs: number
    readonly deliveries: ReadonlyArray<DeliveryKey>
  }) => Effect.Effect<ReadonlyArray<DeliveryKey>>
  /**
   * Frees the leases of `owners` (Lease.Owners): their deliveries are claimable at once, due as
   * before. Answers how many were freed.
   */
  readonly release: (owners: Owners) => Effect.Effect<number>
  /** Records one attempt and the delivery's new state, releasing the lease: both or neither (atomic on its own). */
  readonly recordAttempt: (
    orgId: OrgId,
    attempt: WebhookDeliveryAttempt,
    next: Pick<WebhookDelivery, "status" | "nextAttemptAt">
  ) => Effect.Effect<void>
  /**
   * `recordAttempt` for many deliveries (any organizations) in one write, all or none: what a
   * worker's lanes finished meanwhile goes to the store in one statement instead of one each.
   * Each record names a different delivery; a delivery that is gone records no attempt.
   */
  readonly recordMany: (records: ReadonlyArray<AttemptRecord>) => Effect.Effect<void>
  /**
   * A destination's deliveries, each with its event's type and its attempts (`attempts` order), in
   * one read: never one read per delivery.
   */
  readonly deliveries: (orgId: OrgId, webhookId: WebhookId, page: PageRequest) => Effect.Effect<Page<WebhookDeliveryWithAttempts>>
  /**
   * The organization's failing deliveries (`Outbox.matchesFailing`), every destination at once,
   * newest first (`Outbox.failingKey`), each with its destination's name, its event's type and its
   * last attempt, in one read.
   */
  readonly failingDeliveries: (orgId: OrgId, filter: FailingDeliveryFilter, page: PageRequest) => Effect.Effect<Page<FailingDelivery>>
  /** One delivery's attempts, oldest first. */
  readonly attempts: (orgId: OrgId, eventId: EventId, webhookId: WebhookId) => Effect.Effect<ReadonlyArray<WebhookDeliveryAttempt>>
  /**
   * Unscoped, for the `/metrics` scrape: how many deliveries are pending (every organization) and
   * the `time` of the oldest event among them (`null` when none is pending). One read.
   */
  readonly backlog: () => Effect.Effect<OutboxBacklog>
  /** Puts a dead delivery back to pending, due now (replay keeps the CloudEvent id). */
  readonly requeue: (orgId: OrgId, eventId: EventId, webhookId: WebhookId, now: Date) => Effect.Effect<boolean>
}>()("@image-policy/core/OutboxStore") {}
