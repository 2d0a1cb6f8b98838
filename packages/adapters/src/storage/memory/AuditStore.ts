/** The audit trail in the memory state. */
import { Audit, type AuditStore } from "@image-policy/core"
import { paginate, push, sortBy, type State } from "./State.js"

const byAt = (a: Audit.AuditEvent) => [a.at, a.id] as const

export const make = (s: State): typeof AuditStore.Service => ({
  append: (orgId, event) => s.run((undo) => push(undo, s.need(orgId).audit, event)),
  list: (orgId, page, filter = {}) =>
    s.read(() => paginate(sortBy((s.state(orgId)?.audit ?? []).filter((a) => Audit.matches(filter, a)), byAt, true), byAt, page, true))
})
