/** Organizations, teams and routines in the memory state. */
import type { OrganizationStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { byName, emptyOrg, paginate, put, remove, sortBy, type State } from "./State.js"

export const make = (s: State): typeof OrganizationStore.Service => ({
  organizations: {
    get: (orgId) => s.read(() => Option.fromNullishOr(s.state(orgId)?.org)),
    insert: (org) =>
      s.run((undo) => {
        const existing = s.orgs.get(org.id)
        put(undo, s.orgs, org.id, existing ? { ...existing, org } : emptyOrg(org))
      }),
    lock: () => Effect.void // the memory state serializes every transaction already
  },
  teams: {
    list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.teams), byName), byName, page)),
    get: (orgId, id) => s.getIn(orgId, (o) => o.teams, id),
    insert: (orgId, team) => s.run((undo) => put(undo, s.need(orgId).teams, team.id, team)),
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o === undefined) return
        for (const r of [...o.routines.values()]) if (r.teamId === id) remove(undo, o.routines, r.id)
        remove(undo, o.teams, id)
      })
  },
  routines: {
    list: (orgId, page, filter) =>
      s.read(() => {
        const rows = s.valuesOf(orgId, (o) => o.routines).filter((r) => filter?.teamId === undefined || r.teamId === filter.teamId)
        return paginate(sortBy(rows, byName), byName, page)
      }),
    get: (orgId, id) => s.getIn(orgId, (o) => o.routines, id),
    insert: (orgId, routine) => s.run((undo) => put(undo, s.need(orgId).routines, routine.id, routine)),
    lock: () => Effect.void,
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o !== undefined) remove(undo, o.routines, id)
      })
  }
})
