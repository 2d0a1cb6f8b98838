/**
 * The core's `PushDeliveryIds` in this process's memory: at most 10,000 ids, each for its window
 * (the core's `PushEvents.replayWindowMs`, 10 minutes). Several hosts behind one address each refuse
 * the replays they see; a replay another host accepts only repeats an idempotent sync.
 */
import { PushDeliveryIds } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const defaultCapacity = 10_000

/** A fresh memory of at most `capacity` ids; the oldest are forgotten first when it is full. */
export const make = (capacity = defaultCapacity): typeof PushDeliveryIds.Service => {
  /** key -> when it may be received again (epoch ms); oldest first. */
  const until = new Map<string, number>()
  return PushDeliveryIds.of({
    remember: (key, now, windowMs) =>
      Effect.sync(() => {
        // the front holds the oldest entries: drop the expired ones, and one more when full
        for (const [k, expires] of until) {
          if (expires > now && until.size < capacity) break
          until.delete(k)
        }
        const expires = until.get(key)
        if (expires !== undefined && expires > now) return false
        until.delete(key)
        until.set(key, now + windowMs)
        return true
      })
  })
}

/** One memory per build of the layer (per process, as the host builds its services once). */
export const layer = (capacity = defaultCapacity): Layer.Layer<PushDeliveryIds> => Layer.sync(PushDeliveryIds, () => make(capacity))
