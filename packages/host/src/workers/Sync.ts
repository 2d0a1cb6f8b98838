/**
 * The external phase poll worker: every `tickMs` (default 5 s) it looks at every external phase
 * of every organization and syncs the ones that are due from their mappings files, so a change
 * merged into a phase's branch arrives even without a provider push webhook (spec 3 "external
 * phase" row). Each phase has its own poll interval (`pollIntervalSeconds`, 10..86400, default
 * 60): the core's rule `PolicyGroup.isPollDue` says a phase is due when it was never synced, or
 * when its interval has passed since the later of its `lastSyncedAt` and the last poll of it. The
 * poll counts too because a sync that finds the same file version (or a provider that cannot
 * answer) leaves `lastSyncedAt` as it was; without it an unchanged phase would be read on every
 * tick.
 *
 * Several hosts run it at once, and each poll is done by one of them: a poll is a scheduled run
 * (Schedule.ts) of key `sync:<phaseId>` due at the time the rule above makes it due, computed
 * alike by every host from the store (the phase's `lastSyncedAt`, the last poll done). The host
 * that claims it polls; a host killed mid-poll leaves it to another once its short lease passed.
 * Each sync still decides under the group's row lock, so a push-triggered sync at the same moment
 * applies a file version once. Provider trouble (rate limit, outage, rejected credentials) is
 * logged by its reason and retried when the phase is due again.
 */
import { type ExternalPhaseRef, PolicyGroup, PolicyStore, ScheduleStore, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Defect from "./Defect.js"
import * as Schedule from "./Schedule.js"

export interface Options extends Schedule.ClaimOptions {
  /** How often the worker looks for due phases; a phase's own interval decides whether it is read. */
  readonly tickMs: number
  /** Phases synced at the same time within a tick. */
  readonly concurrency: number
}

export const defaults = (workerId: string): Options => ({ workerId, tickMs: 5_000, concurrency: 4, leaseMs: Schedule.defaultLeaseMs })

/** The scheduled run key of a phase's poll. */
export const pollKey = (phaseId: string) => `sync:${phaseId}`

/** The external phases due at `nowMs` with their due times, from one read of every external phase and of their last polls. */
const duePhases = (nowMs: number) =>
  Effect.gen(function*() {
    const { policyGroups } = yield* PolicyStore
    // the polls done before the phases: a poll that ends between the two reads then shows its
    // sync's `lastSyncedAt` (later than its claim) and not yet its claim, so this host computes
    // the due time the polling host computes next, never an earlier one that was already polled
    const polled = yield* (yield* ScheduleStore).lastDone(pollKey(""))
    const refs = yield* policyGroups.externalPhases()
    return refs.flatMap((ref) => {
      const last = polled.get(pollKey(ref.phaseId))?.claimedAt
      return PolicyGroup.isPollDue(ref.external, last, nowMs) ? [{ ref, dueAt: PolicyGroup.pollDueAt(ref.external, last) }] : []
    })
  })

/** Syncs one phase; never fails (trouble is logged). */
const syncOne = (ref: ExternalPhaseRef, correlationId: string) =>
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
    Effect.asVoid
  )

/**
 * One tick: polls every external phase that is due and that this host claims (at most
 * `concurrency` at a time); answers how many phases it polled.
 */
export const tick = (options: Options) =>
  Effect.gen(function*() {
    const nowMs = yield* Clock.currentTimeMillis
    const due = yield* duePhases(nowMs)
    const correlationId = `sync-${options.workerId}-${nowMs}`
    let polled = 0
    yield* Effect.forEach(
      due,
      ({ dueAt, ref }) =>
        Schedule.once(
          options,
          pollKey(ref.phaseId),
          dueAt,
          syncOne(ref, correlationId).pipe(
            // a defect in one phase must not stop the others; the poll counts as done, so the phase
            // waits for its interval like a provider outage does instead of being read every tick
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
          )
        ).pipe(
          Effect.tap((ran) => Effect.sync(() => Option.isSome(ran) && polled++)),
          // the claim itself failed (the store): nothing was polled; the phase is due again next tick
          Effect.catchCause((cause) =>
            Effect.logError("external phase poll could not be claimed").pipe(
              Effect.annotateLogs({ orgId: ref.orgId, phaseId: ref.phaseId, defect: Defect.kindOf(cause) })
            )
          )
        ),
      { concurrency: options.concurrency, discard: true }
    )
    return polled
  })

/** Runs until interrupted: a tick at once, then one every `tickMs`. */
export const run = (options: Options) =>
  Effect.gen(function*() {
    while (true) {
      yield* tick(options).pipe(
        Effect.catchCause((cause) =>
          Effect.logError("external phase sync tick failed").pipe(Effect.annotateLogs({ defect: Defect.kindOf(cause) }))
        )
      )
      yield* Effect.sleep(Duration.millis(options.tickMs))
    }
  })
