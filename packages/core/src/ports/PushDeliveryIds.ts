import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * The memory of provider push deliveries received lately, which tells a replay from a first
 * delivery. The adapters' `MemoryPushDeliveryIds` keeps it per process (bounded); a store shared by
 * several hosts could keep it for all of them.
 */
export class PushDeliveryIds extends Context.Service<PushDeliveryIds, {
  /**
   * Records `key` as received at `now` (epoch ms) for `windowMs`; false when it was already received
   * inside its window (a replay, which is not recorded again).
   */
  readonly remember: (key: string, now: number, windowMs: number) => Effect.Effect<boolean>
}>()("@image-policy/core/PushDeliveryIds") {}
