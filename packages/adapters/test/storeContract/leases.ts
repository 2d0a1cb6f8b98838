/** Storage contract: renewing and releasing the leases of claimed deliveries and scans (heartbeats, restarts). */
import { assert } from "@effect/vitest"
import type { DeliveryKey, Outbox } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Contract, type ContractIt, newId } from "./support.js"

const keyOf = (c: Outbox.ClaimedWebhookDelivery): DeliveryKey => ({ orgId: c.orgId, eventId: c.event.id, webhookId: c.delivery.webhookId })
const sorted = (keys: ReadonlyArray<DeliveryKey>) => [...keys].map((k) => `${k.orgId}|${k.eventId}|${k.webhookId}`).sort()

export const leases = (
  it: ContractIt,
  { claimOf, claimNow, event, newOrg, scan, store, succeeded, trackedRepository, webhook }: Contract
) => {
  /** Two pending deliveries of a fresh organization; claims run over every organization, so the test keeps to its own. */
  const twoDeliveries = (time = "2026-01-01T00:00:00.000Z") =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const w = webhook()
      yield* store.webhooks.insert(org.id, w)
      const [a, b] = [event(time), event(time)]
      yield* store.outbox.append(org.id, [{ event: a, destinations: [w.id] }, { event: b, destinations: [w.id] }])
      const ids = new Set<string>([a.id, b.id])
      const claim = (worker: string, now: Date, leaseMs = 30_000) =>
        Effect.map(store.outbox.claim({ worker, now, leaseMs, limit: 10_000 }), (cs) => cs.filter((c) => ids.has(c.event.id)))
      return { org, w, a, b, claim }
    })

  it.effect("leases: renew extends the deliveries a worker still holds and answers those", () =>
    Effect.gen(function*() {
      const { a, claim, org, w } = yield* twoDeliveries()
      const t0 = new Date("2026-01-01T00:01:00.000Z")
      const held = yield* claim("inst/1", t0)
      assert.strictEqual(held.length, 2)
      const keys = held.map(keyOf)
      // renewed at t0 + 20 s for 30 s: still held at t0 + 40 s, when the first lease had ended
      const renewed = yield* store.outbox.renew({
        worker: "inst/1",
        now: new Date(t0.getTime() + 20_000),
        leaseMs: 30_000,
        deliveries: keys
      })
      assert.deepStrictEqual(sorted(renewed), sorted(keys))
      assert.strictEqual((yield* claim("other/1", new Date(t0.getTime() + 40_000))).length, 0, "the renewed leases hold")

      // one delivery recorded, the other taken over after its lease expired: neither is held any more
      yield* store.outbox.recordAttempt(org.id, {
        eventId: a.id,
        webhookId: w.id,
        attempt: 1,
        at: "2026-01-01T00:01:30.000Z",
        statusCode: 200,
        durationMs: 3,
        outcome: "succeeded",
        errorCode: null
      }, { status: "succeeded", nextAttemptAt: null })
      const late = new Date(t0.getTime() + 51_000)
      assert.strictEqual((yield* claim("other/1", late)).length, 1, "an unrenewed lease expires")
      assert.deepStrictEqual(yield* store.outbox.renew({ worker: "inst/1", now: late, leaseMs: 30_000, deliveries: keys }), [])
      assert.deepStrictEqual(yield* store.outbox.renew({ worker: "inst/1", now: late, leaseMs: 30_000, deliveries: [] }), [])
      // a key of another organization names nothing
      assert.deepStrictEqual(
        yield* store.outbox.renew({
          worker: "other/1",
          now: late,
          leaseMs: 30_000,
          deliveries: keys.map((k) => ({ ...k, orgId: newId("organization") }))
        }),
        []
      )
    }))

  it.effect("leases: release frees one owner's deliveries, or every earlier start of an instance", () =>
    Effect.gen(function*() {
      // claims take every due delivery: the second pair is due only after the first pair is claimed
      const first = yield* twoDeliveries()
      const second = yield* twoDeliveries("2026-01-01T00:00:30.000Z")
      const t0 = new Date("2026-01-01T00:01:00.000Z")
      const long = 10 * 60_000
      assert.strictEqual((yield* first.claim("hostA/old", new Date("2026-01-01T00:00:10.000Z"), long)).length, 2)
      assert.strictEqual((yield* second.claim("hostAB/old", t0, long)).length, 2)
      // hostA restarts: its old start's leases are freed, not those of hostAB (a name it prefixes)
      assert.isAtLeast(yield* store.outbox.release({ instance: "hostA", except: "hostA/new" }), 2)
      const retaken = yield* first.claim("hostA/new", t0)
      assert.strictEqual(retaken.length, 2, "claimable at once, before the lease would have ended")
      assert.strictEqual((yield* second.claim("hostA/new", t0)).length, 0, "another instance's leases stay")
      // the current start is spared by an instance release
      assert.strictEqual(yield* store.outbox.release({ instance: "hostA", except: "hostA/new" }), 0)
      assert.strictEqual((yield* first.claim("x/1", t0)).length, 0)
      // a graceful stop frees its own
      // (other tests' deliveries due then may have been claimed too: counts are at least ours)
      assert.isAtLeast(yield* store.outbox.release({ owner: "hostA/new" }), 2)
      assert.deepStrictEqual(sorted((yield* first.claim("x/1", t0)).map(keyOf)), sorted(retaken.map(keyOf)), "due as before")
      assert.isAtLeast(yield* store.outbox.release({ owner: "hostAB/old" }), 2)
    }))

  it.effect("leases: scans are renewed while running and released to be claimed at once", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const repo = yield* trackedRepository(org.id)
      const s = scan(repo.id, "main", "manual")
      yield* store.scans.enqueue(org.id, s)
      assert.strictEqual((yield* claimOf([s.id], "inst/1", claimNow, 30_000)).length, 1)
      const key = { orgId: org.id, id: s.id }
      const at = (ms: number) => new Date(claimNow.getTime() + ms)
      assert.deepStrictEqual(yield* store.scans.renew({ worker: "inst/1", now: at(20_000), leaseMs: 30_000, scans: [key] }), [key])
      assert.strictEqual((yield* claimOf([s.id], "other/1", at(40_000))).length, 0, "the renewed lease holds")
      assert.deepStrictEqual(
        yield* store.scans.renew({ worker: "other/1", now: at(40_000), leaseMs: 30_000, scans: [key] }),
        [],
        "not its lease"
      )

      // restart of inst: the scan is claimable at once, and the old start has lost it
      assert.isAtLeast(yield* store.scans.release({ instance: "inst", except: "inst/2" }), 1)
      const [again] = yield* claimOf([s.id], "inst/2", at(41_000), 30_000)
      assert.strictEqual(again?.scan.attempts, 2)
      assert.deepStrictEqual(yield* store.scans.renew({ worker: "inst/1", now: at(42_000), leaseMs: 30_000, scans: [key] }), [])
      assert.isFalse(yield* store.scans.finish(org.id, s.id, "inst/1", succeeded([])))
      assert.isAtLeast(yield* store.scans.release({ owner: "inst/2" }), 1)
      assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)).status, "running", "released, still to run")
      assert.strictEqual((yield* claimOf([s.id], "inst/3", at(43_000), 30_000)).length, 1)
      assert.isTrue(yield* store.scans.finish(org.id, s.id, "inst/3", succeeded([])))
      // an ended scan is neither renewed nor released
      assert.deepStrictEqual(yield* store.scans.renew({ worker: "inst/3", now: at(44_000), leaseMs: 30_000, scans: [key] }), [])
      assert.strictEqual(yield* store.scans.release({ owner: "inst/3" }), 0)
    }))
}
