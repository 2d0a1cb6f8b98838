/**
 * The branch scan worker and the routine tick (issue 7).
 *
 * Scan worker: claims queued scans (leased, `SKIP LOCKED` on PostgreSQL, so several hosts can run
 * it at once) into a bounded pool of `concurrency` slots and runs each through the core's
 * `Scans.runScan` (tree, scannable files, findings; for a succeeded `routine` scan, the
 * remediation of the branch, run before the scan is finished so that it is retried with the scan
 * when anything goes wrong). The whole run, scan and remediation, must end within the lease
 * (`leaseMs`); a run that does not is interrupted and left to a later claim. A slot freed by one scan is refilled at once; a long scan holds
 * only its own slot. A crash loses nothing: an unfinished scan's lease expires and another pass
 * claims it again and re-runs it from the start. A defect in one scan is logged and leaves the
 * others running; that scan is retried when its lease expires. A scan claimed
 * `Scan.maxScanAttempts` times without finishing is given up by the store's next claim
 * (`failed` / `abandoned`), so it cannot hold a slot every lease period forever.
 *
 * Routine tick: every `intervalMs` (default one minute) `Scans.routineTick` queues a `routine`
 * scan for every tracked branch whose routine is due. Several hosts may tick at once: a branch
 * with a scan queued or running gets no second one.
 *
 * Logs name the scan, repository, branch and outcome only: never a token, a provider's text or
 * file contents.
 */
import { type ClaimedScan, ScanStore, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Queue from "effect/Queue"
import * as Defect from "./Defect.js"

export interface Options {
  readonly workerId: string
  /** Scans run at the same time by this worker. */
  readonly concurrency: number
  /** How long to wait before looking again when nothing is queued. */
  readonly pollIntervalMs: number
  /**
   * How long a claim is held: a crashed worker's scans are re-run after this. It covers the whole
   * run, the scan and (for a routine scan) the branch's remediation: a run still going when its
   * lease ends is interrupted here, unfinished, and claimed again later (another worker may hold
   * it by then).
   */
  readonly leaseMs: number
}

export const defaults = (workerId: string): Options => ({
  workerId,
  // each scan reads its files with a bounded concurrency of its own (core), so a few scans at once
  // already keep a provider busy; more mostly spends its rate limit faster
  concurrency: 4,
  pollIntervalMs: 500,
  // far above a scan of 5,000 files (the limit) plus its remediation (reading and writing the
  // changed files) at the providers' 10 s per request timeout
  leaseMs: 15 * 60_000
})

export interface RoutineOptions {
  readonly workerId: string
  /** Time between two ticks; the first one runs at start. */
  readonly intervalMs: number
}

export const routineDefaults = (workerId: string): RoutineOptions => ({ workerId, intervalMs: 60_000 })

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
      // scan and remediation together: past the lease another worker may claim the scan
      Effect.timeoutOption(Duration.millis(options.leaseMs))
    )
    const tookMs = (yield* Clock.currentTimeMillis) - started
    if (finished._tag === "None") {
      return yield* Effect.logWarning("scan run exceeded its lease; it will be claimed again").pipe(
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

/**
 * Claims as many scans as there are free slots (at most `limit`) and starts each in `fibers`;
 * answers how many it started. `released` gets one item each time a scan ends.
 */
const claimInto = (
  options: Options,
  limit: number,
  fibers: FiberSet.FiberSet,
  released: Queue.Queue<void>
) =>
  Effect.gen(function*() {
    const scans = yield* ScanStore
    const now = yield* Clock.currentTimeMillis
    const claimed = yield* scans.claim({ worker: options.workerId, now: new Date(now), leaseMs: options.leaseMs, limit })
    for (const c of claimed) {
      yield* FiberSet.run(fibers, Effect.ensuring(runOne(options, c), Queue.offer(released, undefined)))
    }
    return claimed.length
  })

/** Runs until interrupted (which interrupts the scans in flight; their leases expire and they are re-run). */
export const run = (options: Options) =>
  Effect.scoped(Effect.gen(function*() {
    const slots = Math.max(1, Math.floor(options.concurrency))
    const fibers = yield* FiberSet.make()
    const released = yield* Queue.unbounded<void>()
    let running = 0
    while (true) {
      // a scan that ended frees its slot (`clear` takes what is there; `takeAll` would wait for one)
      running -= (yield* Queue.clear(released)).length
      if (running >= slots) {
        yield* Queue.take(released)
        running--
        continue
      }
      const started = yield* claimInto(options, slots - running, fibers, released).pipe(
        Effect.catchCause((cause) =>
          Effect.as(Effect.logError("scan worker could not claim scans").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), 0)
        )
      )
      running += started
      // nothing queued: look again later, or as soon as a running scan ends
      if (started === 0) {
        yield* Effect.raceFirst(
          Effect.sleep(Duration.millis(options.pollIntervalMs)),
          Effect.tap(Queue.take(released), () =>
            Effect.sync(() => {
              running--
            }))
        )
      }
    }
  }))

/** One routine tick; answers how many scans it queued. */
export const tickOnce = (options: RoutineOptions) =>
  Workflows.Scans.routineTick.pipe(
    Effect.withSpan("RoutineWorker.tick"),
    Effect.tap((queued) =>
      queued > 0 ? Effect.logInfo("routine scans queued").pipe(Effect.annotateLogs({ worker: options.workerId, queued })) : Effect.void
    )
  )

/** Ticks until interrupted: one at start, then one per `intervalMs`. */
export const runRoutine = (options: RoutineOptions) =>
  Effect.gen(function*() {
    while (true) {
      yield* tickOnce(options).pipe(
        Effect.catchCause((cause) =>
          Effect.logError("routine tick failed").pipe(Effect.annotateLogs({ worker: options.workerId, defect: Defect.kindOf(cause) }))
        )
      )
      yield* Effect.sleep(Duration.millis(options.intervalMs))
    }
  })
