/** Storage contract: claims on scheduled work (`ScheduleStore`), shared by every host of one store. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type Contract, type ContractIt, newId } from "./support.js"

export const schedule = (it: ContractIt, { options, store }: Contract) => {
  // a fresh key per test: the store is shared by the whole suite
  const newPrefix = () => `test-${newId<string>("phase")}:`
  const newKey = () => `${newPrefix()}run`
  const lease = 30_000

  it.effect("schedule: one claim per due time; a done run is never claimed again, the next due time is", () =>
    Effect.gen(function*() {
      const key = newKey()
      const run = (worker: string, dueAt: number, now = dueAt) => ({ key, worker, dueAt, now, leaseMs: lease })
      assert.isTrue(yield* store.schedule.claim(run("a", 1_000)))
      // held: nobody else, and not the holder a second time
      assert.isFalse(yield* store.schedule.claim(run("b", 1_000)))
      assert.isFalse(yield* store.schedule.claim(run("a", 1_000, 2_000)))
      // a renewal by someone else, or of another due time, is refused; the holder's extends the lease
      assert.isFalse(yield* store.schedule.renew(run("b", 1_000)))
      assert.isFalse(yield* store.schedule.renew(run("a", 2_000)))
      assert.isTrue(yield* store.schedule.renew(run("a", 1_000, 20_000)))
      assert.isFalse(yield* store.schedule.claim(run("b", 1_000, 1_000 + lease + 1)))
      assert.deepStrictEqual(yield* store.schedule.lastDone(key), new Map())

      assert.isFalse(yield* store.schedule.complete({ key, worker: "b", dueAt: 1_000 }))
      assert.isTrue(yield* store.schedule.complete({ key, worker: "a", dueAt: 1_000 }))
      assert.isFalse(yield* store.schedule.complete({ key, worker: "a", dueAt: 1_000 }))
      assert.deepStrictEqual(yield* store.schedule.lastDone(key), new Map([[key, { dueAt: 1_000, claimedAt: 1_000 }]]))
      // done: that due time and any before it are refused to everyone; a later one is claimed
      assert.isFalse(yield* store.schedule.claim(run("b", 1_000, 5_000)))
      assert.isFalse(yield* store.schedule.claim(run("b", 500, 5_000)))
      assert.isTrue(yield* store.schedule.claim(run("b", 2_000, 5_000)))
      // the last run done stays what it was until the new one is done
      assert.deepStrictEqual(yield* store.schedule.lastDone(key), new Map([[key, { dueAt: 1_000, claimedAt: 1_000 }]]))
      assert.isTrue(yield* store.schedule.complete({ key, worker: "b", dueAt: 2_000 }))
      assert.deepStrictEqual(yield* store.schedule.lastDone(key), new Map([[key, { dueAt: 2_000, claimedAt: 5_000 }]]))
    }))

  it.effect("schedule: the last runs done are read by key prefix, and only runs done", () =>
    Effect.gen(function*() {
      const prefix = newPrefix()
      const run = (key: string, dueAt: number) => ({ key: `${prefix}${key}`, worker: "a", dueAt, now: dueAt, leaseMs: lease })
      for (const [key, dueAt] of [["a", 10], ["b_%", 20], ["held", 30]] as const) {
        assert.isTrue(yield* store.schedule.claim(run(key, dueAt)))
      }
      for (const [key, dueAt] of [["a", 10], ["b_%", 20]] as const) assert.isTrue(yield* store.schedule.complete(run(key, dueAt)))
      // another prefix that differs only where a LIKE pattern would match anything
      const lookalike = `${prefix.slice(0, -1)}_`
      assert.isTrue(yield* store.schedule.claim({ ...run("x", 5), key: `${lookalike}x` }))
      assert.isTrue(yield* store.schedule.complete({ ...run("x", 5), key: `${lookalike}x` }))
      assert.deepStrictEqual(
        yield* store.schedule.lastDone(prefix),
        new Map([[`${prefix}a`, { dueAt: 10, claimedAt: 10 }], [`${prefix}b_%`, { dueAt: 20, claimedAt: 20 }]])
      )
    }))

  it.effect("schedule: a claim whose holder stopped renewing is taken over once its lease passed; a released one at once", () =>
    Effect.gen(function*() {
      const key = newKey()
      const run = (worker: string, now: number) => ({ key, worker, dueAt: 0, now, leaseMs: lease })
      assert.isTrue(yield* store.schedule.claim(run("killed", 100)))
      assert.isFalse(yield* store.schedule.claim(run("b", 100 + lease - 1)))
      assert.isTrue(yield* store.schedule.claim(run("b", 100 + lease)))
      // the first holder lost it: it can neither renew, nor complete, nor release it
      assert.isFalse(yield* store.schedule.renew(run("killed", 200)))
      assert.isFalse(yield* store.schedule.complete({ key, worker: "killed", dueAt: 0 }))
      assert.isFalse(yield* store.schedule.release({ key, worker: "killed", dueAt: 0 }))
      assert.isTrue(yield* store.schedule.release({ key, worker: "b", dueAt: 0 }))
      assert.deepStrictEqual(yield* store.schedule.lastDone(key), new Map())
      assert.isTrue(yield* store.schedule.claim(run("c", 100 + lease + 1)))
    }))

  if (options.concurrency) {
    it.effect("concurrency: of hosts claiming one due time at once, exactly one gets it", () =>
      Effect.gen(function*() {
        const key = newKey()
        const claims = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) => store.schedule.claim({ key, worker: `w${i}`, dueAt: 60_000, now: 60_000, leaseMs: lease })),
          { concurrency: 8 }
        )
        assert.strictEqual(claims.filter((c) => c).length, 1)
      }))
  }
}
