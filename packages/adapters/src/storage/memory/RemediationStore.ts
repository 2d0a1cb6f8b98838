/** Remediation requests in the memory state. */
import type { RemediationStore } from "@image-policy/core"
import * as Option from "effect/Option"
import * as Storable from "../Storable.js"
import { byCreated, paginate, put, sortBy, type State } from "./State.js"

export const make = (s: State): typeof RemediationStore.Service => ({
  put: (orgId, request) => s.run((undo) => put(undo, s.need(orgId).remediations, request.id, Storable.remediation(request))),
  get: (orgId, id) => s.getIn(orgId, (o) => o.remediations, id),
  latest: (orgId, repositoryId, branchName, options) =>
    s.read(() =>
      Option.fromNullishOr(
        sortBy(
          s.valuesOf(orgId, (o) => o.remediations).filter((r) =>
            r.repositoryId === repositoryId && r.branchName === branchName && !(options?.excludeFailed && r.status === "failed")
          ),
          byCreated,
          true
        )[0]
      )
    ),
  findByNumber: (orgId, repositoryId, number) =>
    s.read(() =>
      Option.fromNullishOr(
        sortBy(
          s.valuesOf(orgId, (o) => o.remediations).filter((r) =>
            r.repositoryId === repositoryId && r.number === number && r.status !== "failed"
          ),
          byCreated,
          true
        )[0]
      )
    ),
  close: (orgId, repositoryId, { at, branchNames }) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o === undefined) return 0
      let closed = 0
      for (const r of [...o.remediations.values()]) {
        if (r.repositoryId !== repositoryId || r.status === "closed" || r.status === "merged") continue
        if (branchNames !== undefined && !branchNames.includes(r.branchName)) continue
        put(undo, o.remediations, r.id, { ...r, status: "closed", updatedAt: at })
        closed++
      }
      return closed
    }),
  list: (orgId, repositoryId, page) =>
    s.read(() => {
      const rows = s.valuesOf(orgId, (o) => o.remediations).filter((r) => r.repositoryId === repositoryId)
      return paginate(sortBy(rows, byCreated, true), byCreated, page, true)
    })
})
