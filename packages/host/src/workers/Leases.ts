/**
 * The leases a host holds on deliveries and scans, as the runtimes (Node, Deno) manage them: owned
 * by `instance/start` (core Lease.ts), the earlier starts' released when the host starts, its own
 * released when it stops gracefully.
 */
import { Lease, OutboxStore, ScanStore } from "@image-policy/core"
import * as Effect from "effect/Effect"

/** The owner of this start of `instance`: unique per start, even for hosts that share a pid (containers). */
export const ownerOf = (instance: string, pid: number): string =>
  Lease.owner(instance, `${pid}-${globalThis.crypto.randomUUID().slice(0, 8)}`)

/** Frees the leases of `owners` on deliveries and scans; logs how many there were, if any. */
export const release = (owners: Lease.Owners, message: string) =>
  Effect.gen(function*() {
    const deliveries = yield* (yield* OutboxStore).release(owners)
    const scans = yield* (yield* ScanStore).release(owners)
    if (deliveries + scans > 0) yield* Effect.logInfo(message).pipe(Effect.annotateLogs({ deliveries, scans }))
  })

/** At start: what earlier processes of this instance held (a crash, a kill) is taken up at once. */
export const releaseEarlier = (instance: string, owner: string) =>
  release({ instance, except: owner }, "released the leases of an earlier process of this instance")

/**
 * On a graceful stop, once the workers have ended: what is left is taken up at once by another
 * host. Never fails: a store that cannot be reached now leaves the leases to expire.
 */
export const releaseOwn = (owner: string) =>
  release({ owner }, "released the leases of unfinished work").pipe(
    Effect.catchCause(() => Effect.logWarning("could not release the leases of unfinished work: they expire instead"))
  )
