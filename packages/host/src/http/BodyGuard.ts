/**
 * Reads a request body once, before the handler decodes it, so the contracted order holds
 * (contracts 4: ... 403 -> 413 -> 400): bodies over the limit answer 413 without being buffered
 * past it, bodies that are not JSON answer 400 instead of reaching the decoder as a defect.
 * The text is cached by the request, so the decoder reads it again for free.
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { JsonValue, Text } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Problem } from "../api/Problem.js"
import * as Problems from "./Problems.js"

export const defaultMaxBodyBytes = 1024 * 1024

const tooLarge = (limit: number) =>
  Problems.make({ status: 413, type: "/problems/body-too-large", detail: `request bodies are limited to ${limit} bytes` })

const byteLength = (text: string) => new TextEncoder().encode(text).length

const unreadable = () =>
  Problems.make({ status: 400, type: "/problems/unreadable-body", detail: "the request body could not be read" })

/** A content-length Node's parser has checked: the body it delivers is exactly that long. */
const plainLength = /^\d{1,15}$/

/**
 * One read of the body, then synchronous checks on the text. A body whose content-length is
 * declared (and within the limit, see above) is read as it is: the HTTP parser delivers exactly
 * that many bytes, so the streaming limit (a fiber-local setting around the read) is only set for
 * bodies of unknown length; the length check after the read covers runtimes that buffer first.
 */
export const check = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<void, Problem> => {
  if (!hasBody(request.method)) return Effect.void
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > limit) return Effect.fail(tooLarge(limit))
  const text = declared !== undefined && plainLength.test(declared)
    ? request.text
    : HttpIncomingMessage.withMaxBodySize(request.text, Option.some(limit))
  return Effect.matchEffect(text, {
    onFailure: (error) =>
      Effect.fail(String((error as any).cause?.message ?? "").includes("maxBytes") ? tooLarge(limit) : unreadable()),
    onSuccess: (text) => {
      const problem = checkText(text, request.headers["content-type"], limit)
      return problem === undefined ? Effect.void : Effect.fail(problem)
    }
  })
}

/**
 * The exact body bytes, bounded by the limit (413 past it, without buffering more): for routes that
 * need the bytes themselves (a provider's push: its signature covers them), not JSON checks.
 */
export const readBytes = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<Uint8Array<ArrayBuffer>, Problem> => {
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > limit) return Effect.fail(tooLarge(limit))
  return Effect.matchEffect(HttpIncomingMessage.withMaxBodySize(request.arrayBuffer, Option.some(limit)), {
    onFailure: (error) =>
      Effect.fail(String((error as any).cause?.message ?? "").includes("maxBytes") ? tooLarge(limit) : unreadable()),
    onSuccess: (buffer) => buffer.byteLength > limit ? Effect.fail(tooLarge(limit)) : Effect.succeed(new Uint8Array(buffer))
  })
}

/** The checks of a body's text, in the contracted order; `undefined` when the body may go on. */
const checkText = (text: string, contentType: string | undefined, limit: number): Problem | undefined => {
  // runtimes without a streaming limit (web handler) buffer first; the answer is the same
  if (text.length > limit / 4 && byteLength(text) > limit) return tooLarge(limit)
  // only a truly empty body is "no body": whitespace alone is not JSON, and the platform's decoder
  // (which reads "" as null but parses anything else) would fail on it as a defect (500)
  if (text === "") return undefined
  if (contentType !== undefined && !contentType.toLowerCase().includes("json")) {
    return Problems.make({
      status: 400,
      type: "/problems/unsupported-media-type",
      detail: "send JSON bodies with content-type: application/json"
    })
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    // the parser's message quotes the body, which may hold anything: never echo it
    return Problems.make({ status: 400, type: "/problems/malformed-json", detail: "the request body is not valid JSON" })
  }
  if (!JsonValue.withinDepth(body, JsonValue.maxDepth)) {
    return Problems.make({
      status: 400,
      type: "/problems/body-too-deep",
      detail: `JSON bodies may nest at most ${JsonValue.maxDepth} levels`
    })
  }
  const invalid = JsonValue.unstorableFields(body)
  if (invalid.length > 0) return Problems.validation(invalid, "the request body holds text that is not valid Unicode; see errors")
  return undefined
}

/** Query parameters must be storable text too; each bad one is a 400 naming it. */
export const queryProblem = (request: HttpServerRequest.HttpServerRequest): Problem | undefined => {
  const query = request.url.indexOf("?")
  if (query === -1) return undefined
  const invalid: Array<{ readonly path: string; readonly message: string }> = []
  for (const [name, value] of new URLSearchParams(request.url.slice(query + 1))) {
    if (!Text.isStorableText(value) || !Text.isStorableText(name)) {
      invalid.push({ path: Text.isStorableText(name) ? name : "(invalid parameter name)", message: Text.unstorableMessage })
    }
  }
  return invalid.length === 0
    ? undefined
    : Problems.validation(invalid, "a query parameter holds text that is not valid Unicode; see errors")
}

export const checkQuery = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void, Problem> =>
  Effect.suspend(() => {
    const problem = queryProblem(request)
    return problem === undefined ? Effect.void : Effect.fail(problem)
  })

export const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH"

/**
 * A body of unknown length (chunked, no content-length) read without ever abandoning it half-way.
 *
 * The Node adapter's bounded read destroys the request stream as soon as the limit is passed, which
 * resets the connection before the 413 is written: the client sees ECONNRESET, never the problem.
 * This reader keeps at most `limit` bytes, reads and discards the rest up to `drainLimit` (so the
 * request ends normally and the 413 reaches the client), and only gives up on bodies beyond that.
 * The result is cached like the platform's own `text`, and keeps the exact bytes (`arrayBuffer`);
 * bodies with a content-length (every buffered client) keep the runtime's reader (see `BodyReader`),
 * whose early 413 (see `check`) never reads the body at all.
 */
export const withDrainingBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number,
  drainLimit = limit * 16
): HttpServerRequest.HttpServerRequest => {
  if (!hasBody(request.method) || request.headers["content-length"] !== undefined) return request
  if (request.headers["transfer-encoding"] === undefined) return request
  const decodeError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  const read = Effect.gen(function*() {
    const kept: Array<Uint8Array> = []
    let size = 0
    yield* Stream.runForEachWhile(request.stream, (chunk) =>
      Effect.sync(() => {
        size += chunk.length
        if (size <= limit) kept.push(chunk)
        return size <= drainLimit
      }))
    // the same failure the platform's bounded read reports, so `check` answers 413 for both
    if (size > limit) return yield* Effect.fail(decodeError(new Error("maxBytes exceeded")))
    const bytes = new Uint8Array(size)
    let at = 0
    for (const chunk of kept) {
      bytes.set(chunk, at)
      at += chunk.length
    }
    return bytes
  })
  const body = Effect.runSync(Effect.cached(read))
  // the exact bytes for readers that need them (a push signature); the text as the platform decodes it
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  return withText(request, Effect.map(body, (b) => decoder.decode(b)), body)
}

/**
 * The same request (url, headers, route, remote address) with its body readers replaced by `text`,
 * which must read the body at most once however often it runs (the platform's readers cache too).
 * `bytes`, when the reader kept them, answers the exact bytes (a signature covers those, and bytes
 * that are not UTF-8 do not survive a round trip through text).
 */
export const withText = (
  request: HttpServerRequest.HttpServerRequest,
  text: Effect.Effect<string, HttpServerError.RequestError>,
  bytes: Effect.Effect<Uint8Array, HttpServerError.RequestError> = Effect.map(text, (t) => new TextEncoder().encode(t))
): HttpServerRequest.HttpServerRequest => {
  const decodeError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  return Object.create(request, {
    text: { get: () => text },
    json: {
      get: () => Effect.tryMap(text, { try: (t) => (t === "" ? null : JSON.parse(t)) as unknown, catch: decodeError })
    },
    // a copy of exactly the body (a Node Buffer may be a view into a larger, shared pool)
    arrayBuffer: { get: () => Effect.map(bytes, (b) => new Uint8Array(b).buffer as ArrayBuffer) },
    stream: { get: () => Stream.fromEffect(bytes) }
  }) as HttpServerRequest.HttpServerRequest
}

/**
 * A runtime's own body reader (the Node runtime's, see runtime/NodeBody.ts): the request with a
 * cheaper `text`, or the request as it is when the reader does not apply to it.
 */
export type BodyReader = (request: HttpServerRequest.HttpServerRequest, limit: number) => HttpServerRequest.HttpServerRequest

/** Whether a declared content-length lets a reader buffer the body whole: a plain length within the limit. */
export const bufferable = (request: HttpServerRequest.HttpServerRequest, limit: number): boolean => {
  if (!hasBody(request.method)) return false
  const declared = request.headers["content-length"]
  return declared !== undefined && plainLength.test(declared) && Number(declared) <= limit
}
