import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { WebhookDeliveries, WebhookDestinations } = Workflows

export const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers
    .handle("listWebhooks", ({ query }) => withCaller((c) => Effect.map(WebhookDestinations.listWebhooks(c, query), toPage)))
    .handle("createWebhook", ({ payload }) => withCaller((c) => WebhookDestinations.createWebhook(c, payload)))
    .handle("deleteWebhook", ({ params }) => withCaller((c) => WebhookDestinations.deleteWebhook(c, params.webhookId)))
    .handle("testWebhook", ({ params }) => withCaller((c) => WebhookDestinations.testWebhook(c, params.webhookId)))
    .handle("rotateWebhookSecret", ({ params }) => withCaller((c) => WebhookDestinations.rotateWebhookSecret(c, params.webhookId)))
    .handle("replaceWebhookEndpoint", ({ params, payload }) =>
      withCaller((c) => WebhookDestinations.replaceWebhookEndpoint(c, params.webhookId, payload)))
    .handle("listWebhookDeliveries", ({ params, query }) =>
      withCaller((c) =>
        Effect.map(WebhookDeliveries.listWebhookDeliveries(c, params.webhookId, query), toPage)
      ))
    .handle("replayWebhookDelivery", ({ params }) =>
      withCaller((c) =>
        WebhookDeliveries.replayWebhookDelivery(c, params.webhookId, params.eventId)
      ))
    .handle("listDeliveries", ({ query: { cursor, destinationId, limit, status } }) =>
      withCaller((c) =>
        Effect.map(WebhookDeliveries.listDeliveries(c, { status, webhookId: destinationId }, { cursor, limit }), toPage)
      )))
