import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Snooze } = Workflows

export const SnoozeRequestsHandlers = HttpApiBuilder.group(Api, "snoozeRequests", (handlers) =>
  handlers
    .handle("listSnoozeRequests", ({ query }) => withCaller((c) => Effect.map(Snooze.listSnoozeRequests(c, query), toPage)))
    .handle("createSnoozeRequest", ({ payload }) => withCaller((c) => Snooze.createSnoozeRequest(c, payload)))
    .handle("reviewSnoozeRequest", ({ params, payload }) =>
      withCaller((c) => Snooze.reviewSnoozeRequest(c, params.snoozeRequestId, payload)))
    .handle("reopenSnoozeRequest", ({ params }) => withCaller((c) => Snooze.reopenSnoozeRequest(c, params.snoozeRequestId))))
