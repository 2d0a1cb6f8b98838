/** Snooze requests in the memory state. */
import type { Id } from "@image-policy/core"
import { SnoozeRequest, type SnoozeStore } from "@image-policy/core"
import { byCreated, paginate, put, sortBy, type State } from "./State.js"

export const make = (s: State): typeof SnoozeStore.Service => ({
  insert: (orgId, r) => s.run((undo) => put(undo, s.need(orgId).snoozes, r.id, r)),
  list: (orgId, page, filter = {}) =>
    s.read(() =>
      paginate(
        sortBy(s.valuesOf(orgId, (o) => o.snoozes).filter((r) => SnoozeRequest.matchesFilter(filter, r)), byCreated),
        byCreated,
        page
      )
    ),
  listByRepository: (orgId, repositoryId) =>
    s.read(() => sortBy(s.valuesOf(orgId, (o) => o.snoozes).filter((r) => r.repositoryId === repositoryId), byCreated)),
  get: (orgId, id) => s.getIn(orgId, (o) => o.snoozes, id),
  update: (orgId, r) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o?.snoozes.has(r.id)) put(undo, o.snoozes, r.id, r)
    }),
  transition: (orgId, r, from) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o?.snoozes.get(r.id)?.status !== from) return false
      put(undo, o.snoozes, r.id, r)
      return true
    }),
  dueForExpiry: ({ limit, now }) =>
    s.read(() =>
      [...s.orgs.values()]
        .flatMap((o) => [...o.snoozes.values()].map((r) => ({ orgId: o.org.id as Id.OrgId, request: r })))
        .filter(({ request }) => request.status === "approved" && Date.parse(request.until) <= now.getTime())
        .sort((a, b) => Date.parse(a.request.until) - Date.parse(b.request.until))
        .slice(0, limit)
        .map(({ orgId, request }) => ({ orgId, id: request.id }))
    )
})
