/** The audit trail (contracts 5: GET /audit-events), newest first; rows never hold a secret. */
import * as Effect from "effect/Effect"
import type { PageRequest } from "../Page.js"
import { AuditStore } from "../ports/AuditStore.js"
import type { Caller } from "./Caller.js"

export const listAuditEvents = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const auditTrail = yield* AuditStore
  return yield* auditTrail.list(caller.orgId, page)
})
