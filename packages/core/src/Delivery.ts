/**
 * Webhook delivery policy (spec 6 "Delivery"; contracts 5 retry schedule): how an answer is
 * classified, when the next attempt happens, and when a delivery becomes a dead letter.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export type Outcome =
  | { readonly _tag: "Response"; readonly status: number }
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "NetworkError" }

export type Classification = "success" | "retry" | "disable" | "fail"

/**
 * 2xx success; 410 disables the destination; 408, 425, 429 and 5xx other than 501 (not
 * implemented) and 505 (HTTP version) retry, as do timeouts and network errors; every other
 * status is a permanent failure for this event.
 */
export const classifyResponse = (outcome: Outcome): Classification => {
  if (outcome._tag !== "Response") return "retry"
  const { status } = outcome
  if (status >= 200 && status < 300) return "success"
  if (status === 410) return "disable"
  if (status === 408 || status === 425 || status === 429) return "retry"
  if (status >= 500 && status < 600 && status !== 501 && status !== 505) return "retry"
  return "fail"
}

export const defaultRetrySchedule: ReadonlyArray<number> = [5, 30, 120, 600, 1800, 3600, 3600, 3600]
export const maxDelaySeconds = 3600
export const jitterRatio = 0.2

export class InvalidRetrySchedule extends Schema.TaggedError<InvalidRetrySchedule>()("InvalidRetrySchedule", {
  reason: Schema.String
}) {}

/** `IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE`: comma-separated positive seconds, each <= 86400, at most 20. */
export const parseRetrySchedule = (text: string): Either.Either<ReadonlyArray<number>, InvalidRetrySchedule> => {
  const parts = text.split(",").map((p) => p.trim())
  if (parts.length === 0 || parts.length > 20) {
    return Either.left(new InvalidRetrySchedule({ reason: "expected 1 to 20 comma-separated delays in seconds" }))
  }
  const delays: Array<number> = []
  for (const part of parts) {
    if (!/^\d+(\.\d+)?$/.test(part) || Number(part) <= 0 || Number(part) > 86_400) {
      return Either.left(new InvalidRetrySchedule({ reason: "each delay must be a positive number of seconds up to 86400" }))
    }
    delays.push(Number(part))
  }
  return Either.right(delays)
}

/** A `Retry-After` header: delta-seconds or an HTTP date; a past date means now, junk means nothing. */
export const parseRetryAfter = (header: string | undefined, nowMs: number): Option.Option<number> => {
  if (header === undefined) return Option.none()
  const text = header.trim()
  if (/^\d+$/.test(text)) return Option.some(Number(text))
  if (text.length < 8 || text.length > 64 || !/[a-z]/i.test(text)) return Option.none()
  const at = Date.parse(text)
  return Number.isNaN(at) ? Option.none() : Option.some(Math.max(0, Math.ceil((at - nowMs) / 1000)))
}

export type NextStep =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Disable" }
  | { readonly _tag: "Retry"; readonly delayMs: number }
  | { readonly _tag: "DeadLetter" }

/**
 * What to do after attempt number `attempt` (1-based) was classified. Delay =
 * max(scheduled ± 20 % jitter, Retry-After), capped at the maximum delay. A non-retryable answer
 * ("fail") goes straight to the dead letters rather than vanishing: the receiver may be fixed
 * later and the event replayed with the same id.
 */
export const nextStep = (input: {
  readonly attempt: number
  readonly classification: Classification
  readonly schedule?: ReadonlyArray<number>
  readonly retryAfterSeconds?: number | undefined
  /** A random number in [0, 1) supplied by the caller (the core has no randomness of its own). */
  readonly jitter: number
}): NextStep => {
  switch (input.classification) {
    case "success":
      return { _tag: "Succeeded" }
    case "disable":
      return { _tag: "Disable" }
    case "fail":
      return { _tag: "DeadLetter" }
    case "retry": {
      const schedule = input.schedule ?? defaultRetrySchedule
      const scheduled = schedule[input.attempt - 1]
      if (scheduled === undefined) return { _tag: "DeadLetter" }
      const factor = 1 - jitterRatio + 2 * jitterRatio * Math.min(Math.max(input.jitter, 0), 1)
      const seconds = Math.min(Math.max(scheduled * factor, input.retryAfterSeconds ?? 0), maxDelaySeconds)
      return { _tag: "Retry", delayMs: Math.round(seconds * 1000) }
    }
  }
}
