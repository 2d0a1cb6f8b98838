/**
 * A clock for a real host that runs ahead of the system clock by an offset the test moves: days
 * pass for routines, cooldowns and expiries at once, while sleeps (polling, retries, timeouts)
 * still take their real time. `Effect.provideService(eff, Clock.Clock, clock)` gives it to the
 * whole host (node.ts `clock`).
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
  // the framework's own clock: its sleep uses real timers (`Effect.sleep` would call back into this clock)
  const system = Clock.Clock.defaultValue()
  let offset = 0
  const now = () => Date.now() + offset
  const nanos = () => BigInt(now()) * 1_000_000n
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: now,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    // elapsed-time measurements stay real: only the wall clock is shifted
    monotonicTimeNanosUnsafe: () => system.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: system.monotonicTimeNanos,
    sleep: (duration) => system.sleep(duration)
  }
  return {
    clock,
    advance: (ms) => {
      offset += ms
    },
    now
  }
}
