/** The audit trail (contracts 5: GET /audit-events), newest first; rows never hold a secret. */
import * as Effect from "effect/Effect"
import type { PageRequest } from "../ports/Store.js"
import { Store } from "../ports/Store.js"
import type { Caller } from "./Caller.js"

export const listAuditEvents = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const store = yield* Store
  return yield* store.audit.list(caller.orgId, page)
})
