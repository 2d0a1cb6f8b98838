/**
 * A clock for a real host that runs ahead of the system clock by an offset the test moves: days
 * pass for routines, cooldowns and expiries at once, while sleeps (polling, retries, timeouts)
 * still take their real time. `Effect.withClock` gives it to the whole host (node.ts `clock`).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

export interface ShiftedClock {
  readonly clock: Clock.Clock
  /** Moves the host's time forward. */
  readonly advance: (ms: number) => void
  /** The host's time now (epoch milliseconds). */
  readonly now: () => number
}

export const dayMs = 86_400_000

export const shiftedClock = (): ShiftedClock => {
  const system = Clock.make()
  let offset = 0
  const now = () => Date.now() + offset
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    unsafeCurrentTimeNanos: () => BigInt(now()) * 1_000_000n,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    sleep: (duration) => system.sleep(duration)
  }
  return { clock, advance: (ms) => { offset += ms }, now }
}
