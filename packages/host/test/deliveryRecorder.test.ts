/**
 * The delivery worker's group commit (workers/DeliveryRecorder.ts): a record made while no batch
 * is being written is written at once, alone; records made while one is in flight go together in
 * the next `recordMany`; each lane returns only once its own record is written, and a failed
 * batch fails every record in it without stranding the lanes queued behind it.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AttemptRecord, Id } from "@image-policy/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as DeliveryRecorder from "../src/workers/DeliveryRecorder.js"

const recordOf = (n: number): AttemptRecord => ({
  orgId: "org_test" as Id.OrgId,
  attempt: {
    eventId: `evt_${n}` as Id.EventId,
    webhookId: "wh_test" as Id.WebhookId,
    attempt: 1,
    at: "2026-01-01T00:00:00.000Z",
    statusCode: 204,
    durationMs: 1,
    outcome: "success",
    errorCode: null
  },
  next: { status: "succeeded", nextAttemptAt: null }
})

const idsOf = (records: ReadonlyArray<AttemptRecord>) => records.map((r) => r.attempt.eventId as string)

/** A `recordMany` that keeps each batch and waits for the test to let it finish (or fail). */
const gatedStore = () => {
  const batches: Array<ReadonlyArray<string>> = []
  const gates: Array<Deferred.Deferred<void>> = []
  const recordMany = (records: ReadonlyArray<AttemptRecord>) =>
    Effect.suspend(() => {
      const gate = Deferred.makeUnsafe<void>()
      batches.push(idsOf(records))
      gates.push(gate)
      return Deferred.await(gate)
    })
  return { batches, gates, recordMany }
}

/** Yields until `condition` holds: the forked lanes run until they wait (a step the test can observe). */
const until = (condition: () => boolean) =>
  Effect.gen(function*() {
    while (!condition()) yield* Effect.yieldNow
  })

describe("DeliveryRecorder", () => {
  it.effect("records made while a batch is written go together in the next one; each lane waits for its own", () =>
    Effect.gen(function*() {
      const store = gatedStore()
      const recorder = DeliveryRecorder.make(store.recordMany)
      let finished = 0
      const lane = (n: number) => Effect.forkChild(Effect.tap(recorder.record(recordOf(n)), () => Effect.sync(() => finished++)))

      const first = yield* lane(1)
      yield* until(() => store.batches.length === 1)
      assert.deepStrictEqual(store.batches, [["evt_1"]], "alone: written at once")
      const others = [yield* lane(2), yield* lane(3), yield* lane(4)]
      yield* until(() => recorder.queued() === 3)
      assert.strictEqual(store.batches.length, 1, "no second statement while the first is in flight")
      assert.strictEqual(finished, 0)

      yield* Deferred.succeed(store.gates[0]!, undefined)
      yield* Fiber.join(first)
      yield* until(() => store.batches.length === 2)
      assert.deepStrictEqual(store.batches[1], ["evt_2", "evt_3", "evt_4"], "one statement for what queued meanwhile")
      assert.strictEqual(finished, 1, "the queued lanes wait for their batch")

      yield* Deferred.succeed(store.gates[1]!, undefined)
      for (const f of others) yield* Fiber.join(f)
      assert.strictEqual(finished, 4)

      // idle again: the next record is written at once, alone
      const last = yield* lane(5)
      yield* until(() => store.batches.length === 3)
      assert.deepStrictEqual(store.batches[2], ["evt_5"])
      yield* Deferred.succeed(store.gates[2]!, undefined)
      yield* Fiber.join(last)
    }))

  it.effect("a failed batch fails every record in it; the lanes queued behind it are still written", () =>
    Effect.gen(function*() {
      const store = gatedStore()
      const recorder = DeliveryRecorder.make(store.recordMany)
      const lane = (n: number) => Effect.forkChild(Effect.exit(recorder.record(recordOf(n))))

      const first = yield* lane(1)
      yield* until(() => store.batches.length === 1)
      const [second, third] = [yield* lane(2), yield* lane(3)]
      yield* until(() => recorder.queued() === 2)
      yield* Deferred.succeed(store.gates[0]!, undefined)
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(first)))
      yield* until(() => store.batches.length === 2)
      assert.deepStrictEqual(store.batches[1], ["evt_2", "evt_3"])
      const fourth = yield* lane(4)
      yield* until(() => recorder.queued() === 1)
      yield* Deferred.die(store.gates[1]!, new Error("connection lost"))
      assert.isTrue(Exit.hasDies(yield* Fiber.join(second)))
      assert.isTrue(Exit.hasDies(yield* Fiber.join(third)))

      yield* until(() => store.batches.length === 3)
      assert.deepStrictEqual(store.batches[2], ["evt_4"], "the lead passed on after the failure")
      yield* Deferred.succeed(store.gates[2]!, undefined)
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(fourth)))
    }))
})
