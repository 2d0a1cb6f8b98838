/**
 * Scheduled work done once per due time across hosts (issue 16). Every host runs the same timers
 * (routine tick, external phase polls, snooze expiry, compliance snapshot), but each run is first
 * claimed in the store (`ScheduleStore`): of the hosts that look, one gets the run and does it;
 * the others skip it. The claim is a short lease (`leaseMs`, 30 s by default) renewed every third
 * of it while the work runs, so a host killed mid-run stops renewing and another host, looking every
 * few seconds, claims the same run once the lease has passed: within about `leaseMs` plus one look.
 *
 * A run that fails (or is interrupted, as on shutdown) is released, not marked done: any host,
 * this one included, takes it again at its next look.
 */
import { ScheduleStore } from "@image-policy/core"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"

export interface ClaimOptions {
  readonly workerId: string
  /** How long a claim holds without renewal: a killed host's run is taken over after this. */
  readonly leaseMs: number
}

export const defaultLeaseMs = 30_000

/** How often a host looks for due runs by default: a run a killed host held is taken over within `leaseMs` and this. */
export const defaultCheckMs = 5_000

/** The due time of a fixed-interval job at `nowMs`: the start of its interval, aligned to the epoch, equal on every host. */
export const slot = (nowMs: number, intervalMs: number): number => nowMs - (nowMs % Math.max(1, intervalMs))

/**
 * Runs `work` if this host claims run `dueAt` of `key`: Some(result) when it ran here, None when
 * another host holds or did it.
 */
export const once = <A, E, R>(
  options: ClaimOptions,
  key: string,
  dueAt: number,
  work: Effect.Effect<A, E, R>
): Effect.Effect<Option.Option<A>, E, R | ScheduleStore> =>
  Effect.gen(function*() {
    const store = yield* ScheduleStore
    const run = { key, dueAt, worker: options.workerId }
    const leaseMs = options.leaseMs
    if (!(yield* store.claim({ ...run, now: yield* Clock.currentTimeMillis, leaseMs }))) return Option.none()
    // renews the claim while the work runs; a claim lost all the same (this host was paused past
    // its lease) is only logged: the work ends here, and the host that took over does it again
    const heartbeat = Effect.gen(function*() {
      while (true) {
        yield* Effect.sleep(Duration.millis(Math.max(1, Math.floor(leaseMs / 3))))
        if (!(yield* store.renew({ ...run, now: yield* Clock.currentTimeMillis, leaseMs }))) {
          return yield* Effect.logWarning("scheduled run lost its claim; another host does it").pipe(
            Effect.annotateLogs({ scheduledKey: key, dueAt })
          )
        }
      }
    })
    const result = yield* Effect.scoped(Effect.andThen(Effect.forkScoped(heartbeat), work)).pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.flatMap(store.complete(run), (done) =>
            done
              ? Effect.logDebug("scheduled run done").pipe(Effect.annotateLogs({ scheduledKey: key, dueAt, workerId: options.workerId }))
              : Effect.logWarning("scheduled run finished after its claim was lost").pipe(
                Effect.annotateLogs({ scheduledKey: key, dueAt })
              ))
          : Effect.asVoid(store.release(run))
      )
    )
    return Option.some(result)
  })

/**
 * Runs a fixed-interval job until interrupted: looks every `checkMs` (at most `intervalMs`) and does
 * the current interval's run when this host claims it; `onFailure` logs a run that failed (it is
 * released, so it is tried again at the next look of any host).
 */
export const every = <A, E, R>(
  options: ClaimOptions,
  key: string,
  intervalMs: number,
  checkMs: number,
  work: Effect.Effect<A, E, R>,
  onFailure: (cause: Cause.Cause<E>) => Effect.Effect<void>
): Effect.Effect<never, never, R | ScheduleStore> =>
  Effect.gen(function*() {
    while (true) {
      const now = yield* Clock.currentTimeMillis
      yield* once(options, key, slot(now, intervalMs), work).pipe(Effect.catchCause(onFailure))
      yield* Effect.sleep(Duration.millis(Math.max(1, Math.min(intervalMs, checkMs))))
    }
  })
