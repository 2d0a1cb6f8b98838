/**
 * The external phase poll worker (workers/Sync.ts) under a TestClock: it ticks every 5 s but reads
 * a phase's file only when the phase is due by its own `pollIntervalSeconds`; the worker's
 * concurrency bound holds, and one phase's trouble does not stop the others.
 */
import { assert, describe, it } from "@effect/vitest"
import { FixtureVcs, MemoryStore } from "@image-policy/adapters"
import { PolicyGroup, PolicyStore, type Stores, VcsProvider, VcsProviderError } from "@image-policy/core"
import type { Id } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { TestClock } from "effect/testing"
import * as App from "../src/App.js"
import * as Seed from "../src/seed/Seed.js"
import * as Sync from "../src/workers/Sync.js"

const mappings = (toImage: string) => JSON.stringify({ mappings: [{ fromImage: "node:20", toImage }] })

/**
 * A fixture-like provider answering at once (no real I/O, so the TestClock alone drives the test):
 * `files` by path, every read recorded, `broken` paths failing or dying, and the largest number of
 * reads in flight at once.
 */
const recordingProvider = () => {
  const files = new Map<string, string>()
  const reads: Array<string> = []
  const broken = new Map<string, "unavailable" | "defect">()
  let inFlight = 0
  let maxInFlight = 0
  const base = FixtureVcs.make().provider
  const provider: typeof VcsProvider.Service = {
    ...base,
    readFile: (_ctx, file) =>
      Effect.gen(function*() {
        reads.push(file.path)
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        // let the other reads of the tick start
        for (let i = 0; i < 5; i++) yield* Effect.yieldNow
        inFlight--
        const trouble = broken.get(file.path)
        if (trouble === "unavailable") return yield* Effect.fail(new VcsProviderError({ reason: "unavailable" }))
        if (trouble === "defect") return yield* Effect.die(new Error("boom"))
        const content = files.get(file.path)
        return content === undefined ? Option.none() : Option.some({ content, version: `v-${content.length}-${content}` })
      })
  }
  return {
    provider,
    files,
    broken,
    reads,
    count: (path: string) => reads.filter((p) => p === path).length,
    maxInFlight: () => maxInFlight
  }
}

const seedWith = (phases: ReadonlyArray<{ readonly name: string; readonly path: string; readonly pollIntervalSeconds?: number }>) => {
  const parsed = Seed.parse(JSON.stringify({
    organizations: [{
      id: "org_poll",
      name: "Poll",
      edition: "enterprise",
      vcsConnections: [{
        provider: "github",
        externalAccountName: "acme",
        fixture: { repositories: [{ externalRepoId: "1", fullName: "acme/policy", defaultBranch: "main", branches: ["main"] }] }
      }],
      policyGroups: [{
        name: "Polled",
        phases: phases.map((p) => ({
          name: p.name,
          source: "external",
          file: {
            connection: "acme",
            repository: "acme/policy",
            branch: "main",
            path: p.path,
            ...(p.pollIntervalSeconds !== undefined ? { pollIntervalSeconds: p.pollIntervalSeconds } : {})
          }
        }))
      }]
    }]
  }))
  if (Result.isFailure(parsed)) throw new Error(parsed.failure.message)
  return parsed.success
}

/**
 * The test clock as the worker sees it, knowing when the worker sleeps until its next tick. The
 * test clock wakes a sleeping fiber but does not wait for work it did not wake (the first tick) or
 * that outlives its wake-up, so `advance` steps from one wake-up of the worker to the next and,
 * after each, waits until the worker sleeps again: every tick on the way has run to its end, as
 * the Effect 3 test clock ensured by waiting for every fiber to suspend.
 */
const workerClock = (workers: number) =>
  Effect.gen(function*() {
    const test = yield* TestClock.testClockWith(Effect.succeed)
    // every sleep under way, with when it ends: the worker's own between ticks, and while a poll runs
    // the renewals of its claim (Schedule.ts), which end with the poll
    const sleeping = new Map<symbol, { readonly wakeAt: number; readonly ms: number }>()
    const clock: Clock.Clock = {
      currentTimeMillisUnsafe: () => test.currentTimeMillisUnsafe(),
      currentTimeMillis: test.currentTimeMillis,
      currentTimeNanosUnsafe: () => test.currentTimeNanosUnsafe(),
      currentTimeNanos: test.currentTimeNanos,
      monotonicTimeNanosUnsafe: () => test.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: test.monotonicTimeNanos,
      sleep: (duration) =>
        Effect.suspend(() => {
          const token = Symbol()
          const ms = Duration.toMillis(duration)
          sleeping.set(token, { wakeAt: test.currentTimeMillisUnsafe() + ms, ms })
          return test.sleep(duration).pipe(Effect.ensuring(Effect.sync(() => sleeping.delete(token))))
        })
    }
    // idle: every worker sleeps until its next tick, and no poll is under way (nothing else sleeps)
    const tickMs = Sync.defaults("test").tickMs
    const wakeAt = () => Math.min(...[...sleeping.values()].map((s) => s.wakeAt))
    const asleep = () => {
      const all = [...sleeping.values()]
      return all.length === workers && all.every((s) => s.ms === tickMs && s.wakeAt > test.currentTimeMillisUnsafe())
    }
    // yields until the worker sleeps again (bounded in real time, so a worker that never does fails the test)
    const idle = Effect.suspend(() => {
      const deadline = Date.now() + 10_000
      const loop: Effect.Effect<void> = Effect.suspend(() =>
        asleep() ?
          Effect.void
          : Date.now() > deadline ?
          Effect.die(new Error("the sync worker did not go back to sleep"))
          : Effect.andThen(Effect.yieldNow, loop)
      )
      return loop
    })
    const advance = (duration: Duration.Input) =>
      Effect.gen(function*() {
        yield* idle
        const target = test.currentTimeMillisUnsafe() + Duration.toMillis(Duration.fromInputUnsafe(duration))
        while (wakeAt() <= target) {
          yield* TestClock.adjust(wakeAt() - test.currentTimeMillisUnsafe())
          yield* idle
        }
        yield* TestClock.adjust(target - test.currentTimeMillisUnsafe())
      })
    return { clock, advance }
  })

/** Seeds `phases`, starts the worker (tick 5 s) and hands the test what it needs; the worker stops with the test's scope. */
const withWorker = <A, E>(
  phases: Parameters<typeof seedWith>[0],
  files: Record<string, string>,
  body: (env: {
    readonly vcs: ReturnType<typeof recordingProvider>
    readonly published: (phase: string) => Effect.Effect<ReadonlyArray<string>, never, Stores>
    readonly external: (
      phase: string
    ) => Effect.Effect<{ readonly lastSyncedAt: string | null; readonly lastError: string | null }, never, Stores>
    /** Moves the test clock on, letting every tick that comes due on the way run to its end. */
    readonly advance: (duration: Duration.Input) => Effect.Effect<void>
  }) => Effect.Effect<A, E, Stores>,
  options: { readonly concurrency?: number; readonly workers?: number } = {}
) => {
  const vcs = recordingProvider()
  for (const [path, content] of Object.entries(files)) vcs.files.set(path, content)
  return Effect.gen(function*() {
    const [org] = yield* Seed.load(seedWith(phases))
    const orgId = org!.id as Id.OrgId
    const groupId = org!.policyGroups["Polled"]!.id as Id.PolicyGroupId
    const phaseId = (name: string) => org!.policyGroups["Polled"]!.phases[name]!
    const store = yield* PolicyStore
    const published = (phase: string) =>
      Effect.map(
        store.published.listByGroup(orgId, groupId),
        (all) => all.filter((m) => m.phaseId === phaseId(phase)).map((m) => m.toImage)
      )
    const external = (phase: string) =>
      Effect.map(store.policyGroups.get(orgId, groupId), (group) => {
        const found = Option.getOrThrow(group).phases.find((p) => p.id === phaseId(phase))!.external!
        return { lastSyncedAt: found.lastSyncedAt, lastError: found.lastError }
      })
    const workers = options.workers ?? 1
    const clock = yield* workerClock(workers)
    // several workers on one store stand for several hosts
    const fibers = yield* Effect.forEach(Array.from({ length: workers }, (_, i) => `test-${i}`), (workerId) =>
      Effect.forkChild(
        Sync.run({ ...Sync.defaults(workerId), concurrency: options.concurrency ?? 4 }).pipe(
          Effect.provideService(Clock.Clock, clock.clock)
        )
      ))
    // the first tick runs at once
    yield* clock.advance("0 millis")
    const result = yield* body({ vcs, published, external, advance: clock.advance })
    yield* Fiber.interruptAll(fibers)
    return result
  }).pipe(Effect.provide(App.services(MemoryStore.layer, { vcs: { fixture: vcs.provider } })))
}

describe("the poll worker's per-phase interval (TestClock)", () => {
  it("PolicyGroup.isPollDue (the worker's rule): never synced is due; otherwise the interval counts from the later of lastSyncedAt and the last attempt", () => {
    const at = (s: number) => new Date(s * 1000).toISOString()
    assert.isTrue(PolicyGroup.isPollDue({ lastSyncedAt: null, pollIntervalSeconds: 3600 }, undefined, 0))
    assert.isFalse(PolicyGroup.isPollDue({ lastSyncedAt: null, pollIntervalSeconds: 60 }, 10_000, 69_999))
    assert.isTrue(PolicyGroup.isPollDue({ lastSyncedAt: null, pollIntervalSeconds: 60 }, 10_000, 70_000))
    assert.isFalse(PolicyGroup.isPollDue({ lastSyncedAt: at(100), pollIntervalSeconds: 10 }, undefined, 109_999))
    assert.isTrue(PolicyGroup.isPollDue({ lastSyncedAt: at(100), pollIntervalSeconds: 10 }, undefined, 110_000))
    // an attempt that found nothing new (lastSyncedAt unchanged) still postpones the next poll
    assert.isFalse(PolicyGroup.isPollDue({ lastSyncedAt: at(100), pollIntervalSeconds: 10 }, 200_000, 205_000))
    assert.isTrue(PolicyGroup.isPollDue({ lastSyncedAt: at(300), pollIntervalSeconds: 10 }, 200_000, 310_000))
  })

  it.effect("within the same minute a phase with 10 s is polled every 10 s, one with 3600 s only at start", () =>
    withWorker(
      [{ name: "Fast", path: "fast.json", pollIntervalSeconds: 10 }, { name: "Slow", path: "slow.json", pollIntervalSeconds: 3600 }],
      { "fast.json": mappings("node:20.11.1"), "slow.json": mappings("node:20.11.1") },
      ({ advance, external, published, vcs }) =>
        Effect.gen(function*() {
          // both were never synced: the first tick reads both
          assert.deepStrictEqual([vcs.count("fast.json"), vcs.count("slow.json")], [1, 1])
          assert.deepStrictEqual(yield* published("Fast"), ["node:20.11.1"])
          assert.strictEqual((yield* external("Slow")).lastSyncedAt, new Date(0).toISOString())

          // the 5 s tick finds nothing due
          yield* advance("5 seconds")
          assert.deepStrictEqual([vcs.count("fast.json"), vcs.count("slow.json")], [1, 1])
          yield* advance("5 seconds")
          assert.deepStrictEqual([vcs.count("fast.json"), vcs.count("slow.json")], [2, 1])

          // a new version of both files: the fast phase follows at its next poll, the slow one does not
          vcs.files.set("fast.json", mappings("node:20.12.0"))
          vcs.files.set("slow.json", mappings("node:20.12.0"))
          yield* advance("50 seconds")
          assert.deepStrictEqual([vcs.count("fast.json"), vcs.count("slow.json")], [7, 1])
          assert.deepStrictEqual(yield* published("Fast"), ["node:20.12.0"])
          assert.strictEqual((yield* external("Fast")).lastSyncedAt, new Date(20_000).toISOString())
          assert.deepStrictEqual(yield* published("Slow"), ["node:20.11.1"])

          // an hour after its last sync the slow phase is read again and follows its file
          yield* advance("3540 seconds")
          assert.strictEqual(vcs.count("slow.json"), 2)
          assert.deepStrictEqual(yield* published("Slow"), ["node:20.12.0"])
          assert.strictEqual((yield* external("Slow")).lastSyncedAt, new Date(3_600_000).toISOString())
          assert.strictEqual(vcs.count("fast.json"), 7 + 354)
        })
    ))

  it.effect("a phase without pollIntervalSeconds in the seed is polled every 60 s", () =>
    withWorker(
      [{ name: "Default", path: "default.json" }],
      { "default.json": mappings("node:20.11.1") },
      ({ advance, vcs }) =>
        Effect.gen(function*() {
          assert.strictEqual(vcs.count("default.json"), 1)
          yield* advance("55 seconds")
          assert.strictEqual(vcs.count("default.json"), 1)
          yield* advance("5 seconds")
          assert.strictEqual(vcs.count("default.json"), 2)
          yield* advance("120 seconds")
          assert.strictEqual(vcs.count("default.json"), 4)
        })
    ))

  it.effect("a missing file and a provider outage wait for the interval too; a dying read does not stop the other phases", () =>
    withWorker(
      [
        { name: "Missing", path: "missing.json", pollIntervalSeconds: 30 },
        { name: "Down", path: "down.json", pollIntervalSeconds: 30 },
        { name: "Dies", path: "dies.json", pollIntervalSeconds: 30 },
        { name: "Fine", path: "fine.json", pollIntervalSeconds: 30 }
      ],
      { "down.json": mappings("node:20.11.1"), "dies.json": mappings("node:20.11.1"), "fine.json": mappings("node:20.11.1") },
      ({ advance, external, published, vcs }) =>
        Effect.gen(function*() {
          // the first tick read every phase before the trouble began
          vcs.broken.set("down.json", "unavailable")
          vcs.broken.set("dies.json", "defect")
          vcs.files.set("fine.json", mappings("node:20.12.0"))
          assert.match((yield* external("Missing")).lastError ?? "", /missing\.json was not found/)
          for (const seconds of [5, 5, 5, 5, 5, 5]) yield* advance(`${seconds} seconds`)
          // 30 s later: every phase read once more, no more
          assert.deepStrictEqual(["missing.json", "down.json", "dies.json", "fine.json"].map(vcs.count), [2, 2, 2, 2])
          assert.deepStrictEqual(yield* published("Fine"), ["node:20.12.0"])
          // the outage changed nothing on its phase (still the first version)
          assert.deepStrictEqual(yield* published("Down"), ["node:20.11.1"])
          assert.isNull((yield* external("Down")).lastError)
          yield* advance("30 seconds")
          assert.deepStrictEqual(["missing.json", "down.json", "dies.json", "fine.json"].map(vcs.count), [3, 3, 3, 3])
        })
    ))

  it.effect("no more phases than `concurrency` are read at once", () =>
    withWorker(
      Array.from({ length: 6 }, (_, i) => ({ name: `P${i}`, path: `p${i}.json`, pollIntervalSeconds: 10 })),
      Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}.json`, mappings("node:20.11.1")])),
      ({ advance, vcs }) =>
        Effect.gen(function*() {
          yield* advance("10 seconds")
          assert.strictEqual(vcs.reads.length, 12)
          assert.strictEqual(vcs.maxInFlight(), 2)
        }),
      { concurrency: 2 }
    ))

  it.effect("three workers on one store (three hosts) poll each phase once per due time, not three times", () =>
    withWorker(
      [{ name: "Fast", path: "fast.json", pollIntervalSeconds: 10 }, { name: "Default", path: "default.json" }],
      { "fast.json": mappings("node:20.11.1"), "default.json": mappings("node:20.11.1") },
      ({ advance, published, vcs }) =>
        Effect.gen(function*() {
          assert.deepStrictEqual([vcs.count("fast.json"), vcs.count("default.json")], [1, 1])
          assert.deepStrictEqual(yield* published("Fast"), ["node:20.11.1"])
          yield* advance("60 seconds")
          // as one worker would: every 10 s and every 60 s
          assert.deepStrictEqual([vcs.count("fast.json"), vcs.count("default.json")], [7, 2])
        }),
      { workers: 3 }
    ))
})
