/** Snooze requests in the memory state. */
import type { SnoozeStore } from "@image-policy/core"
import { byCreated, paginate, put, sortBy, type State } from "./State.js"

export const make = (s: State): typeof SnoozeStore.Service => ({
  insert: (orgId, r) => s.run((undo) => put(undo, s.need(orgId).snoozes, r.id, r)),
  list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.snoozes), byCreated), byCreated, page)),
  listByRepository: (orgId, repositoryId) =>
    s.read(() => sortBy(s.valuesOf(orgId, (o) => o.snoozes).filter((r) => r.repositoryId === repositoryId), byCreated)),
  get: (orgId, id) => s.getIn(orgId, (o) => o.snoozes, id),
  update: (orgId, r) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o?.snoozes.has(r.id)) put(undo, o.snoozes, r.id, r)
    })
})
