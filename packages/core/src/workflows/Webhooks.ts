/**
 * Webhook destinations (spec 2, 5.8, 6; contracts 5): create, read, replace the endpoint, rotate
 * the signing secret, test, delete; their deliveries and dead-letter replay; and one delivery
 * attempt as the worker runs it. Endpoint URLs and signing secrets are sealed before they are
 * stored and opened only to send; no answer, audit row or event ever holds them.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Input from "../Input.js"
import * as DeliveryPolicy from "../DeliveryPolicy.js"
import type { EventId, WebhookId } from "../Id.js"
import type { ClaimedWebhookDelivery, WebhookDeliveryAttempt } from "../Outbox.js"
import { Ids } from "../ports/Ids.js"
import { SecretBox } from "../ports/SecretBox.js"
import type { PageRequest } from "../Page.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { OutboxStore } from "../ports/OutboxStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { transaction } from "../ports/Transaction.js"
import { WebhookStore } from "../ports/WebhookStore.js"
import { type SendFailure, WebhookSender } from "../ports/WebhookSender.js"
import * as Webhook from "../Webhook.js"
import { audit, type Caller, emit, InvalidReferenceInBody, now } from "./Caller.js"

const SIGNING_SECRET_BYTES = 32

const loadDestination = (caller: Caller, id: WebhookId) =>
  WebhookStore.use((webhooks) =>
    Effect.flatMap(webhooks.get(caller.orgId, id), Option.match({
      onNone: () => Effect.fail(new Webhook.WebhookNotFound({ webhookId: id })),
      onSome: Effect.succeed
    })))

/** Ids named in the body must exist in this organization (400 naming the path, contracts 4). */
const checkReferences = (caller: Caller, request: Webhook.WebhookCreateRequest) =>
  Effect.gen(function*() {
    const { teams } = yield* OrganizationStore
    const { policyGroups } = yield* PolicyStore
    const team = (path: string, id: string) =>
      Effect.flatMap(teams.get(caller.orgId, id as any), (t) =>
        Option.isNone(t) ? Effect.fail(new InvalidReferenceInBody({ path, message: "no team of this organization has this id" })) : Effect.void)
    if (request.audienceTeamId !== undefined) yield* team("audienceTeamId", request.audienceTeamId)
    if (request.scope.kind === "team") yield* team("scope.teamId", request.scope.teamId)
    if (request.scope.kind === "policyGroup") {
      const group = yield* policyGroups.get(caller.orgId, request.scope.policyGroupId)
      if (Option.isNone(group)) {
        return yield* new InvalidReferenceInBody({ path: "scope.policyGroupId", message: "no policy group of this organization has this id" })
      }
    }
  })

/** The SSRF and syntax check of a URL, with its failure named as the `endpointUrl` field. */
const checkEndpoint = (url: string) =>
  Effect.flatMap(WebhookSender, (sender) =>
    Effect.catchTag(sender.checkEndpoint(url), "UnsafeDestination", (e) =>
      Effect.fail(new InvalidReferenceInBody({ path: "endpointUrl", message: `${e.message}; webhook endpoints must be public HTTPS addresses` }))))

const newSigningSecret = Effect.flatMap(Ids, (ids) => Effect.map(ids.randomBytes(SIGNING_SECRET_BYTES), Webhook.formatSigningSecret))

export const create = Effect.fnUntraced(function*(caller: Caller, request: Webhook.WebhookCreateRequest) {
  yield* Input.validate(Webhook.WebhookCreateRequest, request)
  const webhooks = yield* WebhookStore
  const ids = yield* Ids
  const box = yield* SecretBox
  yield* checkReferences(caller, request)
  yield* checkEndpoint(request.endpointUrl)
  const signingSecret = request.type === "generic" ? yield* newSigningSecret : null
  const destination: Webhook.WebhookDestination = {
    id: (yield* ids.next("webhook")) as WebhookId,
    name: request.name,
    type: request.type,
    endpointSealed: yield* box.seal(request.endpointUrl),
    endpointPreview: Webhook.endpointPreview(request.endpointUrl),
    signingSecretSealed: signingSecret === null ? null : yield* box.seal(signingSecret),
    audienceTeamId: request.audienceTeamId ?? null,
    scope: request.scope,
    events: [...new Set(request.events)],
    status: "active",
    disabledReason: null,
    createdAt: (yield* now).toISOString()
  }
  yield* transaction(Effect.gen(function*() {
    yield* webhooks.insert(caller.orgId, destination)
    yield* audit(caller, "webhook.create", "webhook", destination.id)
  }))
  return { ...Webhook.toView(destination), ...(signingSecret !== null ? { signingSecret } : {}) } satisfies Webhook.WebhookCreated
})

export const list = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const webhooks = yield* WebhookStore
  const result = yield* webhooks.list(caller.orgId, page)
  return { items: result.items.map(Webhook.toView), nextCursor: result.nextCursor }
})

export const remove = Effect.fnUntraced(function*(caller: Caller, id: WebhookId) {
  const webhooks = yield* WebhookStore
  yield* transaction(Effect.gen(function*() {
    yield* loadDestination(caller, id)
    yield* webhooks.delete(caller.orgId, id)
    yield* audit(caller, "webhook.delete", "webhook", id)
  }))
})

/** Replacing the endpoint also re-enables a destination that a 410 disabled. */
export const replaceEndpoint = Effect.fnUntraced(function*(
  caller: Caller,
  id: WebhookId,
  request: Webhook.EndpointReplaceRequest
) {
  const webhooks = yield* WebhookStore
  const box = yield* SecretBox
  yield* loadDestination(caller, id)
  yield* checkEndpoint(request.endpointUrl)
  const sealed = yield* box.seal(request.endpointUrl)
  return yield* transaction(Effect.gen(function*() {
    const current = yield* loadDestination(caller, id)
    const next: Webhook.WebhookDestination = {
      ...current,
      endpointSealed: sealed,
      endpointPreview: Webhook.endpointPreview(request.endpointUrl),
      status: "active",
      disabledReason: null
    }
    yield* webhooks.update(caller.orgId, next)
    yield* audit(caller, "webhook.replace_endpoint", "webhook", id)
    return Webhook.toView(next)
  }))
})

/** The previous secret is invalid at once: every later attempt is signed with the new one. */
export const rotateSecret = Effect.fnUntraced(function*(caller: Caller, id: WebhookId) {
  const webhooks = yield* WebhookStore
  const box = yield* SecretBox
  const signingSecret = yield* newSigningSecret
  const sealed = yield* box.seal(signingSecret)
  return yield* transaction(Effect.gen(function*() {
    const current = yield* loadDestination(caller, id)
    if (current.type !== "generic") return yield* new Webhook.NotGenericWebhook({ webhookId: id })
    yield* webhooks.update(caller.orgId, { ...current, signingSecretSealed: sealed })
    yield* audit(caller, "webhook.rotate_secret", "webhook", id)
    return { ...Webhook.toView(current), signingSecret }
  }))
})

/** Queues a `service.webhook.test` event for this destination only (it need not have selected the type). */
export const test = Effect.fnUntraced(function*(caller: Caller, id: WebhookId) {
  return yield* transaction(Effect.gen(function*() {
    yield* loadDestination(caller, id)
    const at = (yield* now).toISOString()
    const [eventId] = yield* emit(caller, { family: "webhook", webhookId: id }, [{
      type: "service.webhook.test",
      data: { webhook_id: id, action: "test", changed_at: at }
    }])
    yield* audit(caller, "webhook.test", "webhook", id)
    return { eventId: eventId! }
  }))
})

/** Deliveries of a destination with their attempts (status code, duration, next retry; dead letters). */
export const deliveries = Effect.fnUntraced(function*(caller: Caller, id: WebhookId, page: PageRequest) {
  const outbox = yield* OutboxStore
  yield* loadDestination(caller, id)
  return yield* outbox.deliveries(caller.orgId, id, page)
})

/** Puts a dead letter back in the queue, due now; it is sent with the same CloudEvent id. */
export const replay = Effect.fnUntraced(function*(caller: Caller, id: WebhookId, eventId: EventId) {
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

// Delivery (the worker) --------------------------------------------------------------------------

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

/**
 * One attempt of one claimed delivery: send, classify with the core's policy, and record the
 * attempt with the delivery's next state in one atomic store write (in one transaction with a
 * 410's disabling of the destination). A destination that is gone or disabled turns the delivery into a dead letter, which
 * can be replayed once the endpoint is fixed.
 */
export const deliver = Effect.fn("Webhooks.deliver")(function*(claimed: ClaimedWebhookDelivery, config: DeliveryConfig) {
  const outbox = yield* OutboxStore
  const webhooks = yield* WebhookStore
  const box = yield* SecretBox
  const sender = yield* WebhookSender
  const orgId = claimed.orgId as Caller["orgId"]
  const { delivery, event } = claimed
  const attemptNumber = delivery.attempts + 1
  const started = yield* Clock.currentTimeMillis
  const record = (
    fields: Pick<WebhookDeliveryAttempt, "statusCode" | "durationMs" | "outcome" | "errorCode">,
    next: { readonly status: "pending" | "succeeded" | "dead"; readonly nextAttemptAt: string | null },
    disable?: string
  ) =>
    Effect.gen(function*() {
      const at = new Date(yield* Clock.currentTimeMillis).toISOString()
      const recorded = outbox.recordAttempt(orgId, {
        eventId: delivery.eventId,
        webhookId: delivery.webhookId,
        attempt: attemptNumber,
        at,
        ...fields
      }, next)
      // the attempt and the delivery's state are one atomic store write; only disabling the
      // destination as well needs a transaction around both
      if (disable === undefined) yield* recorded
      else {
        yield* transaction(Effect.gen(function*() {
          yield* recorded
          const current = yield* webhooks.get(orgId, delivery.webhookId)
          if (Option.isSome(current)) {
            yield* webhooks.update(orgId, { ...current.value, status: "disabled", disabledReason: disable })
          }
        }))
      }
      return next.status
    })
  const destination = yield* webhooks.get(orgId, delivery.webhookId)
  if (Option.isNone(destination) || destination.value.status !== "active") {
    return yield* record({ statusCode: null, durationMs: 0, outcome: "fail", errorCode: "destination-disabled" }, { status: "dead", nextAttemptAt: null })
  }
  const opened = yield* Effect.all([
    box.open(destination.value.endpointSealed),
    destination.value.signingSecretSealed === null ? Effect.succeed(null) : box.open(destination.value.signingSecretSealed)
  ]).pipe(Effect.option)
  if (Option.isNone(opened)) {
    return yield* record({ statusCode: null, durationMs: 0, outcome: "fail", errorCode: "secret-unavailable" }, { status: "dead", nextAttemptAt: null })
  }
  const [endpointUrl, signingSecret] = opened.value
  const result = yield* sender.send({
    type: destination.value.type,
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
      return yield* record(fields, { status: "succeeded", nextAttemptAt: null })
    case "Retry":
      return yield* record(fields, { status: "pending", nextAttemptAt: new Date(finished + step.delayMs).toISOString() })
    case "DeadLetter":
      return yield* record(fields, { status: "dead", nextAttemptAt: null })
    case "Disable":
      return yield* record(fields, { status: "dead", nextAttemptAt: null }, "the endpoint answered 410 Gone")
  }
})
