/** Storage contract: the event outbox and its deliveries (`OutboxStore`). */
import { assert } from "@effect/vitest"
import { Outbox } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, newId, stamp } from "./support.js"

export const outbox = (it: ContractIt, { options, store, newOrg, webhook, event }: Contract) => {
  it.effect("outbox: claim leases, record attempts, dead letters and replay", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const w = webhook()
      yield* store.webhooks.insert(org.id, w)
      const e = event("2026-01-01T00:00:00.000Z")
      yield* store.outbox.append(org.id, [{ event: e, destinations: [w.id] }])
      assert.deepStrictEqual(Option.getOrThrow(yield* store.outbox.getEvent(org.id, e.id)), e)
      const now = new Date("2026-01-01T00:00:10.000Z")
      const mine = (claims: ReadonlyArray<Outbox.ClaimedWebhookDelivery>) => claims.filter((c) => c.event.id === e.id)
      const first = mine(yield* store.outbox.claim({ worker: "w1", now, leaseMs: 30_000, limit: 1000 }))
      assert.strictEqual(first.length, 1)
      assert.strictEqual(first[0]!.orgId, org.id)
      assert.deepStrictEqual(first[0]!.event, e)
      assert.strictEqual(mine(yield* store.outbox.claim({ worker: "w2", now, leaseMs: 30_000, limit: 1000 })).length, 0, "leased")
      const afterLease = new Date(now.getTime() + 31_000)
      const again = mine(yield* store.outbox.claim({ worker: "w2", now: afterLease, leaseMs: 30_000, limit: 1000 }))
      assert.strictEqual(again.length, 1, "an expired lease is claimable again")

      const attempt: Outbox.WebhookDeliveryAttempt = {
        eventId: e.id,
        webhookId: w.id,
        attempt: 1,
        at: "2026-01-01T00:00:42.000Z",
        statusCode: 503,
        durationMs: 12,
        outcome: "retry",
        errorCode: null
      }
      yield* store.outbox.recordAttempt(org.id, attempt, { status: "pending", nextAttemptAt: "2026-01-01T00:05:00.000Z" })
      const early = new Date("2026-01-01T00:04:00.000Z")
      assert.strictEqual(mine(yield* store.outbox.claim({ worker: "w3", now: early, leaseMs: 1000, limit: 1000 })).length, 0, "not due")
      const [delivery] = (yield* store.outbox.deliveries(org.id, w.id, { limit: 10 })).items
      assert.deepStrictEqual(
        { status: delivery!.status, attempts: delivery!.attempts, lastStatusCode: delivery!.lastStatusCode, next: delivery!.nextAttemptAt },
        { status: "pending", attempts: 1, lastStatusCode: 503, next: "2026-01-01T00:05:00.000Z" }
      )
      yield* store.outbox.recordAttempt(org.id, { ...attempt, attempt: 2, at: "2026-01-01T00:05:01.000Z" }, {
        status: "dead",
        nextAttemptAt: null
      })
      assert.deepStrictEqual((yield* store.outbox.attempts(org.id, e.id, w.id)).map((a) => a.attempt), [1, 2])
      const late = new Date("2026-01-02T00:00:00.000Z")
      assert.strictEqual(mine(yield* store.outbox.claim({ worker: "w3", now: late, leaseMs: 1000, limit: 1000 })).length, 0, "dead")
      assert.isFalse(yield* store.outbox.requeue(newId("organization"), e.id, w.id, late), "other org cannot replay")
      assert.isTrue(yield* store.outbox.requeue(org.id, e.id, w.id, late))
      const replayed = mine(yield* store.outbox.claim({ worker: "w3", now: late, leaseMs: 1000, limit: 1000 }))
      assert.strictEqual(replayed[0]?.event.id, e.id, "replay keeps the CloudEvent id")

      // the webhook was deleted while an attempt was in flight: nothing is recorded for it
      yield* store.webhooks.delete(org.id, w.id)
      yield* store.outbox.recordAttempt(org.id, { ...attempt, attempt: 3, at: "2026-01-02T00:00:01.000Z" }, {
        status: "succeeded",
        nextAttemptAt: null
      })
      assert.deepStrictEqual(
        (yield* store.outbox.attempts(org.id, e.id, w.id)).map((a) => a.attempt),
        [1, 2],
        "no attempt without its delivery"
      )
    }))

  it.effect("outbox: one append fans every event out to its destinations; a destination's deliveries carry their event's type and attempts", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const [w1, w2] = [webhook(), webhook()]
      for (const w of [w1, w2]) yield* store.webhooks.insert(org.id, w)
      const events = [event(), event(), event()]
      // the first event to both destinations, the second to one, the third to none
      yield* store.outbox.append(org.id, [
        { event: events[0]!, destinations: [w1.id, w2.id] },
        { event: events[1]!, destinations: [w2.id] },
        { event: events[2]!, destinations: [] }
      ])
      yield* store.outbox.append(org.id, [])
      for (const e of events) assert.deepStrictEqual(Option.getOrThrow(yield* store.outbox.getEvent(org.id, e.id)), e)
      const first = yield* store.outbox.deliveries(org.id, w1.id, { limit: 10 })
      assert.deepStrictEqual(first.items.map((d) => [d.eventId, d.status, d.attempts, d.type, d.attemptsDetail]), [
        [events[0]!.id, "pending", 0, events[0]!.type, []]
      ])
      const attempt = (eventId: typeof events[number]["id"], n: number): Outbox.WebhookDeliveryAttempt => ({
        eventId,
        webhookId: w2.id,
        attempt: n,
        at: stamp(),
        statusCode: 503,
        durationMs: 5,
        outcome: "retry",
        errorCode: null
      })
      yield* store.outbox.recordAttempt(org.id, attempt(events[1]!.id, 1), { status: "pending", nextAttemptAt: stamp() })
      yield* store.outbox.recordAttempt(org.id, attempt(events[1]!.id, 2), { status: "dead", nextAttemptAt: null })
      yield* store.outbox.recordAttempt(org.id, attempt(events[0]!.id, 1), { status: "pending", nextAttemptAt: stamp() })
      // in (updatedAt, eventId) order, one delivery per page, each with its own attempts in attempt order
      const { items, pages } = yield* allPages((p) => store.outbox.deliveries(org.id, w2.id, p), 1)
      assert.strictEqual(pages, 2)
      assert.deepStrictEqual(items.map((d) => [d.eventId, d.status, d.attempts, d.type, d.attemptsDetail.map((a) => a.attempt)]), [
        [events[1]!.id, "dead", 2, events[1]!.type, [1, 2]],
        [events[0]!.id, "pending", 1, events[0]!.type, [1]]
      ])
      assert.deepStrictEqual(items[0]!.attemptsDetail, yield* store.outbox.attempts(org.id, events[1]!.id, w2.id))
      assert.deepStrictEqual(
        (yield* store.outbox.deliveries(org.id, w1.id, { limit: 10 })).items[0]!.attemptsDetail,
        [],
        "another destination's attempts are not this one's"
      )
      const other = yield* newOrg()
      assert.deepStrictEqual((yield* store.outbox.deliveries(other.id, w2.id, { limit: 10 })).items, [])
    }))

  it.effect("outbox: the organization's failing deliveries, every destination, newest first, with destination, type and last error", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const [w1, w2] = [{ ...webhook(), name: "ops" }, { ...webhook(), name: "chat" }]
      for (const w of [w1, w2]) yield* store.webhooks.insert(org.id, w)
      const events = [event(), event(), event(), event()]
      yield* store.outbox.append(org.id, [
        { event: events[0]!, destinations: [w1.id, w2.id] },
        { event: events[1]!, destinations: [w1.id] },
        { event: events[2]!, destinations: [w2.id] },
        { event: events[3]!, destinations: [w1.id] }
      ])
      const attempt = (
        e: Outbox.OutboxEvent,
        w: { readonly id: typeof w1.id },
        n: number,
        statusCode: number | null,
        errorCode: string | null
      ) => ({
        eventId: e.id,
        webhookId: w.id,
        attempt: n,
        at: stamp(),
        statusCode,
        durationMs: 3,
        outcome: statusCode === 200 ? "success" : "retry",
        errorCode
      })
      // events[0] to w1: failed twice, dead; to w2: failed once, retry pending; events[1]: succeeded;
      // events[2]: failed once (timeout), pending; events[3]: never tried
      yield* store.outbox.recordAttempt(org.id, attempt(events[0]!, w1, 1, 503, null), { status: "pending", nextAttemptAt: stamp() })
      yield* store.outbox.recordAttempt(org.id, attempt(events[1]!, w1, 1, 200, null), { status: "succeeded", nextAttemptAt: null })
      yield* store.outbox.recordAttempt(org.id, attempt(events[0]!, w2, 1, 500, null), { status: "pending", nextAttemptAt: stamp() })
      yield* store.outbox.recordAttempt(org.id, attempt(events[2]!, w2, 1, null, "timeout"), { status: "pending", nextAttemptAt: stamp() })
      const last = attempt(events[0]!, w1, 2, 502, null)
      yield* store.outbox.recordAttempt(org.id, last, { status: "dead", nextAttemptAt: null })

      const list = (filter: Outbox.FailingDeliveryFilter, limit = 1) =>
        Effect.map(
          allPages((p) => store.outbox.failingDeliveries(org.id, filter, p), limit),
          ({ items }) => items.map((d) => [d.eventId, d.destinationId, d.status])
        )
      // newest first: the dead letter (its last attempt is the latest), then events[2] to w2, then events[0] to w2
      assert.deepStrictEqual(yield* list({}), [
        [events[0]!.id, w1.id, "dead"],
        [events[2]!.id, w2.id, "failed"],
        [events[0]!.id, w2.id, "failed"]
      ])
      assert.deepStrictEqual(yield* list({ status: "dead" }), [[events[0]!.id, w1.id, "dead"]])
      assert.deepStrictEqual(yield* list({ status: "failed" }, 10), [[events[2]!.id, w2.id, "failed"], [events[0]!.id, w2.id, "failed"]])
      assert.deepStrictEqual(yield* list({ webhookId: w1.id }), [[events[0]!.id, w1.id, "dead"]])
      assert.deepStrictEqual(yield* list({ webhookId: w2.id, status: "dead" }), [])
      assert.deepStrictEqual(yield* list({ webhookId: "wh_unknown" }), [])

      const [dead] = (yield* store.outbox.failingDeliveries(org.id, { status: "dead" }, { limit: 10 })).items
      assert.deepStrictEqual(dead, {
        eventId: events[0]!.id,
        destinationId: w1.id,
        destinationName: "ops",
        type: events[0]!.type,
        status: "dead",
        attempts: 2,
        nextAttemptAt: null,
        lastStatusCode: 502,
        updatedAt: last.at,
        lastError: { at: last.at, statusCode: 502, outcome: "retry", errorCode: null }
      })
      const timedOut = (yield* store.outbox.failingDeliveries(org.id, { webhookId: w2.id }, { limit: 1 })).items[0]!
      assert.deepStrictEqual([timedOut.destinationName, timedOut.lastError?.errorCode, timedOut.lastStatusCode], ["chat", "timeout", null])

      // a replayed dead letter is pending again after its failures: still failing, now "failed"
      assert.isTrue(yield* store.outbox.requeue(org.id, events[0]!.id, w1.id, new Date(Date.parse(stamp()))))
      assert.deepStrictEqual(yield* list({ webhookId: w1.id }), [[events[0]!.id, w1.id, "failed"]])
      const other = yield* newOrg()
      assert.deepStrictEqual((yield* store.outbox.failingDeliveries(other.id, {}, { limit: 10 })).items, [])
    }))

  it.effect("outbox: backlog counts pending deliveries of every organization and the oldest pending event's time", () =>
    Effect.gen(function*() {
      const before = yield* store.outbox.backlog()
      const [a, b] = [yield* newOrg(), yield* newOrg()]
      const [wa, wb, wb2] = [webhook(), webhook(), webhook()]
      yield* store.webhooks.insert(a.id, wa)
      yield* store.webhooks.insert(b.id, wb)
      yield* store.webhooks.insert(b.id, wb2)
      // older than any event of the other tests: it is the oldest pending one while it waits
      const old = event("2001-02-03T04:05:06.000Z")
      const recent = event("2026-01-01T00:00:00.000Z")
      yield* store.outbox.append(a.id, [{ event: old, destinations: [wa.id] }])
      yield* store.outbox.append(b.id, [{ event: recent, destinations: [wb.id, wb2.id] }])
      const after = yield* store.outbox.backlog()
      assert.strictEqual(after.pending - before.pending, 3, "one per delivery, across organizations")
      assert.strictEqual(after.oldestPendingAt, old.time)
      const attempt: Outbox.WebhookDeliveryAttempt = {
        eventId: old.id,
        webhookId: wa.id,
        attempt: 1,
        at: "2026-01-01T00:00:01.000Z",
        statusCode: 200,
        durationMs: 3,
        outcome: "success",
        errorCode: null
      }
      yield* store.outbox.recordAttempt(a.id, attempt, { status: "succeeded", nextAttemptAt: null })
      const done = yield* store.outbox.backlog()
      assert.strictEqual(done.pending - before.pending, 2, "a delivered one is no longer pending")
      assert.notStrictEqual(done.oldestPendingAt, old.time)
    }))

  if (options.concurrency) {
    it.effect("concurrency: two workers claiming the same deliveries get disjoint sets", () =>
      Effect.gen(function*() {
        const org = yield* newOrg()
        const w = webhook()
        yield* store.webhooks.insert(org.id, w)
        const events = Array.from({ length: 50 }, () => event("2020-01-01T00:00:00.000Z"))
        yield* store.outbox.append(org.id, events.map((e) => ({ event: e, destinations: [w.id] })))
        const ours = new Set(events.map((e) => e.id as string))
        const now = new Date("2020-01-01T00:01:00.000Z")
        const claim = (worker: string) =>
          Effect.map(store.outbox.claim({ worker, now, leaseMs: 60_000, limit: 30 }), (cs) =>
            cs.filter((c) => ours.has(c.event.id)).map((c) => c.event.id as string))
        const [a, b] = yield* Effect.all([claim("a"), claim("b")], { concurrency: 2 })
        const overlap = a.filter((id) =>
          b.includes(id)
        )
        assert.deepStrictEqual(overlap, [])
      }))
  }
}
