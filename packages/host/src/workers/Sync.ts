/**
 * The external phase poll worker: every `tickMs` (default 5 s) it looks at every external phase
 * of every organization and syncs the ones that are due from their mappings files, so a change
 * merged into a phase's branch arrives even without a provider push webhook (spec 3 "external
 * phase" row). Each phase has its own poll interval (`pollIntervalSeconds`, 10..86400, default
 * 60): the core's rule `PolicyGroup.isPollDue` says a phase is due when it was never synced, or
 * when its interval has passed since the later of its `lastSyncedAt` and this worker's last
 * attempt on it (kept in `Attempts`). The attempt counts too because a sync that finds the same
 * file version (or a provider that cannot answer) leaves `lastSyncedAt` as it was; without it an
 * unchanged phase would be read on every tick.
 *
 * Several hosts may run it at once: each sync decides under the group's row lock on the state it
 * finds there, and a file version already processed changes nothing and emits nothing, so two
 * hosts reading the same version apply it once. Provider trouble (rate limit, outage, rejected
 * credentials) is logged by its reason and retried when the phase is due again.
 */
import { PolicyGroup, PolicyStore, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Defect from "./Defect.js"

export interface Options {
  readonly workerId: string
  /** How often the worker looks for due phases; a phase's own interval decides whether it is read. */
  readonly tickMs: number
  /** Phases synced at the same time within a tick. */
  readonly concurrency: number
}

export const defaults = (workerId: string): Options => ({ workerId, tickMs: 5_000, concurrency: 4 })

/** The worker's memory: when it last polled each phase (by phase id). */
export type Attempts = Map<string, number>

/** The external phases due at `nowMs`, from one read of every external phase with its source. */
const duePhases = (attempts: Attempts, nowMs: number) =>
  Effect.gen(function*() {
    const { policyGroups } = yield* PolicyStore
    const refs = yield* policyGroups.externalPhases()
    const listed = new Set<string>(refs.map((r) => r.phaseId))
    // a phase that no longer exists is forgotten
    for (const phaseId of attempts.keys()) if (!listed.has(phaseId)) attempts.delete(phaseId)
    return refs.filter((ref) => PolicyGroup.isPollDue(ref.external, attempts.get(ref.phaseId), nowMs))
  })

/**
 * One tick: syncs every external phase that is due (at most `concurrency` at a time); answers how
 * many phases it synced. `attempts` is the worker's memory between ticks.
 */
export const tick = (options: Options, attempts: Attempts) =>
  Effect.gen(function*() {
    const nowMs = yield* Clock.currentTimeMillis
    const due = yield* duePhases(attempts, nowMs)
    const correlationId = `sync-${options.workerId}-${nowMs}`
    yield* Effect.forEach(
      due,
      (ref) =>
        Effect.sync(() => attempts.set(ref.phaseId, nowMs)).pipe(
          Effect.andThen(Workflows.Sync.syncExternalPhase(
            { orgId: ref.orgId, actor: { kind: "system", name: "sync-worker" }, correlationId },
            ref.policyGroupId,
            ref.phaseId
          )),
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
              // a file problem is on the phase (lastError) and was announced once; every poll would repeat it
              : summary.error !== undefined
              ? Effect.logDebug("external phase not applied").pipe(Effect.annotateLogs({
                orgId: ref.orgId,
                policyGroupId: ref.policyGroupId,
                phaseId: ref.phaseId
              }))
              : Effect.void
          ),
          // the reason only: never the provider's text, a token or a file path
          Effect.catch((error) =>
            Effect.logWarning("external phase sync failed").pipe(Effect.annotateLogs({
              orgId: ref.orgId,
              policyGroupId: ref.policyGroupId,
              phaseId: ref.phaseId,
              reason: error._tag === "VcsProviderError" ? `provider-${error.reason}` : error._tag
            }))
          ),
          // a defect in one phase must not stop the others
          Effect.catchCause((cause) =>
            Effect.logError("external phase sync failed unexpectedly").pipe(
              Effect.annotateLogs({
                orgId: ref.orgId,
                policyGroupId: ref.policyGroupId,
                phaseId: ref.phaseId,
                defect: Defect.kindOf(cause)
              })
            )
          )
        ),
      { concurrency: options.concurrency, discard: true }
    )
    return due.length
  })

/** Runs until interrupted: a tick at once, then one every `tickMs`. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    const attempts: Attempts = new Map()
    while (true) {
      yield* tick(options, attempts).pipe(
        Effect.catchCause((cause) =>
          Effect.logError("external phase sync tick failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) }))
        )
      )
      yield* Effect.sleep(Duration.millis(options.tickMs))
    }
  })
