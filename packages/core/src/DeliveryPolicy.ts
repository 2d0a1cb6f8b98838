/**
 * Webhook delivery policy (spec 6 "Delivery"; contracts 5 retry schedule): how an answer is
 * classified, when the next attempt happens, and when a delivery becomes a dead letter.
 */
import * as Option from "effect/Option"
import * as Result from "effect/Result"
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
}) {
  override get message() {
    return `invalid retry schedule: ${this.reason}`
  }
}

/** `IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE`: comma-separated positive seconds, each <= 86400, at most 20. */
export const parseRetrySchedule = (text: string): Result.Result<ReadonlyArray<number>, InvalidRetrySchedule> => {
  const parts = text.split(",").map((p) => p.trim())
  if (parts.length === 0 || parts.length > 20) {
    return Result.fail(new InvalidRetrySchedule({ reason: "expected 1 to 20 comma-separated delays in seconds" }))
  }
  const delays: Array<number> = []
  for (const part of parts) {
    if (!/^\d+(\.\d+)?$/.test(part) || Number(part) <= 0 || Number(part) > 86_400) {
      return Result.fail(new InvalidRetrySchedule({ reason: "each delay must be a positive number of seconds up to 86400" }))
    }
    delays.push(Number(part))
  }
  return Result.succeed(delays)
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const month = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
const time = "(\\d{2}):(\\d{2}):(\\d{2})"
// the three HTTP-date forms a recipient must accept (RFC 9110 5.6.7); `Date.parse` would accept
// far more, differently per runtime
const imfFixdate = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${month} (\\d{4}) ${time} GMT$`)
const rfc850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${month}-(\\d{2}) ${time} GMT$`)
const asctime = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${month} ( \\d|\\d{2}) ${time} (\\d{4})$`)

const utc = (year: number, monthName: string, day: number, h: number, m: number, s: number): number | undefined => {
  const monthIndex = months.indexOf(monthName)
  if (h > 23 || m > 59 || s > 60) return undefined
  const at = Date.UTC(year, monthIndex, day, h, m, Math.min(s, 59))
  // refuses 31 Feb and the like instead of rolling over into the next month
  return new Date(at).getUTCDate() === day ? at : undefined
}

const parseHttpDate = (text: string): number | undefined => {
  let m = imfFixdate.exec(text)
  if (m !== null) return utc(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]))
  m = rfc850.exec(text)
  if (m !== null) {
    // two-digit years: RFC 9110 reads them as the most recent such year that is not far in the future
    const yy = Number(m[3])
    return utc(yy < 70 ? 2000 + yy : 1900 + yy, m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]))
  }
  m = asctime.exec(text)
  if (m !== null) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), Number(m[3]), Number(m[4]), Number(m[5]))
  return undefined
}

/** A `Retry-After` header: delta-seconds or an HTTP date; a past date means now, junk means nothing. */
export const parseRetryAfter = (header: string | undefined, nowMs: number): Option.Option<number> => {
  if (header === undefined) return Option.none()
  const text = header.trim()
  if (/^\d{1,10}$/.test(text)) return Option.some(Number(text))
  const at = parseHttpDate(text)
  return at === undefined ? Option.none() : Option.some(Math.max(0, Math.ceil((at - nowMs) / 1000)))
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
