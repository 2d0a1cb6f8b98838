/**
 * A failed call as the console shows it: the problem's `detail` (RFC 9457 problem JSON, contracts 4)
 * and its field errors keyed by the form field they belong to. No Effect here: the sign-in page
 * (first load) and the typed client's hooks (later chunks) share it.
 */
export interface ApiError {
  readonly status: number
  readonly title: string
  readonly detail: string
  /** Field errors keyed by field path without the `payload.` prefix: `name`, `branchNames[1]`. */
  readonly fieldErrors: Readonly<Record<string, string>>
  /** Seconds to wait (429, 503): the problem's `retryAfterSeconds` or the Retry-After header. */
  readonly retryAfterSeconds?: number | undefined
  readonly correlationId?: string | undefined
}

interface ProblemLike {
  readonly status?: unknown
  readonly title?: unknown
  readonly detail?: unknown
  readonly errors?: unknown
  readonly retryAfterSeconds?: unknown
  readonly correlationId?: unknown
}

/** `payload.name` / `body.name` / `name` -> `name` (the server names body fields with or without the prefix). */
export const fieldKey = (path: string): string => path.replace(/^(payload|body|urlParams|query)\./, "")

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** Turns a problem body (or anything a failed call produced) into an `ApiError`. */
export const toApiError = (value: unknown, fallbackStatus = 0, retryAfterHeader?: string | null): ApiError => {
  const p: ProblemLike = isRecord(value) ? value : {}
  const status = typeof p.status === "number" ? p.status : fallbackStatus
  const fieldErrors: Record<string, string> = {}
  if (Array.isArray(p.errors)) {
    for (const e of p.errors) {
      if (isRecord(e) && typeof e.path === "string" && typeof e.message === "string") {
        const key = fieldKey(e.path)
        fieldErrors[key] = fieldErrors[key] === undefined ? e.message : `${fieldErrors[key]} ${e.message}`
      }
    }
  }
  const header = retryAfterHeader != null && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : undefined
  const retryAfterSeconds = typeof p.retryAfterSeconds === "number" ? p.retryAfterSeconds : header
  const detail = typeof p.detail === "string" && p.detail !== ""
    ? p.detail
    : status === 0
    ? "The service could not be reached. Check your connection and try again."
    : `The request failed (HTTP ${status}).`
  return {
    status,
    title: typeof p.title === "string" ? p.title : "Error",
    detail,
    fieldErrors,
    retryAfterSeconds,
    correlationId: typeof p.correlationId === "string" ? p.correlationId : undefined
  }
}

/** "3 minutes", "45 seconds": a wait as people read it. */
export const formatWait = (seconds: number): string => {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`
  const minutes = Math.ceil(seconds / 60)
  return `${minutes} minute${minutes === 1 ? "" : "s"}`
}
