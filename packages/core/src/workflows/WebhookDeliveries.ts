/**
 * Webhook deliveries (spec 6; contracts 5): a destination's deliveries with their attempts,
 * dead-letter replay, and one delivery attempt as the worker runs it. The endpoint URL and signing
 * secret are opened only to send.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as DeliveryPolicy from "../DeliveryPolicy.js"
import type { EventId, WebhookId } from "../Id.js"
import type { ClaimedWebhookDelivery, FailingDeliveryFilter, WebhookDeliveryAttempt } from "../Outbox.js"
import type { PageRequest } from "../Page.js"
import { type AttemptRecord, OutboxStore } from "../ports/OutboxStore.js"
import { SecretBox } from "../ports/SecretBox.js"
import { transaction } from "../ports/Transaction.js"
import { type SendFailure, WebhookSender } from "../ports/WebhookSender.js"
import { WebhookStore } from "../ports/WebhookStore.js"
import * as Webhook from "../Webhook.js"
import { audit, type Caller, now } from "./Caller.js"
import { loadDestination } from "./WebhookAccess.js"

/** Deliveries of a destination with their attempts (status code, duration, next retry; dead letters). */
export const listWebhookDeliveries = Effect.fnUntraced(function*(caller: Caller, id: WebhookId, page: PageRequest) {
  const outbox = yield* OutboxStore
  yield* loadDestination(caller, id)
  return yield* outbox.deliveries(caller.orgId, id, page)
})

/**
 * The organization's failing deliveries, every destination in one list, newest first: each with
 * its destination, event type, attempt count and last error (`GET /deliveries`). A `webhookId`
 * that names no destination of the organization matches nothing.
 */
export const listDeliveries = Effect.fnUntraced(function*(caller: Caller, filter: FailingDeliveryFilter, page: PageRequest) {
  const outbox = yield* OutboxStore
  return yield* outbox.failingDeliveries(caller.orgId, filter, page)
})

/** Puts a dead letter back in the queue, due now; it is sent with the same CloudEvent id. */
export const replayWebhookDelivery = Effect.fnUntraced(function*(caller: Caller, id: WebhookId, eventId: EventId) {
  const outbox = yield* OutboxStore
  return yield* transaction(Effect.gen(function*() {
    yield* loadDestination(caller, id)
    if (Option.isNone(yield* outbox.getEvent(caller.orgId, eventId))) {
      return yield* new Webhook.DeliveryNotFound({ webhookId: id, eventId })
    }
    const requeued = yield* outbox.requeue(caller.orgId, eventId, id, yield* now)
    if (!requeued) return yield* new Webhook.DeliveryNotDead({ eventId, status: "not dead" })
    yield* audit(caller, "webhook.replay", "webhook", id)
    return { eventId, status: "pending" as const }
  }))
})

// The worker's attempt ---------------------------------------------------------------------------

export interface DeliveryConfig {
  readonly publicUrl: string
  readonly timeoutMs: number
  readonly schedule: ReadonlyArray<number>
}

const outcomeOf = (result: { readonly statusCode: number } | SendFailure): DeliveryPolicy.Outcome =>
  "statusCode" in result
    ? { _tag: "Response", status: result.statusCode }
    : result.code === "timeout"
    ? { _tag: "Timeout" }
    : { _tag: "NetworkError" }

/** A delivery's state after an attempt. */
export interface NextState {
  readonly status: "pending" | "succeeded" | "dead"
  readonly nextAttemptAt: string | null
}

/** What one attempt ended in: the attempt and the delivery's next state to record, and a 410's disabling. */
export interface DeliveryOutcome {
  readonly record: AttemptRecord & { readonly next: NextState }
  /** The reason the destination is to be disabled with the record (a 410 Gone), or undefined. */
  readonly disable: string | undefined
}

/**
 * One attempt of one claimed delivery to its destination as read before it (`None`: deleted):
 * send and classify with the core's policy. Writes nothing: the outcome goes to `recordOutcome`,
 * or to the store's `recordMany` with others (the worker batches them). A destination that is
 * gone or disabled turns the delivery into a dead letter, which can be replayed once the endpoint
 * is fixed.
 */
// a span without the call-site stack `Effect.fn` captures on every call: this runs once per delivery
export const attemptDelivery = Effect.fnUntraced(function*(
  claimed: ClaimedWebhookDelivery,
  destination: Option.Option<Webhook.WebhookDestination>,
  config: DeliveryConfig
) {
  const box = yield* SecretBox
  const sender = yield* WebhookSender
  const orgId = claimed.orgId as Caller["orgId"]
  const { delivery, event } = claimed
  const attemptNumber = delivery.attempts + 1
  const started = yield* Clock.currentTimeMillis
  const outcome = (
    fields: Pick<WebhookDeliveryAttempt, "statusCode" | "durationMs" | "outcome" | "errorCode">,
    next: NextState,
    disable?: string
  ) =>
    Effect.map(Clock.currentTimeMillis, (now): DeliveryOutcome => ({
      record: {
        orgId,
        attempt: {
          eventId: delivery.eventId,
          webhookId: delivery.webhookId,
          attempt: attemptNumber,
          at: new Date(now).toISOString(),
          ...fields
        },
        next
      },
      disable
    }))
  if (Option.isNone(destination) || destination.value.status !== "active") {
    return yield* outcome({ statusCode: null, durationMs: 0, outcome: "fail", errorCode: "destination-disabled" }, {
      status: "dead",
      nextAttemptAt: null
    })
  }
  const opened = yield* Effect.all([
    box.open(destination.value.endpointSealed),
    destination.value.signingSecretSealed === null ? Effect.succeed(null) : box.open(destination.value.signingSecretSealed)
  ]).pipe(Effect.option)
  if (Option.isNone(opened)) {
    return yield* outcome({ statusCode: null, durationMs: 0, outcome: "fail", errorCode: "secret-unavailable" }, {
      status: "dead",
      nextAttemptAt: null
    })
  }
  const [endpointUrl, signingSecret] = opened.value
  const result = yield* sender.send({
    type: destination.value.type,
    chatPlatform: Webhook.chatPlatformOf(destination.value),
    endpointUrl,
    signingSecret,
    orgId,
    event,
    publicUrl: config.publicUrl,
    timeoutMs: config.timeoutMs
  }).pipe(Effect.match({ onFailure: (failure) => failure, onSuccess: (success) => success }))
  const classification = DeliveryPolicy.classifyResponse(outcomeOf(result))
  const finished = yield* Clock.currentTimeMillis
  const retryAfter = "statusCode" in result ? DeliveryPolicy.parseRetryAfter(result.retryAfter, finished) : Option.none()
  const step = DeliveryPolicy.nextStep({
    attempt: attemptNumber,
    classification,
    schedule: config.schedule,
    retryAfterSeconds: Option.getOrUndefined(retryAfter),
    jitter: yield* Random.next
  })
  const fields = {
    statusCode: "statusCode" in result ? result.statusCode : null,
    durationMs: "statusCode" in result ? Math.round(result.durationMs) : Math.round(finished - started),
    outcome: classification,
    errorCode: "statusCode" in result ? null : result.code
  }
  switch (step._tag) {
    case "Succeeded":
      return yield* outcome(fields, { status: "succeeded", nextAttemptAt: null })
    case "Retry":
      return yield* outcome(fields, { status: "pending", nextAttemptAt: new Date(finished + step.delayMs).toISOString() })
    case "DeadLetter":
      return yield* outcome(fields, { status: "dead", nextAttemptAt: null })
    case "Disable":
      return yield* outcome(fields, { status: "dead", nextAttemptAt: null }, "the endpoint answered 410 Gone")
  }
}, Effect.withSpan("WebhookDeliveries.attemptDelivery", undefined, { captureStackTrace: false }))

/**
 * Records an attempt's outcome: the attempt with the delivery's next state in one atomic store
 * write, in one transaction with the destination's disabling after a 410. Returns the next status.
 */
export const recordOutcome = ({ disable, record }: DeliveryOutcome) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
    const recorded = outbox.recordAttempt(record.orgId, record.attempt, record.next)
    if (disable === undefined) yield* recorded
    else {
      const webhooks = yield* WebhookStore
      yield* transaction(Effect.gen(function*() {
        yield* recorded
        const current = yield* webhooks.get(record.orgId, record.attempt.webhookId)
        if (Option.isSome(current)) {
          yield* webhooks.update(record.orgId, { ...current.value, status: "disabled", disabledReason: disable })
        }
      }))
    }
    return record.next.status
  })

/**
 * One attempt of one claimed delivery as a whole: read its destination, send, and record the
 * attempt with the delivery's next state (`attemptDelivery`, then `recordOutcome`).
 */
export const deliver = Effect.fn("WebhookDeliveries.deliver")(function*(claimed: ClaimedWebhookDelivery, config: DeliveryConfig) {
  const webhooks = yield* WebhookStore
  const destination = yield* webhooks.get(claimed.orgId as Caller["orgId"], claimed.delivery.webhookId)
  return yield* recordOutcome(yield* attemptDelivery(claimed, destination, config))
})
