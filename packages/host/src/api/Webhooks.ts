/** Webhook destinations and their deliveries (spec 2, 5.8, 6; contracts 5). Owner and Security Administrator hold `webhooks:manage`. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Outbox, Webhook } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { Created, OrgPath, Page, PageParams, PathId, strictPayload } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem409, Problem413, Problem429 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const WebhookPath = Schema.Struct({ orgId: PathId, webhookId: PathId })

export const DeliveryView = Schema.Struct({
  ...Outbox.Delivery.fields,
  type: Schema.NullOr(Schema.String),
  attemptsDetail: Schema.Array(Outbox.DeliveryAttempt)
})

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("listWebhooks", "/org/:orgId/webhooks")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Webhook.WebhookView))
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.post("createWebhook", "/org/:orgId/webhooks")
      .setPath(OrgPath)
      .setPayload(strictPayload(Webhook.WebhookCreateRequest))
      .addSuccess(Created(Webhook.WebhookCreated))
      .addError(Problem413)
      .annotate(
        OpenApi.Description,
        "The endpoint must be a public HTTPS URL; it is stored encrypted and only `endpointPreview` is ever shown. " +
          "Generic destinations answer their `signingSecret` here, once."
      )
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.del("deleteWebhook", "/org/:orgId/webhooks/:webhookId")
      .setPath(WebhookPath)
      .addSuccess(HttpApiSchema.NoContent)
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.post("testWebhook", "/org/:orgId/webhooks/:webhookId/test")
      .setPath(WebhookPath)
      .addSuccess(Schema.Struct({ eventId: Schema.String }).annotations(HttpApiSchema.annotations({ status: 202 })))
      .annotate(OpenApi.Description, "Queues a `service.webhook.test` event for this destination.")
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/org/:orgId/webhooks/:webhookId/rotate-secret")
      .setPath(WebhookPath)
      .addSuccess(Schema.Struct({ ...Webhook.WebhookView.fields, signingSecret: Schema.String }))
      .addError(Problem409)
      .annotate(OpenApi.Description, "Generic destinations only: the previous secret is invalid at once; the new one is shown once.")
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.put("replaceWebhookEndpoint", "/org/:orgId/webhooks/:webhookId/endpoint")
      .setPath(WebhookPath)
      .setPayload(strictPayload(Webhook.EndpointReplaceRequest))
      .addSuccess(Webhook.WebhookView)
      .addError(Problem413)
      .annotate(OpenApi.Description, "Replaces the endpoint URL (checked like at creation) and re-enables a destination disabled by a 410.")
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", "/org/:orgId/webhooks/:webhookId/deliveries")
      .setPath(WebhookPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(DeliveryView))
      .annotate(OpenApi.Description, "Deliveries with every attempt (status code, duration, outcome), the next retry, and dead letters.")
      .pipe(requires("webhooks:manage"))
  )
  .add(
    HttpApiEndpoint.post("replayWebhookDelivery", "/org/:orgId/webhooks/:webhookId/deliveries/:eventId/replay")
      .setPath(Schema.Struct({ orgId: PathId, webhookId: PathId, eventId: PathId }))
      .addSuccess(Schema.Struct({ eventId: Schema.String, status: Schema.Literal("pending") }).annotations(HttpApiSchema.annotations({ status: 202 })))
      .addError(Problem409)
      .annotate(OpenApi.Description, "Queues a dead letter again, due now, with the same CloudEvent id. 409 when it is not a dead letter.")
      .pipe(requires("webhooks:manage"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
