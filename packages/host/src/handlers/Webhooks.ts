import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Webhooks } = Workflows

export const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers
    .handle("listWebhooks", ({ urlParams }) => withCaller((c) => Effect.map(Webhooks.list(c, urlParams), toPage)))
    .handle("createWebhook", ({ payload }) => withCaller((c) => Webhooks.create(c, payload)))
    .handle("deleteWebhook", ({ path }) => withCaller((c) => Webhooks.remove(c, path.webhookId as Id.WebhookId)))
    .handle("testWebhook", ({ path }) => withCaller((c) => Webhooks.test(c, path.webhookId as Id.WebhookId)))
    .handle("rotateWebhookSecret", ({ path }) => withCaller((c) => Webhooks.rotateSecret(c, path.webhookId as Id.WebhookId)))
    .handle("replaceWebhookEndpoint", ({ path, payload }) =>
      withCaller((c) => Webhooks.replaceEndpoint(c, path.webhookId as Id.WebhookId, payload)))
    .handle("listWebhookDeliveries", ({ path, urlParams }) =>
      withCaller((c) => Effect.map(Webhooks.deliveries(c, path.webhookId as Id.WebhookId, urlParams), toPage)))
    .handle("replayWebhookDelivery", ({ path }) =>
      withCaller((c) => Webhooks.replay(c, path.webhookId as Id.WebhookId, path.eventId as Id.EventId)))
)
