/**
 * Reads a request body once, before the handler decodes it, so the contracted order holds
 * (contracts 4: ... 403 -> 413 -> 400): bodies over the limit answer 413 without being buffered
 * past it, bodies that are not JSON answer 400 instead of reaching the decoder as a defect.
 * The text is cached by the request, so the decoder reads it again for free.
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Problems from "./Problems.js"

export const defaultMaxBodyBytes = 1024 * 1024

const tooLarge = (limit: number) =>
  Problems.make({ status: 413, type: "/problems/body-too-large", detail: `request bodies are limited to ${limit} bytes` })

const byteLength = (text: string) => new TextEncoder().encode(text).length

export const check = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function*() {
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return
    const declared = request.headers["content-length"]
    if (declared !== undefined && Number(declared) > limit) return yield* Effect.fail(tooLarge(limit))
    const contentType = request.headers["content-type"]
    const text = yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
      Effect.catchAll((error) =>
        Effect.fail(
          String((error as any).cause?.message ?? "").includes("maxBytes")
            ? tooLarge(limit)
            : Problems.make({ status: 400, type: "/problems/unreadable-body", detail: "the request body could not be read" })
        )
      )
    )
    // runtimes without a streaming limit (web handler) buffer first; the answer is the same
    if (text.length > limit / 4 && byteLength(text) > limit) return yield* Effect.fail(tooLarge(limit))
    if (text.trim() === "") return
    if (contentType !== undefined && !contentType.toLowerCase().includes("json")) {
      return yield* Effect.fail(Problems.make({
        status: 400,
        type: "/problems/unsupported-media-type",
        detail: "send JSON bodies with content-type: application/json"
      }))
    }
    try {
      JSON.parse(text)
    } catch {
      // the parser's message quotes the body, which may hold anything: never echo it
      return yield* Effect.fail(Problems.make({ status: 400, type: "/problems/malformed-json", detail: "the request body is not valid JSON" }))
    }
  })

const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH"

/**
 * A body of unknown length (chunked, no content-length) read without ever abandoning it half-way.
 *
 * The Node adapter's bounded read destroys the request stream as soon as the limit is passed, which
 * resets the connection before the 413 is written: the client sees ECONNRESET, never the problem.
 * This reader keeps at most `limit` bytes, reads and discards the rest up to `drainLimit` (so the
 * request ends normally and the 413 reaches the client), and only gives up on bodies beyond that.
 * The result is cached like the platform's own `text`; bodies with a content-length (every buffered
 * client) keep the platform's reader, whose early 413 (see `check`) never reads the body at all.
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
    return new TextDecoder().decode(bytes)
  })
  const text = Effect.runSync(Effect.cached(read))
  // the same request (url, headers, route, remote address) with only the body readers replaced
  return Object.create(request, {
    text: { get: () => text },
    json: {
      get: () => Effect.tryMap(text, { try: (t) => (t === "" ? null : JSON.parse(t)) as unknown, catch: decodeError })
    },
    arrayBuffer: { get: () => Effect.map(text, (t) => new TextEncoder().encode(t).buffer as ArrayBuffer) },
    stream: { get: () => Stream.map(Stream.fromEffect(text), (t) => new TextEncoder().encode(t)) }
  }) as HttpServerRequest.HttpServerRequest
}
