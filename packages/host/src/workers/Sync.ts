/**
 * The external phase poll worker: every `intervalMs` (default 60 s) it syncs every external phase
 * of every organization from its mappings file, so a change merged into a phase's branch arrives
 * even without a provider push webhook (spec 3 "external phase" row). A pass starts at once, then
 * one per interval.
 *
 * Several hosts may run it at once: each sync decides under the group's row lock on the state it
 * finds there, and a file version already processed changes nothing and emits nothing, so two
 * hosts reading the same version apply it once. Provider trouble (rate limit, outage, rejected
 * credentials) is logged by its reason and retried on the next pass.
 */
import { Store, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

export interface Options {
  readonly workerId: string
  readonly intervalMs: number
  /** Phases synced at the same time within a pass. */
  readonly concurrency: number
}

export const defaults = (workerId: string): Options => ({ workerId, intervalMs: 60_000, concurrency: 4 })

/** One pass over every external phase; answers how many phases it visited. */
export const runOnce = (options: Options) =>
  Effect.gen(function*() {
    const store = yield* Store
    const phases = yield* store.policyGroups.externalPhases()
    const correlationId = `sync-${options.workerId}-${yield* Clock.currentTimeMillis}`
    yield* Effect.forEach(
      phases,
      (ref) =>
        Workflows.Sync.syncExternalPhase(
          { orgId: ref.orgId, actor: { kind: "system", name: "sync-worker" }, correlationId },
          ref.policyGroupId,
          ref.phaseId
        ).pipe(
          Effect.tap((summary) =>
            summary.changed
              ? Effect.logInfo("external phase synced").pipe(Effect.annotateLogs({
                orgId: ref.orgId,
                policyGroupId: ref.policyGroupId,
                phaseId: ref.phaseId,
                created: summary.created,
                updated: summary.updated,
                removed: summary.removed
              }))
              // a file problem is on the phase (lastError) and was announced once; every pass would repeat it
              : summary.error !== undefined
              ? Effect.logDebug("external phase not applied").pipe(Effect.annotateLogs({
                orgId: ref.orgId,
                policyGroupId: ref.policyGroupId,
                phaseId: ref.phaseId
              }))
              : Effect.void
          ),
          // the reason only: never the provider's text, a token or a file path
          Effect.catchAll((error) =>
            Effect.logWarning("external phase sync failed").pipe(Effect.annotateLogs({
              orgId: ref.orgId,
              policyGroupId: ref.policyGroupId,
              phaseId: ref.phaseId,
              reason: error._tag === "VcsProviderError" ? `provider-${error.reason}` : error._tag
            }))
          ),
          // a defect in one phase must not stop the others
          Effect.catchAllCause((cause) =>
            Effect.logError("external phase sync failed unexpectedly").pipe(
              Effect.annotateLogs({ orgId: ref.orgId, policyGroupId: ref.policyGroupId, phaseId: ref.phaseId, defect: String(cause._tag) })
            )
          )
        ),
      { concurrency: options.concurrency, discard: true }
    )
    return phases.length
  })

/** Runs until interrupted. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    while (true) {
      yield* runOnce(options).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("external phase sync pass failed").pipe(Effect.annotateLogs({ defect: String(cause._tag) }))
        )
      )
      yield* Effect.sleep(Duration.millis(options.intervalMs))
    }
  })
