/** Storage contract: many attempts recorded in one write (`OutboxStore.recordMany`). */
import { assert } from "@effect/vitest"
import type { Outbox } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { Contract, ContractIt } from "./support.js"

export const outboxRecording = (it: ContractIt, { event, newOrg, store, webhook }: Contract) => {
  const attemptOf = (
    e: Outbox.OutboxEvent,
    w: { readonly id: Outbox.WebhookDelivery["webhookId"] },
    attempt: number,
    statusCode: number
  ) => ({
    eventId: e.id,
    webhookId: w.id,
    attempt,
    at: `2026-01-01T00:00:0${attempt}.000Z`,
    statusCode,
    durationMs: 7,
    outcome: statusCode < 300 ? "success" as const : "retry" as const,
    errorCode: null
  })
  const stateOf = (d: Outbox.WebhookDelivery | undefined) =>
    d && { status: d.status, attempts: d.attempts, lastStatusCode: d.lastStatusCode, next: d.nextAttemptAt, updatedAt: d.updatedAt }

  it.effect("outbox: recordMany records every attempt and its delivery's state, across organizations, and releases the leases", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* newOrg(), yield* newOrg()]
      const [wa, wb] = [webhook(), webhook()]
      yield* store.webhooks.insert(a.id, wa)
      yield* store.webhooks.insert(b.id, wb)
      const [e1, e2, e3] = [event("2020-03-01T00:00:00.000Z"), event("2020-03-01T00:00:00.000Z"), event("2020-03-01T00:00:00.000Z")]
      yield* store.outbox.append(a.id, [{ event: e1, destinations: [wa.id] }, { event: e2, destinations: [wa.id] }])
      yield* store.outbox.append(b.id, [{ event: e3, destinations: [wb.id] }])
      const ours = new Set<string>([e1.id, e2.id, e3.id])
      const now = new Date("2020-03-01T00:01:00.000Z")
      const claimed = (yield* store.outbox.claim({ worker: "w", now, leaseMs: 60_000, limit: 1000 })).filter((c) => ours.has(c.event.id))
      assert.strictEqual(claimed.length, 3)

      yield* store.outbox.recordMany([])
      const retryAt = "2020-03-01T00:01:30.000Z"
      yield* store.outbox.recordMany([
        { orgId: a.id, attempt: attemptOf(e1, wa, 1, 200), next: { status: "succeeded", nextAttemptAt: null } },
        { orgId: a.id, attempt: attemptOf(e2, wa, 1, 503), next: { status: "pending", nextAttemptAt: retryAt } },
        { orgId: b.id, attempt: attemptOf(e3, wb, 1, 204), next: { status: "succeeded", nextAttemptAt: null } }
      ])
      const byEvent = (items: ReadonlyArray<Outbox.WebhookDelivery>) => new Map(items.map((d) => [d.eventId as string, d]))
      const ofA = byEvent((yield* store.outbox.deliveries(a.id, wa.id, { limit: 10 })).items)
      const ofB = byEvent((yield* store.outbox.deliveries(b.id, wb.id, { limit: 10 })).items)
      assert.deepStrictEqual(stateOf(ofA.get(e1.id)), {
        status: "succeeded",
        attempts: 1,
        lastStatusCode: 200,
        next: null,
        updatedAt: "2026-01-01T00:00:01.000Z"
      })
      assert.deepStrictEqual(stateOf(ofA.get(e2.id)), {
        status: "pending",
        attempts: 1,
        lastStatusCode: 503,
        next: retryAt,
        updatedAt: "2026-01-01T00:00:01.000Z"
      })
      assert.deepStrictEqual(stateOf(ofB.get(e3.id)), {
        status: "succeeded",
        attempts: 1,
        lastStatusCode: 204,
        next: null,
        updatedAt: "2026-01-01T00:00:01.000Z"
      })
      assert.deepStrictEqual(yield* store.outbox.attempts(a.id, e2.id, wa.id), [attemptOf(e2, wa, 1, 503)])
      assert.deepStrictEqual(yield* store.outbox.attempts(b.id, e3.id, wb.id), [attemptOf(e3, wb, 1, 204)])

      // the retried delivery's lease was released: it is claimable once due, long before the lease's end
      const due = new Date("2020-03-01T00:01:31.000Z")
      const again = (yield* store.outbox.claim({ worker: "w2", now: due, leaseMs: 60_000, limit: 1000 })).filter((c) =>
        ours.has(c.event.id)
      )
      assert.deepStrictEqual(again.map((c) => [c.event.id, c.delivery.attempts]), [[e2.id, 1]])
      yield* store.outbox.recordMany([{
        orgId: a.id,
        attempt: attemptOf(e2, wa, 2, 200),
        next: { status: "succeeded", nextAttemptAt: null }
      }])
      assert.deepStrictEqual((yield* store.outbox.attempts(a.id, e2.id, wa.id)).map((x) => x.attempt), [1, 2])
    }))

  it.effect("outbox: recordMany skips a delivery that is gone and records the others; it joins the caller's transaction", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const [gone, kept] = [webhook(), webhook()]
      yield* store.webhooks.insert(org.id, gone)
      yield* store.webhooks.insert(org.id, kept)
      const [e1, e2] = [event(), event()]
      yield* store.outbox.append(org.id, [{ event: e1, destinations: [gone.id, kept.id] }, { event: e2, destinations: [kept.id] }])
      yield* store.webhooks.delete(org.id, gone.id)
      const other = yield* newOrg()
      yield* store.outbox.recordMany([
        { orgId: org.id, attempt: attemptOf(e1, gone, 1, 200), next: { status: "succeeded", nextAttemptAt: null } },
        // another organization's id never reaches this organization's delivery
        { orgId: other.id, attempt: attemptOf(e2, kept, 1, 200), next: { status: "succeeded", nextAttemptAt: null } },
        { orgId: org.id, attempt: attemptOf(e1, kept, 1, 200), next: { status: "succeeded", nextAttemptAt: null } }
      ])
      assert.deepStrictEqual(yield* store.outbox.attempts(org.id, e1.id, gone.id), [], "no attempt without its delivery")
      assert.deepStrictEqual(yield* store.outbox.attempts(org.id, e2.id, kept.id), [], "not recorded under another organization")
      assert.deepStrictEqual((yield* store.outbox.attempts(org.id, e1.id, kept.id)).map((x) => x.attempt), [1])

      // rolled back with the transaction it ran in: neither the attempt nor the delivery's state stay
      const failed = yield* Effect.result(store.transaction(Effect.gen(function*() {
        yield* store.outbox.recordMany([
          { orgId: org.id, attempt: attemptOf(e2, kept, 1, 200), next: { status: "succeeded", nextAttemptAt: null } }
        ])
        return yield* Effect.fail("boom" as const)
      })))
      assert.isTrue(Result.isFailure(failed))
      assert.deepStrictEqual(yield* store.outbox.attempts(org.id, e2.id, kept.id), [])
      const e2Delivery = (yield* store.outbox.deliveries(org.id, kept.id, { limit: 10 })).items.find((d) => d.eventId === e2.id)
      assert.deepStrictEqual([e2Delivery?.status, e2Delivery?.attempts], ["pending", 0])
    }))
}
