/** API keys in the memory state. */
import type { AccessStore } from "@image-policy/core"
import * as Option from "effect/Option"
import { byCreated, paginate, put, sortBy, type State } from "./State.js"

export const make = (s: State): typeof AccessStore.Service => ({
  insert: (orgId, key) => s.run((undo) => put(undo, s.need(orgId).apiKeys, key.id, key)),
  list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.apiKeys), byCreated), byCreated, page)),
  get: (orgId, id) => s.getIn(orgId, (o) => o.apiKeys, id),
  findBySecretHash: (secretHash) =>
    s.read(() => {
      for (const o of s.orgs.values()) {
        for (const key of o.apiKeys.values()) {
          if (key.secretHash === secretHash) return Option.some({ orgId: o.org.id, key, organization: o.org })
        }
      }
      return Option.none()
    }),
  update: (orgId, key) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o?.apiKeys.has(key.id)) put(undo, o.apiKeys, key.id, key)
    }),
  touch: (orgId, id, at) =>
    s.run((undo) => {
      const o = s.state(orgId)
      const key = o?.apiKeys.get(id)
      if (o && key && (key.lastUsedAt === null || key.lastUsedAt < at)) put(undo, o.apiKeys, id, { ...key, lastUsedAt: at })
    })
})
