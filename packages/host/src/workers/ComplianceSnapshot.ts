/**
 * The compliance snapshot worker (issue 15): once a day per organization it stores the day's
 * compliance report (`Workflows.Reports.snapshotCompliance`), so the history route reads one row
 * per day instead of rescanning. Every `tickMs` (default 10 minutes) it looks at every
 * organization; one that already has today's (UTC) snapshot costs one indexed read.
 *
 * Several hosts may run it at once: the store keeps the first snapshot of a day
 * (`INSERT ... ON CONFLICT DO NOTHING` on (org, day)), so two hosts computing the same day write
 * one row. A snapshot is the report as computed when the first host got to it that day.
 */
import { ReportStore, Workflows } from "@image-policy/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Defect from "./Defect.js"

export interface Options {
  readonly workerId: string
  /** How often the worker looks for organizations without today's snapshot. */
  readonly tickMs: number
}

export const defaults = (workerId: string): Options => ({ workerId, tickMs: 600_000 })

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

/** Runs until interrupted: a pass at once, then one every `tickMs`. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    while (true) {
      const stored = yield* tick.pipe(
        Effect.withSpan("ComplianceSnapshotWorker.tick"),
        Effect.catchCause((cause) =>
          Effect.as(Effect.logError("compliance snapshot tick failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) })), 0)
        )
      )
      if (stored > 0) yield* Effect.logInfo("compliance snapshots stored").pipe(Effect.annotateLogs({ stored, workerId: options.workerId }))
      yield* Effect.sleep(Duration.millis(options.tickMs))
    }
  })
