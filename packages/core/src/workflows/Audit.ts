/**
 * The audit trail (contracts 5: GET /audit-events and its NDJSON export), newest first, filtered
 * by actor, action, resource and time; rows never hold a secret.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Audit from "../Audit.js"
import type { PageRequest } from "../Page.js"
import { AuditStore } from "../ports/AuditStore.js"
import type { Caller } from "./Caller.js"

export const listAuditEvents = Effect.fnUntraced(function*(caller: Caller, page: PageRequest, filter: Audit.AuditFilter = {}) {
  const auditTrail = yield* AuditStore
  return yield* auditTrail.list(caller.orgId, page, Audit.normalizeFilter(filter))
})

/** Rows read per page of an export: enough to keep round trips few, small enough to keep memory flat. */
export const exportPageSize = 200

/**
 * Every row the filter matches, newest first, as a stream read from the store one keyset page at
 * a time: an export of any size holds one page in memory, never the whole trail. Rows written
 * while it runs are newer than its first page and stay out of it.
 */
export const exportAuditEvents = (caller: Caller, filter: Audit.AuditFilter = {}): Stream.Stream<Audit.AuditEvent, never, AuditStore> => {
  const normalized = Audit.normalizeFilter(filter)
  return Stream.paginate(
    undefined as string | undefined,
    (cursor) =>
      AuditStore.use((auditTrail) => auditTrail.list(caller.orgId, { cursor, limit: exportPageSize }, normalized)).pipe(
        Effect.map((page) => [page.items, Option.fromNullishOr(page.nextCursor)] as const)
      )
  )
}
