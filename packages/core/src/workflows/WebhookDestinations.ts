/**
 * Webhook destinations (spec 2, 5.8, 6; contracts 5): create, list, replace the endpoint, rotate the
 * signing secret, test, delete. Endpoint URLs and signing secrets are sealed before they are stored
 * and opened only to send; no answer, audit row or event ever holds them. Their deliveries are
 * `WebhookDeliveries.ts`.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { WebhookId } from "../Id.js"
import * as Input from "../Input.js"
import type { PageRequest } from "../Page.js"
import { Ids } from "../ports/Ids.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { SecretBox } from "../ports/SecretBox.js"
import { transaction } from "../ports/Transaction.js"
import { WebhookSender } from "../ports/WebhookSender.js"
import { WebhookStore } from "../ports/WebhookStore.js"
import * as Webhook from "../Webhook.js"
import { audit, type Caller, emit, InvalidReferenceInBody, now } from "./Caller.js"
import { loadDestination } from "./WebhookAccess.js"

const SIGNING_SECRET_BYTES = 32

/** Ids named in the body must exist in this organization (400 naming the path, contracts 4). */
const checkReferences = (caller: Caller, request: Webhook.WebhookCreateRequest) =>
  Effect.gen(function*() {
    const { teams } = yield* OrganizationStore
    const { policyGroups } = yield* PolicyStore
    const team = (path: string, id: string) =>
      Effect.flatMap(teams.get(caller.orgId, id as any), (t) =>
        Option.isNone(t)
          ? Effect.fail(new InvalidReferenceInBody({ path, message: "no team of this organization has this id" }))
          : Effect.void)
    if (request.audienceTeamId !== undefined) {
      yield* team("audienceTeamId", request.audienceTeamId)
    }
    if (request.scope.kind === "team") yield* team("scope.teamId", request.scope.teamId)
    if (request.scope.kind === "policyGroup") {
      const group = yield* policyGroups.get(caller.orgId, request.scope.policyGroupId)
      if (Option.isNone(group)) {
        return yield* new InvalidReferenceInBody({
          path: "scope.policyGroupId",
          message: "no policy group of this organization has this id"
        })
      }
    }
  })

/** The SSRF and syntax check of a URL, with its failure named as the `endpointUrl` field. */
const checkEndpoint = (url: string) =>
  Effect.flatMap(
    WebhookSender,
    (sender) =>
      Effect.catchTag(sender.checkEndpoint(url), "UnsafeDestination", (e) =>
        Effect.fail(
          new InvalidReferenceInBody({ path: "endpointUrl", message: `${e.message}; webhook endpoints must be public HTTPS addresses` })
        ))
  )

const newSigningSecret = Effect.flatMap(Ids, (ids) => Effect.map(ids.randomBytes(SIGNING_SECRET_BYTES), Webhook.formatSigningSecret))

export const createWebhook = Effect.fnUntraced(function*(caller: Caller, request: Webhook.WebhookCreateRequest) {
  yield* Input.validate(Webhook.WebhookCreateRequest, request)
  const webhooks = yield* WebhookStore
  const ids = yield* Ids
  const box = yield* SecretBox
  yield* checkReferences(caller, request)
  yield* checkEndpoint(request.endpointUrl)
  const signingSecret = request.type === "generic" ? yield* newSigningSecret : null
  const destination: Webhook.WebhookDestination = {
    id: yield* ids.next("webhook"),
    name: request.name,
    type: request.type,
    ...(request.type === "chat" ? { chatPlatform: request.chatPlatform ?? "slack" } : {}),
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

export const listWebhooks = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const webhooks = yield* WebhookStore
  const result = yield* webhooks.list(caller.orgId, page)
  return { items: result.items.map(Webhook.toView), nextCursor: result.nextCursor }
})

export const deleteWebhook = Effect.fnUntraced(function*(caller: Caller, id: WebhookId) {
  const webhooks = yield* WebhookStore
  yield* transaction(Effect.gen(function*() {
    yield* loadDestination(caller, id)
    yield* webhooks.delete(caller.orgId, id)
    yield* audit(caller, "webhook.delete", "webhook", id)
  }))
})

/** Replacing the endpoint also re-enables a destination that a 410 disabled. */
export const replaceWebhookEndpoint = Effect.fnUntraced(function*(
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
export const rotateWebhookSecret = Effect.fnUntraced(function*(caller: Caller, id: WebhookId) {
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
export const testWebhook = Effect.fnUntraced(function*(caller: Caller, id: WebhookId) {
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
