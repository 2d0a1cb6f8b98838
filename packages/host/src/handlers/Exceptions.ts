import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Audit, Snooze } = Workflows

export const SnoozeRequestsHandlers = HttpApiBuilder.group(Api, "snoozeRequests", (handlers) =>
  handlers
    .handle("listSnoozeRequests", ({ urlParams }) =>
      withCaller((c) => Effect.map(Snooze.listSnoozeRequests(c, urlParams), toPage)))
    .handle("createSnoozeRequest", ({ payload }) => withCaller((c) => Snooze.createSnoozeRequest(c, payload)))
    .handle("reviewSnoozeRequest", ({ path, payload }) =>
      withCaller((c) => Snooze.reviewSnoozeRequest(c, path.snoozeRequestId as Id.SnoozeRequestId, payload)))
    .handle("reopenSnoozeRequest", ({ path }) =>
      withCaller((c) => Snooze.reopenSnoozeRequest(c, path.snoozeRequestId as Id.SnoozeRequestId)))
)

export const AuditHandlers = HttpApiBuilder.group(Api, "audit", (handlers) =>
  handlers.handle("listAuditEvents", ({ urlParams }) => withCaller((c) => Effect.map(Audit.listAuditEvents(c, urlParams), toPage)))
)
