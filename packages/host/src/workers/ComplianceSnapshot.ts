/**
 * The compliance snapshot worker (issue 15): once a day per organization it stores the day's
 * compliance report (`Workflows.Reports.snapshotCompliance`), so the history route reads one row
 * per day instead of rescanning. Every `tickMs` (default 10 minutes) it looks at every
 * organization; one that already has today's (UTC) snapshot costs one indexed read.
 *
 * Every host runs the timer, but each pass (the interval's start, aligned to the epoch) is a
 * scheduled run (Schedule.ts) done by the host that claims it. Even two passes at once would write
 * one row: the store keeps the first snapshot of a day (`INSERT ... ON CONFLICT DO NOTHING` on
 * (org, day)). A snapshot is the report as computed when the first pass got to it that day.
 */
import { ReportStore, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Defect from "./Defect.js"
import * as Schedule from "./Schedule.js"

export interface Options extends Schedule.ClaimOptions {
  /** How often a pass looks for organizations without today's snapshot (one pass per interval across hosts). */
  readonly tickMs: number
  /** How often this host looks for a pass to do (at most `tickMs`). */
  readonly checkMs: number
}

export const defaults = (workerId: string): Options => ({
  workerId,
  tickMs: 600_000,
  checkMs: Schedule.defaultCheckMs,
  leaseMs: Schedule.defaultLeaseMs
})

/** One pass over every organization; answers how many snapshots this pass stored. */
export const tick = Effect.gen(function*() {
  const reports = yield* ReportStore
  const orgIds = yield* reports.organizationIds()
  let stored = 0
  for (const orgId of orgIds) {
    yield* Workflows.Reports.snapshotCompliance(orgId).pipe(
      Effect.tap((wrote) => Effect.sync(() => wrote && stored++)),
      // a defect in one organization must not stop the others
      Effect.catchCause((cause) =>
        Effect.logError("compliance snapshot failed").pipe(Effect.annotateLogs({ orgId, defect: Defect.kindOf(cause) }))
      )
    )
  }
  return stored
})

/** Runs until interrupted: one pass per `tickMs` across hosts, the current one at start unless done. */
export const run = (options: Options) =>
  Schedule.every(
    options,
    "compliance-snapshot",
    options.tickMs,
    options.checkMs,
    Effect.tap(Effect.withSpan(tick, "ComplianceSnapshotWorker.tick"), (stored) =>
      stored > 0
        ? Effect.logInfo("compliance snapshots stored").pipe(Effect.annotateLogs({ stored, workerId: options.workerId }))
        : Effect.void),
    (cause) => Effect.logError("compliance snapshot tick failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) }))
  )
