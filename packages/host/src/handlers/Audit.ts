import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { withCaller } from "./Call.js"

const { Audit } = Workflows

export const AuditHandlers = HttpApiBuilder.group(
  Api,
  "audit",
  (handlers) => handlers.handle("listAuditEvents", ({ query }) => withCaller((c) => Effect.map(Audit.listAuditEvents(c, query), toPage)))
)
