/**
 * Scheduled work once per due time across hosts (workers/Schedule.ts) under a TestClock: workers
 * of several hosts on one store do each interval's run once, and a run whose host died holding its
 * claim is done by another host once the claim's lease has passed.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@image-policy/adapters"
import { ScheduleStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import * as Schedule from "../src/workers/Schedule.js"

const minute = 60_000
const lease = 30_000

/** Lets the workers run what is due now (the memory store answers without real I/O). */
const settle = Effect.gen(function*() {
  for (let y = 0; y < 20; y++) yield* Effect.yieldNow
})

/** Moves the test clock on one second at a time, letting the woken workers finish between steps. */
const advance = (seconds: number) =>
  Effect.gen(function*() {
    yield* settle
    for (let i = 0; i < seconds; i++) {
      yield* TestClock.adjust("1 second")
      yield* settle
    }
  })

describe("scheduled runs across hosts (TestClock)", () => {
  it.effect("three hosts' timers run each interval's job once, whoever claims it", () =>
    Effect.gen(function*() {
      const runs: Array<string> = []
      const fibers = yield* Effect.forEach(["a", "b", "c"], (host) =>
        Effect.forkChild(
          Schedule.every(
            { workerId: host, leaseMs: lease },
            "routine",
            minute,
            5_000,
            Effect.sync(() => runs.push(host)),
            () => Effect.void
          )
        ))
      yield* advance(0)
      assert.strictEqual(runs.length, 1)
      yield* advance(59)
      assert.strictEqual(runs.length, 1)
      yield* advance(1)
      assert.strictEqual(runs.length, 2)
      yield* advance(180)
      assert.strictEqual(runs.length, 5)
      yield* Fiber.interruptAll(fibers)
    }).pipe(Effect.provide(MemoryStore.layer)))

  it.effect("a run held by a host that died is done by another host once its lease passed, then on schedule", () =>
    Effect.gen(function*() {
      const store = yield* ScheduleStore
      // the dead host claimed this minute's run and never renewed, completed nor released it
      assert.isTrue(yield* store.claim({ key: "routine", dueAt: 0, worker: "dead", now: 0, leaseMs: lease }))
      let runs = 0
      const fiber = yield* Effect.forkChild(
        Schedule.every({ workerId: "alive", leaseMs: lease }, "routine", minute, 5_000, Effect.sync(() => runs++), () => Effect.void)
      )
      yield* advance(29)
      assert.strictEqual(runs, 0)
      // the lease passed at 30 s; the next look (every 5 s) takes the run over
      yield* advance(1)
      assert.strictEqual(runs, 1)
      yield* advance(29)
      assert.strictEqual(runs, 1)
      yield* advance(1)
      assert.strictEqual(runs, 2)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(MemoryStore.layer)))

  it.effect("a run whose work fails is released, not done: the next look of any host runs it again", () =>
    Effect.gen(function*() {
      let attempts = 0
      const fiber = yield* Effect.forkChild(
        Schedule.every(
          { workerId: "a", leaseMs: lease },
          "flaky",
          minute,
          5_000,
          Effect.suspend(() => ++attempts === 1 ? Effect.fail("boom") : Effect.void),
          () => Effect.void
        )
      )
      yield* advance(0)
      assert.strictEqual(attempts, 1)
      yield* advance(5)
      assert.strictEqual(attempts, 2)
      yield* advance(50)
      assert.strictEqual(attempts, 2)
      assert.deepStrictEqual(yield* (yield* ScheduleStore).lastDone("flaky"), new Map([["flaky", { dueAt: 0, claimedAt: 5_000 }]]))
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(MemoryStore.layer)))
})
