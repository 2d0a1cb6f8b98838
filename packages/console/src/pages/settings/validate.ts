/**
 * The settings pages check a field with the core's own schema before sending it (the typed client
 * refuses a body its schema rejects before any request, so the API's field errors would never
 * come back): the message is the schema's, i.e. the API's.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ApiError } from "../../problem.js"

/** The schema's message for `value`, or undefined when it is valid. */
export const fieldError = <S extends Schema.Top>(schema: S, value: unknown): string | undefined => {
  const result = Schema.decodeUnknownResult(schema as unknown as Schema.Codec<unknown, unknown>)(value)
  if (Result.isSuccess(result)) return undefined
  const message = result.failure.message
  if (/length of at least 1/.test(message)) return "Required."
  return message.endsWith(".") ? message : `${message}.`
}

/** Field errors found before sending, as an `ApiError` (shown like the API's own), or undefined. */
export const localError = (errors: Readonly<Record<string, string | undefined>>): ApiError | undefined => {
  const fieldErrors: Record<string, string> = {}
  for (const [key, message] of Object.entries(errors)) if (message !== undefined) fieldErrors[key] = message
  if (Object.keys(fieldErrors).length === 0) return undefined
  return { status: 400, title: "Invalid request", detail: "Some fields need a change before this can be saved.", fieldErrors }
}

/** The first field error whose key is `key` or starts with `key[` / `key.` (`permissions[2]`). */
export const errorAt = (error: ApiError | undefined, key: string): string | undefined => {
  if (error === undefined) return undefined
  const found = Object.entries(error.fieldErrors).filter(([k]) => k === key || k.startsWith(`${key}[`) || k.startsWith(`${key}.`))
  return found.length === 0 ? undefined : found.map(([, m]) => m).join(" ")
}

/** `Apr 3, 2026, 14:05` in the reader's locale and zone. */
export const formatTime = (iso: string | null | undefined): string =>
  iso === null || iso === undefined
    ? ""
    : new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
