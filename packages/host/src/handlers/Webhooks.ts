import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Webhooks } = Workflows

export const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers
    .handle("listWebhooks", ({ query }) => withCaller((c) => Effect.map(Webhooks.list(c, query), toPage)))
    .handle("createWebhook", ({ payload }) => withCaller((c) => Webhooks.create(c, payload)))
    .handle("deleteWebhook", ({ params }) => withCaller((c) => Webhooks.remove(c, params.webhookId)))
    .handle("testWebhook", ({ params }) => withCaller((c) => Webhooks.test(c, params.webhookId)))
    .handle("rotateWebhookSecret", ({ params }) => withCaller((c) => Webhooks.rotateSecret(c, params.webhookId)))
    .handle("replaceWebhookEndpoint", ({ params, payload }) =>
      withCaller((c) => Webhooks.replaceEndpoint(c, params.webhookId, payload)))
    .handle("listWebhookDeliveries", ({ params, query }) =>
      withCaller((c) => Effect.map(Webhooks.deliveries(c, params.webhookId, query), toPage)))
    .handle("replayWebhookDelivery", ({ params }) => withCaller((c) => Webhooks.replay(c, params.webhookId, params.eventId))))
