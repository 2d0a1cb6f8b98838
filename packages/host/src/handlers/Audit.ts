import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { AuditStore, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Stream from "effect/Stream"
import { withCaller } from "./Call.js"

const { Audit } = Workflows

export const AuditHandlers = HttpApiBuilder.group(Api, "audit", (handlers) =>
  handlers
    .handle("listAuditEvents", ({ query: { cursor, limit, ...filter } }) =>
      withCaller((c) => Effect.map(Audit.listAuditEvents(c, { cursor, limit }, filter), toPage)))
    .handle("exportAuditEvents", ({ query }) =>
      withCaller((c) =>
        // the stream runs after the handler returns, while the response is written: it takes the store with it
        AuditStore.use((store) =>
          Effect.succeed(Audit.exportAuditEvents(c, query).pipe(Stream.provideService(AuditStore, store)))
        )
      )))
