/** Webhook destinations in the memory state. */
import type { WebhookStore } from "@image-policy/core"
import { byCreated, paginate, put, remove, sortBy, type State } from "./State.js"

export const make = (s: State): typeof WebhookStore.Service => ({
  insert: (orgId, d) => s.run((undo) => put(undo, s.need(orgId).webhooks, d.id, d)),
  list: (orgId, page) => s.read(() => paginate(sortBy(s.valuesOf(orgId, (o) => o.webhooks), byCreated), byCreated, page)),
  all: (orgId) => s.read(() => sortBy(s.valuesOf(orgId, (o) => o.webhooks), byCreated)),
  get: (orgId, id) => s.getIn(orgId, (o) => o.webhooks, id),
  update: (orgId, d) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (o?.webhooks.has(d.id)) put(undo, o.webhooks, d.id, d)
    }),
  delete: (orgId, id) =>
    s.run((undo) => {
      const o = s.state(orgId)
      if (!o) return
      remove(undo, o.webhooks, id)
      for (const [k, row] of s.deliveries) {
        if (row.orgId === orgId && row.webhookId === id) remove(undo, s.deliveries, k)
      }
    })
})
