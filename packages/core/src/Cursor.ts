/**
 * Opaque keyset cursors (spec 4: the client follows the returned cursor and never builds one).
 *
 * A cursor is base64url of a versioned compact JSON position plus a checksum, so a mangled or
 * truncated cursor is detected and answered with a clear 400. It is not signed: a position only
 * moves a client within its own organization's rows, which every store query scopes anyway, so a
 * forged cursor can reveal nothing a client could not page to.
 */
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { StorableString } from "./Text.js"

export interface CursorPosition {
  readonly sortKey: string | number
  readonly id: string
}

export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  reason: Schema.String
}) {
  override get message() {
    return `invalid cursor: ${this.reason}; pass back a nextCursor exactly as received`
  }
}

const VERSION = 1

/** FNV-1a (32 bit): enough to detect accidental changes; integrity is not a security property here. */
const checksum = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(36)
}

const fromBase64Url = (text: string): string | undefined =>
  /^[A-Za-z0-9_-]*$/.test(text) ? Result.getOrUndefined(Base64Url.decodeString(text)) : undefined

export const encodeCursor = (position: CursorPosition): string => {
  const body = JSON.stringify([VERSION, position.sortKey, position.id])
  return Base64Url.encode(`${body}.${checksum(body)}`)
}

// Text a store can hold and compare (no NUL, no lone surrogate: PostgreSQL refuses both) and
// integers it can bind: a forged position must be a 400 here, never a database error later.
const StorableText = StorableString
const Payload = Schema.Tuple([
  Schema.Literal(VERSION),
  Schema.Union([
    StorableText,
    Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }))
  ]),
  StorableText
])
const decodePayload = Schema.decodeUnknownResult(Schema.fromJsonString(Payload))

export const decodeCursor = (text: string): Result.Result<CursorPosition, InvalidCursor> => {
  if (text.length === 0 || text.length > 2048) return Result.fail(new InvalidCursor({ reason: "wrong length" }))
  const decoded = fromBase64Url(text)
  if (decoded === undefined) return Result.fail(new InvalidCursor({ reason: "not base64url" }))
  const dot = decoded.lastIndexOf(".")
  const body = decoded.slice(0, dot)
  if (dot < 0 || checksum(body) !== decoded.slice(dot + 1)) {
    return Result.fail(new InvalidCursor({ reason: "checksum mismatch" }))
  }
  return Result.match(decodePayload(body), {
    onFailure: () => Result.fail(new InvalidCursor({ reason: "unknown format" })),
    onSuccess: ([, sortKey, id]) => Result.succeed({ sortKey, id })
  })
}

export const defaultLimit = 50
export const maxLimit = 200

/** The `limit` query parameter: an integer 1..200 written as a string. */
export const Limit = Schema.NumberFromString.check(
  Schema.isInt({ message: "limit must be an integer" }),
  Schema.isBetween({ minimum: 1, maximum: maxLimit }, { message: `limit must be between 1 and ${maxLimit}` })
)

/** The `cursor` query parameter: validated here, so stores only ever see cursors that decode. */
export const CursorParam = Schema.String.check(
  Schema.makeFilter((s) => Result.isSuccess(decodeCursor(s)) || "invalid cursor: pass back a nextCursor exactly as received")
)

export const PageRequest = Schema.Struct({
  cursor: Schema.optionalKey(CursorParam),
  // a missing limit decodes to the default (and encodes back as written)
  limit: Limit.pipe(Schema.withDecodingDefaultType(Effect.succeed(defaultLimit)))
})
export type PageRequest = typeof PageRequest.Type
