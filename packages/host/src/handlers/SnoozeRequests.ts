import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { SnoozeRequests } = Workflows

export const SnoozeRequestsHandlers = HttpApiBuilder.group(Api, "snoozeRequests", (handlers) =>
  handlers
    .handle("listSnoozeRequests", ({ query: { cursor, limit, ...filter } }) =>
      withCaller((c) =>
        Effect.map(SnoozeRequests.listSnoozeRequests(c, { cursor, limit }, filter), toPage)
      ))
    .handle("getSnoozeRequest", ({ params }) => withCaller((c) => SnoozeRequests.getSnoozeRequest(c, params.snoozeRequestId)))
    .handle("createSnoozeRequest", ({ payload }) => withCaller((c) => SnoozeRequests.createSnoozeRequest(c, payload)))
    .handle("reviewSnoozeRequest", ({ params, payload }) =>
      withCaller((c) =>
        SnoozeRequests.reviewSnoozeRequest(c, params.snoozeRequestId, payload)
      ))
    .handle("reopenSnoozeRequest", ({ params }) => withCaller((c) => SnoozeRequests.reopenSnoozeRequest(c, params.snoozeRequestId))))
