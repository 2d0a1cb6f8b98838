/**
 * Webhook destinations and their deliveries (spec 2, 5.8, 6; contracts 5). Owner and Security
 * Administrator hold `webhooks:manage`; creating a destination (and pointing one at a new endpoint,
 * which is creating it anew) also needs one of those roles by name (spec 5.8; docs/api.md).
 */
import { Outbox, Webhook } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, PathId, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires, requiresRole } from "./Security.js"

const WebhookPath = { ...OrgPath, webhookId: pathId("WebhookId") }

export const DeliveryView = Schema.Struct({
  ...Outbox.WebhookDelivery.fields,
  type: Schema.NullOr(Schema.String),
  attemptsDetail: Schema.Array(Outbox.WebhookDeliveryAttempt)
})

/** The organization's failing deliveries: `status` one of them (default both), `destinationId` one destination. */
export const DeliveriesQuery = Schema.Struct({
  ...PageParams.fields,
  status: Schema.optionalKey(Outbox.FailingStatus),
  destinationId: Schema.optionalKey(PathId)
})

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .annotate(OpenApi.Description, "Webhook destinations, their deliveries and replays")
  .add(
    HttpApiEndpoint.get("listWebhooks", "/org/:orgId/webhooks", {
      params: OrgPath,
      query: PageParams,
      success: Page(Webhook.WebhookView)
    })
      .annotate(OpenApi.Summary, "List webhook destinations")
      .pipe(requires("webhooks:manage")),
    HttpApiEndpoint.post("createWebhook", "/org/:orgId/webhooks", {
      params: OrgPath,
      payload: Webhook.WebhookCreateRequest,
      success: Webhook.WebhookCreated.pipe(HttpApiSchema.status(201)),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Create a webhook destination")
      .annotate(
        OpenApi.Description,
        "The endpoint must be a public HTTPS URL; it is stored encrypted and only `endpointPreview` is ever shown. " +
          "Generic destinations answer their `signingSecret` here, once. A chat destination's `chatPlatform` " +
          "(`slack`, the default, `teams` or `google-chat`) chooses its native message format; a generic one has none."
      )
      .pipe(requires("webhooks:manage"), requiresRole(...Webhook.endpointRoles)),
    HttpApiEndpoint.delete("deleteWebhook", "/org/:orgId/webhooks/:webhookId", {
      params: WebhookPath,
      success: HttpApiSchema.NoContent
    })
      .annotate(OpenApi.Summary, "Delete a webhook destination")
      .pipe(requires("webhooks:manage")),
    HttpApiEndpoint.post("testWebhook", "/org/:orgId/webhooks/:webhookId/test", {
      params: WebhookPath,
      success: Schema.Struct({ eventId: Schema.String }).pipe(HttpApiSchema.status(202))
    })
      .annotate(OpenApi.Summary, "Send a test event to a destination")
      .annotate(OpenApi.Description, "Queues a `service.webhook.test` event for this destination.")
      .pipe(requires("webhooks:manage")),
    HttpApiEndpoint.post("rotateWebhookSecret", "/org/:orgId/webhooks/:webhookId/rotate-secret", {
      params: WebhookPath,
      success: Schema.Struct({ ...Webhook.WebhookView.fields, signingSecret: Schema.String }),
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Rotate a generic destination's signing secret")
      .annotate(OpenApi.Description, "Generic destinations only: the previous secret is invalid at once; the new one is shown once.")
      .pipe(requires("webhooks:manage")),
    HttpApiEndpoint.put("replaceWebhookEndpoint", "/org/:orgId/webhooks/:webhookId/endpoint", {
      params: WebhookPath,
      payload: Webhook.EndpointReplaceRequest,
      success: Webhook.WebhookView,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Replace a destination's endpoint URL")
      .annotate(OpenApi.Description, "Replaces the endpoint URL (checked like at creation) and re-enables a destination disabled by a 410.")
      .pipe(requires("webhooks:manage"), requiresRole(...Webhook.endpointRoles)),
    HttpApiEndpoint.get("listWebhookDeliveries", "/org/:orgId/webhooks/:webhookId/deliveries", {
      params: WebhookPath,
      query: PageParams,
      success: Page(DeliveryView)
    })
      .annotate(OpenApi.Summary, "List a destination's deliveries")
      .annotate(OpenApi.Description, "Deliveries with every attempt (status code, duration, outcome), the next retry, and dead letters.")
      .pipe(requires("webhooks:manage")),
    HttpApiEndpoint.post("replayWebhookDelivery", "/org/:orgId/webhooks/:webhookId/deliveries/:eventId/replay", {
      params: { ...WebhookPath, eventId: pathId("EventId") },
      success: Schema.Struct({ eventId: Schema.String, status: Schema.Literal("pending") }).pipe(HttpApiSchema.status(202)),
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Replay a dead-letter delivery")
      .annotate(OpenApi.Description, "Queues a dead letter again, due now, with the same CloudEvent id. 409 when it is not a dead letter.")
      .pipe(requires("webhooks:manage")),
    HttpApiEndpoint.get("listDeliveries", "/org/:orgId/deliveries", {
      params: OrgPath,
      query: DeliveriesQuery,
      success: Page(Outbox.FailingDelivery)
    })
      .annotate(OpenApi.Summary, "List the organization's failing deliveries")
      .annotate(
        OpenApi.Description,
        "Every destination's failing deliveries in one list, newest first (by last change): `dead` (dead letters, replayable) and " +
          "`failed` (an attempt failed, a retry is pending); `status` keeps one of them, `destinationId` one destination. Each names " +
          "its destination, event type, attempt count and last error (codes only)."
      )
      .pipe(requires("webhooks:manage"))
  )
  .middleware(Authentication)
