/**
 * Claims on scheduled work shared by every host of one store (issue 16): the routine tick, each
 * external phase's poll, the snooze expiry pass and the compliance snapshot pass are each done by
 * one host per due time, whatever the number of hosts running the same timers.
 *
 * A run is named by a `key` (what: "routine", "sync:<phaseId>") and a `dueAt` (when it was due,
 * computed alike by every host from the store's state or the clock). A claim is a short lease:
 * the holder renews it while it works, and a host killed while holding it simply stops renewing,
 * so the run is claimed again by another host once the lease has passed. A run done (`complete`)
 * is never claimed again, nor is any run of the same key due at or before it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export interface ScheduledRun {
  readonly key: string
  /** When the run was due (epoch ms): equal for every host that computes it. */
  readonly dueAt: number
  readonly worker: string
}

export class ScheduleStore extends Context.Service<ScheduleStore, {
  /**
   * Takes run `dueAt` of `key` for `worker` until `now + leaseMs`; true when taken. Refused
   * while another claim on the key is live (its lease not passed), and when a run of the key due
   * at or after `dueAt` is done. Of several hosts claiming at once, exactly one gets it.
   */
  readonly claim: (run: ScheduledRun & { readonly now: number; readonly leaseMs: number }) => Effect.Effect<boolean>
  /** Extends the holder's lease to `now + leaseMs`; false when the claim was lost (taken over or ended). */
  readonly renew: (run: ScheduledRun & { readonly now: number; readonly leaseMs: number }) => Effect.Effect<boolean>
  /** Marks the claimed run done and frees the key; false when the claim was lost (nothing written). */
  readonly complete: (run: ScheduledRun) => Effect.Effect<boolean>
  /** Frees the key without marking the run done (it is claimed again at once); false when not held. */
  readonly release: (run: ScheduledRun) => Effect.Effect<boolean>
  /**
   * The last run done of each key that starts with `prefix` and has one: when it was due and when
   * it was claimed (epoch ms). For work whose next due time counts from its last run; by prefix so
   * that a caller can read it before the state it combines it with (see workers/Sync.ts).
   */
  readonly lastDone: (
    prefix: string
  ) => Effect.Effect<ReadonlyMap<string, { readonly dueAt: number; readonly claimedAt: number }>>
}>()("@image-policy/core/ScheduleStore") {}
