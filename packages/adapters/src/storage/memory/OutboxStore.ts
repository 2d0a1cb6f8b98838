/** The event outbox and its deliveries in the memory state. */
import { Lease, Outbox, type OutboxStore } from "@image-policy/core"
import { paginate, push, put, sortBy, type State, type Undo, type WebhookDeliveryRow } from "./State.js"

const publicDelivery = ({ leaseOwner: _o, leaseUntil: _u, orgId: _org, ...d }: WebhookDeliveryRow): Outbox.WebhookDelivery => d

const byUpdated = (d: Outbox.WebhookDelivery) => [d.updatedAt, d.eventId] as const

const deliveryKey = (eventId: string, webhookId: string) => `${eventId}|${webhookId}`

const record = (
  s: State,
  undo: Undo,
  orgId: string,
  attempt: Outbox.WebhookDeliveryAttempt,
  next: Pick<Outbox.WebhookDelivery, "status" | "nextAttemptAt">
) => {
  const k = deliveryKey(attempt.eventId, attempt.webhookId)
  const d = s.deliveries.get(k)
  if (!d || d.orgId !== orgId) return
  push(undo, s.need(orgId).attempts, attempt)
  put(undo, s.deliveries, k, {
    ...d,
    status: next.status,
    nextAttemptAt: next.nextAttemptAt,
    attempts: d.attempts + 1,
    lastStatusCode: attempt.statusCode,
    updatedAt: attempt.at,
    leaseOwner: null,
    leaseUntil: null
  })
}

export const make = (s: State): typeof OutboxStore.Service => ({
  append: (orgId, events) =>
    s.run((undo) => {
      const o = s.need(orgId)
      for (const { destinations, event } of events) {
        put(undo, o.events, event.id, event)
        for (const webhookId of destinations) {
          put(undo, s.deliveries, deliveryKey(event.id, webhookId), {
            orgId: o.org.id,
            eventId: event.id,
            webhookId,
            status: "pending",
            attempts: 0,
            nextAttemptAt: event.time,
            lastStatusCode: null,
            updatedAt: event.time,
            leaseOwner: null,
            leaseUntil: null
          })
        }
      }
    }),
  getEvent: (orgId, id) => s.getIn(orgId, (o) => o.events, id),
  claim: ({ leaseMs, limit, now, worker }) =>
    s.run((undo) => {
      const t = now.getTime()
      // each due time parsed once, not in every comparison of the sort
      const due: Array<readonly [string, WebhookDeliveryRow, number]> = []
      for (const [k, d] of s.deliveries) {
        if (d.status !== "pending" || d.nextAttemptAt === null || (d.leaseUntil !== null && d.leaseUntil >= t)) continue
        const at = Date.parse(d.nextAttemptAt)
        if (at <= t) due.push([k, d, at])
      }
      due.sort((a, b) => a[2] - b[2])
      return due.slice(0, limit).map(([k, d]) => {
        put(undo, s.deliveries, k, { ...d, leaseOwner: worker, leaseUntil: t + leaseMs })
        return { orgId: d.orgId, delivery: publicDelivery(d), event: s.orgs.get(d.orgId)!.events.get(d.eventId)! }
      })
    }),
  renew: ({ deliveries, leaseMs, now, worker }) =>
    s.run((undo) => {
      const until = now.getTime() + leaseMs
      return deliveries.filter((key) => {
        const k = deliveryKey(key.eventId, key.webhookId)
        const d = s.deliveries.get(k)
        if (d === undefined || d.orgId !== key.orgId || d.leaseOwner !== worker) return false
        put(undo, s.deliveries, k, { ...d, leaseUntil: until })
        return true
      })
    }),
  release: (owners) =>
    s.run((undo) => {
      let freed = 0
      for (const [k, d] of s.deliveries) {
        if (!Lease.matches(owners, d.leaseOwner)) continue
        put(undo, s.deliveries, k, { ...d, leaseOwner: null, leaseUntil: null })
        freed++
      }
      return freed
    }),
  recordAttempt: (orgId, attempt, next) => s.run((undo) => record(s, undo, orgId, attempt, next)),
  recordMany: (records) =>
    s.run((undo) => {
      for (const r of records) record(s, undo, r.orgId, r.attempt, r.next)
    }),
  deliveries: (orgId, webhookId, page) =>
    s.read(() => {
      const rows = [...s.deliveries.values()].filter((d) => d.orgId === orgId && d.webhookId === webhookId)
      const listed = paginate(sortBy(rows, byUpdated).map(publicDelivery), byUpdated, page)
      // the page's attempts in one pass over the organization's attempts, not one pass per delivery
      const o = s.state(orgId)
      const onPage = new Map<string, Array<Outbox.WebhookDeliveryAttempt>>(listed.items.map((d) => [d.eventId, []]))
      for (const a of o?.attempts ?? []) if (a.webhookId === webhookId) onPage.get(a.eventId)?.push(a)
      return {
        items: listed.items.map((d) => ({ ...d, type: o?.events.get(d.eventId)?.type ?? null, attemptsDetail: onPage.get(d.eventId)! })),
        nextCursor: listed.nextCursor
      }
    }),
  failingDeliveries: (orgId, filter, page) =>
    s.read(() => {
      const o = s.state(orgId)
      const rows = [...s.deliveries.values()].filter((d) => d.orgId === orgId && Outbox.matchesFailing(filter, d))
      // each listed delivery's last attempt, from one pass over the organization's attempts
      const last = new Map<string, Outbox.WebhookDeliveryAttempt>()
      for (const a of o?.attempts ?? []) {
        const k = deliveryKey(a.eventId, a.webhookId)
        if ((last.get(k)?.attempt ?? 0) < a.attempt) last.set(k, a)
      }
      const items = rows.map((d): Outbox.FailingDelivery => ({
        eventId: d.eventId,
        destinationId: d.webhookId,
        destinationName: o?.webhooks.get(d.webhookId)?.name ?? null,
        type: o?.events.get(d.eventId)?.type ?? null,
        status: Outbox.failingStatus(d)!,
        attempts: d.attempts,
        nextAttemptAt: d.nextAttemptAt,
        lastStatusCode: d.lastStatusCode,
        updatedAt: d.updatedAt,
        lastError: Outbox.lastErrorOf(last.get(deliveryKey(d.eventId, d.webhookId)))
      }))
      return paginate(sortBy(items, Outbox.failingKey, true), Outbox.failingKey, page, true)
    }),
  attempts: (orgId, eventId, webhookId) =>
    s.read(() => (s.state(orgId)?.attempts ?? []).filter((a) => a.eventId === eventId && a.webhookId === webhookId)),
  backlog: () =>
    s.read(() => {
      let pending = 0
      let oldest: string | null = null
      for (const d of s.deliveries.values()) {
        if (d.status !== "pending") continue
        pending++
        const time = s.orgs.get(d.orgId)?.events.get(d.eventId)?.time
        if (time !== undefined && (oldest === null || Date.parse(time) < Date.parse(oldest))) oldest = time
      }
      return { pending, oldestPendingAt: oldest }
    }),
  requeue: (orgId, eventId, webhookId, now) =>
    s.run((undo) => {
      const k = deliveryKey(eventId, webhookId)
      const d = s.deliveries.get(k)
      if (!d || d.orgId !== orgId || d.status !== "dead") return false
      put(undo, s.deliveries, k, {
        ...d,
        status: "pending",
        nextAttemptAt: now.toISOString(),
        updatedAt: now.toISOString(),
        leaseOwner: null,
        leaseUntil: null
      })
      return true
    })
})
