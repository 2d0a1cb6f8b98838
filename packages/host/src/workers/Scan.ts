/**
 * The branch scan worker and the routine tick (issue 7).
 *
 * Scan worker: claims queued scans (leased, `SKIP LOCKED` on PostgreSQL, so several hosts can run
 * it at once) into a bounded pool of `concurrency` slots and runs each through the core's
 * `Scans.runScan` (tree, scannable files, findings; for a succeeded `routine` scan, the
 * remediation of the branch, run before the scan is finished so that it is retried with the scan
 * when anything goes wrong). A slot freed by one scan is refilled at once; a long scan holds only
 * its own slot.
 *
 * Leases follow the work: short (30 s), renewed by a heartbeat (every 10 s, one statement for
 * every scan in flight) as long as the run goes on, up to `maxRunMs`; a run past that, or whose
 * lease the heartbeat finds lost (taken over, the scan removed) or run out (renewals failing), is
 * interrupted unfinished and left to a later claim. A crash loses nothing: an unfinished scan's
 * lease expires (or the instance's next start releases it) and another pass claims it again and
 * re-runs it from the start. A defect in one scan is logged and leaves the others running; that
 * scan is retried when its lease expires. On a graceful stop (workers/Stopping.ts) the worker
 * claims nothing more and ends when its scans have. A scan claimed
 * `Scan.maxScanAttempts` times without finishing is given up by the store's next claim
 * (`failed` / `abandoned`), so it cannot hold a slot every lease period forever.
 *
 * Routine tick: every `intervalMs` (default one minute) `Scans.routineTick` queues a `routine`
 * scan for every tracked branch whose routine is due. Every host runs the timer, but each tick
 * (the interval's start, aligned to the epoch) is a scheduled run (Schedule.ts) done by the one
 * host that claims it; the others look again every `checkMs` and take over a tick whose host died
 * mid-way once its lease passed. Even two ticks at once would be harmless: a branch with a scan
 * queued or running gets no second one.
 *
 * Logs name the scan, repository, branch and outcome only: never a token, a provider's text or
 * file contents.
 */
import { type ClaimedScan, type ScanKey, ScanStore, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Queue from "effect/Queue"
import * as Defect from "./Defect.js"
import * as Schedule from "./Schedule.js"
import * as Stopping from "./Stopping.js"

export interface Options {
  readonly workerId: string
  /** Scans run at the same time by this worker. */
  readonly concurrency: number
  /** How long to wait before looking again when nothing is queued. */
  readonly pollIntervalMs: number
  /**
   * How long a claim or its renewal holds a scan: a crashed worker's scans are re-run after at
   * most this. A run whose lease ends (renewals failing) is interrupted here, unfinished.
   */
  readonly leaseMs: number
  /** How often the leases of the scans in flight are renewed (at most a third of `leaseMs` is used). */
  readonly renewEveryMs: number
  /**
   * The longest a run may take, the scan and (for a routine scan) the branch's remediation: past
   * it the run is interrupted, unfinished, and claimed again later (up to `Scan.maxScanAttempts`).
   */
  readonly maxRunMs: number
}

export const defaults = (workerId: string): Options => ({
  workerId,
  // each scan reads its files with a bounded concurrency of its own (core), so a few scans at once
  // already keep a provider busy; more mostly spends its rate limit faster
  concurrency: 4,
  pollIntervalMs: 500,
  // renewed while the scan runs (heartbeat), so a crash holds its scans this long at most
  leaseMs: 30_000,
  renewEveryMs: 10_000,
  // far above a scan of 5,000 files (the limit) plus its remediation (reading and writing the
  // changed files) at the providers' 10 s per request timeout
  maxRunMs: 15 * 60_000
})

/** The renewal period actually used: renewals have two more chances before a lease runs out. */
export const renewEveryMs = (options: Options): number => Math.max(1, Math.min(options.renewEveryMs, Math.floor(options.leaseMs / 3)))

export interface RoutineOptions extends Schedule.ClaimOptions {
  /** Time between two ticks (across hosts); the current interval's tick runs at start unless done. */
  readonly intervalMs: number
  /** How often this host looks for a tick to do (at most `intervalMs`). */
  readonly checkMs: number
}

export const routineDefaults = (workerId: string): RoutineOptions => ({
  workerId,
  intervalMs: 60_000,
  checkMs: Schedule.defaultCheckMs,
  leaseMs: Schedule.defaultLeaseMs
})

const describe = (c: ClaimedScan) => ({
  orgId: c.orgId,
  scanId: c.scan.id,
  repositoryId: c.scan.repositoryId,
  branch: c.scan.branchName,
  trigger: c.scan.trigger
})

/** Runs one claimed scan; never fails, whatever happens inside. */
const runOne = (options: Options, claimed: ClaimedScan) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const finished = yield* Workflows.Scans.runScan(claimed, options.workerId).pipe(
      Effect.withSpan("ScanWorker.runScan"),
      // scan and remediation together
      Effect.timeoutOption(Duration.millis(options.maxRunMs))
    )
    const tookMs = (yield* Clock.currentTimeMillis) - started
    if (finished._tag === "None") {
      return yield* Effect.logWarning("scan run exceeded its longest run time; it will be claimed again").pipe(
        Effect.annotateLogs({ ...describe(claimed), tookMs })
      )
    }
    const scan = finished.value
    if (scan === undefined) {
      return yield* Effect.logWarning("scan lease lost: another worker took the scan over; its result was not recorded").pipe(
        Effect.annotateLogs({ ...describe(claimed), tookMs })
      )
    }
    yield* (scan.status === "succeeded" ? Effect.logInfo("scan succeeded") : Effect.logWarning("scan failed")).pipe(
      Effect.annotateLogs({
        ...describe(claimed),
        status: scan.status,
        ...(scan.failure !== null ? { failure: scan.failure } : {}),
        files: scan.fileCount,
        findings: scan.findingCount,
        tookMs
      })
    )
  }).pipe(
    // a defect in one scan must not stop the others; its lease expires and it is run again (up to
    // `Scan.maxScanAttempts` claims in all, then the store abandons it)
    Effect.catchCause((cause) =>
      Effect.logError("scan failed unexpectedly").pipe(
        Effect.annotateLogs({ ...describe(claimed), defect: Defect.kindOf(cause) })
      )
    )
  )

/** A scan in flight: its lease's end as last renewed, and its run. */
interface Held {
  readonly key: ScanKey
  until: number
  fiber?: Fiber.Fiber<void>
}

/**
 * Claims as many scans as there are free slots (at most `limit`) and starts each in `fibers`;
 * answers how many it started. `released` gets one item each time a scan ends.
 */
const claimInto = (
  options: Options,
  limit: number,
  fibers: FiberSet.FiberSet,
  released: Queue.Queue<void>,
  held: Map<string, Held>
) =>
  Effect.gen(function*() {
    const scans = yield* ScanStore
    const now = yield* Clock.currentTimeMillis
    const claimed = yield* scans.claim({ worker: options.workerId, now: new Date(now), leaseMs: options.leaseMs, limit })
    for (const c of claimed) {
      const entry: Held = { key: { orgId: c.orgId, id: c.scan.id }, until: now + options.leaseMs }
      held.set(c.scan.id, entry)
      entry.fiber = yield* FiberSet.run(
        fibers,
        Effect.ensuring(runOne(options, c), Effect.andThen(Effect.sync(() => held.delete(c.scan.id)), Queue.offer(released, undefined)))
      )
    }
    return claimed.length
  })

/**
 * Renews the leases of the scans in flight every `renewEveryMs` until interrupted, and interrupts
 * a run whose lease was lost or has run out (another worker may hold the scan). Never fails.
 */
const heartbeat = (options: Options, held: Map<string, Held>) =>
  Effect.gen(function*() {
    const scans = yield* ScanStore
    while (true) {
      yield* Effect.sleep(Duration.millis(renewEveryMs(options)))
      if (held.size === 0) continue
      const now = yield* Clock.currentTimeMillis
      const entries = [...held.values()]
      const renewed = yield* scans.renew({
        worker: options.workerId,
        now: new Date(now),
        leaseMs: options.leaseMs,
        scans: entries.map((e) => e.key)
      })
        .pipe(
          Effect.catchCause((cause) =>
            Effect.as(Effect.logWarning("scan lease renewal failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), undefined)
          )
        )
      const kept = renewed === undefined ? undefined : new Set(renewed.map((k) => k.id))
      for (const entry of entries) {
        if (kept?.has(entry.key.id) === true) entry.until = now + options.leaseMs
        // a failed renewal: the lease as last renewed still holds until it runs out
        else if (kept === undefined && entry.until > now) continue
        else if (entry.fiber !== undefined) {
          yield* Effect.logWarning("scan lease lost: the run is interrupted unfinished").pipe(
            Effect.annotateLogs({ orgId: entry.key.orgId, scanId: entry.key.id })
          )
          yield* Fiber.interrupt(entry.fiber)
        }
      }
    }
  })

/**
 * Runs until interrupted (which interrupts the scans in flight: their leases expire, or the host
 * releases them), or until a graceful stop is requested and the scans in flight have ended.
 */
export const run = (options: Options) =>
  Effect.scoped(Effect.gen(function*() {
    const slots = Math.max(1, Math.floor(options.concurrency))
    const stopping = yield* Stopping.Stopping
    const fibers = yield* FiberSet.make()
    const released = yield* Queue.unbounded<void>()
    const held = new Map<string, Held>()
    yield* Effect.forkScoped(heartbeat(options, held))
    let running = 0
    while (!Stopping.requested(stopping)) {
      // a scan that ended frees its slot (`clear` takes what is there; `takeAll` would wait for one)
      running -= (yield* Queue.clear(released)).length
      if (running >= slots) {
        yield* Queue.take(released)
        running--
        continue
      }
      const started = yield* claimInto(options, slots - running, fibers, released, held).pipe(
        Effect.catchCause((cause) =>
          Effect.as(Effect.logError("scan worker could not claim scans").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), 0)
        )
      )
      running += started
      // nothing queued: look again later, or as soon as a running scan ends or a stop is requested
      if (started === 0) {
        yield* Effect.raceFirst(
          Effect.raceFirst(Effect.sleep(Duration.millis(options.pollIntervalMs)), Deferred.await(stopping)),
          Effect.tap(Queue.take(released), () =>
            Effect.sync(() => {
              running--
            }))
        )
      }
    }
    // stopping: the scans in flight run to their end, still renewed
    yield* FiberSet.awaitEmpty(fibers)
  }))

/** One routine tick; answers how many scans it queued. */
export const tickOnce = (options: RoutineOptions) =>
  Workflows.Scans.routineTick.pipe(
    Effect.withSpan("RoutineWorker.tick"),
    Effect.tap((queued) =>
      queued > 0 ? Effect.logInfo("routine scans queued").pipe(Effect.annotateLogs({ worker: options.workerId, queued })) : Effect.void
    )
  )

/** Ticks until interrupted: one per `intervalMs` across hosts, the current one at start unless done. */
export const runRoutine = (options: RoutineOptions) =>
  Schedule.every(
    options,
    "routine",
    options.intervalMs,
    options.checkMs,
    tickOnce(options),
    (cause) => Effect.logError("routine tick failed").pipe(Effect.annotateLogs({ worker: options.workerId, defect: Defect.kindOf(cause) }))
  )
