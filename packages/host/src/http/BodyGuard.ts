/**
 * Reads a request body once, before the handler decodes it, so the contracted order holds
 * (contracts 4: ... 403 -> 413 -> 400): bodies over the limit answer 413 without being buffered
 * past it, bodies that are not JSON answer 400 instead of reaching the decoder. The body is cached
 * by the request, so the decoder reads it again for free.
 */
import type { Problem } from "@image-policy/client/api/Problem"
import { JsonValue, Text } from "@image-policy/core"
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import { Headers, HttpServerError, HttpServerRequest } from "effect/http"
import * as Problems from "./Problems.js"

export const defaultMaxBodyBytes = 1024 * 1024

/** 413: the body is over the limit. */
export const tooLarge = (limit: number) =>
  Problems.make({ status: 413, type: "/problems/body-too-large", detail: `request bodies are limited to ${limit} bytes` })

const unreadable = () => Problems.make({ status: 400, type: "/problems/unreadable-body", detail: "the request body could not be read" })

/** 400: a body declared as anything but JSON (contracts 4: the framework's own answer would be a 415). */
export const unsupportedMediaType = () =>
  Problems.make({ status: 400, type: "/problems/unsupported-media-type", detail: "send JSON bodies with content-type: application/json" })

const byteLength = (text: string) => new TextEncoder().encode(text).length

/** Whether a body read failed because the body is over the limit (`MaxBodySize`). */
export const isTooLarge = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"

/** The problem of a failed body read: over the limit (413), or unreadable (400). */
export const readProblem = (error: unknown, limit: number): Problem => isTooLarge(error) ? tooLarge(limit) : unreadable()

/** Whether the fiber reads bodies under `limit` already (the request lifecycle sets it for every request). */
export const limitInPlace = (fiber: Fiber.Fiber<unknown, unknown>, limit: number): boolean =>
  fiber.getRef(HttpServerRequest.MaxBodySize) === BigInt(limit)

/** A body read bounded by `limit`: past it the read fails without buffering more (413). */
export const bounded = <A, E, R>(read: Effect.Effect<A, E, R>, limit: number): Effect.Effect<A, E, R> =>
  // providing the limit again where it is in place would cost a context change on every request with a body
  Effect.withFiber((fiber) =>
    limitInPlace(fiber, limit) ? read : Effect.provideService(read, HttpServerRequest.MaxBodySize, ByteSize.bytes(limit))
  )

/** A declared content-length over the limit: refused before anything is read. */
const declaredTooLarge = (request: HttpServerRequest.HttpServerRequest, limit: number) => {
  const declared = request.headers["content-length"]
  return declared !== undefined && Number(declared) > limit
}

/**
 * One read of the body, then the checks of its text in the contracted order, then `next` (one frame
 * for the read and what follows it). A request without a body goes straight to `next`. `inPlace`:
 * the caller knows the fiber reads under `limit` already (`limitInPlace`), so the read is not wrapped.
 * `seen` sees each problem this answers (Auth.ts remembers an API key's answer for the session
 * scheme tried after it), without a frame of its own on the way that succeeds.
 */
export const checkThen = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  limit: number,
  next: Effect.Effect<A, E, R>,
  inPlace = false,
  seen: (problem: Problem) => Problem = identity
): Effect.Effect<A, E | Problem, R> => {
  if (!hasBody(request.method)) return next
  if (declaredTooLarge(request, limit)) return Effect.fail(seen(tooLarge(limit)))
  return Effect.matchEffect(inPlace ? request.text : bounded(request.text, limit), {
    onFailure: (error): Effect.Effect<A, E | Problem, R> => Effect.fail(seen(readProblem(error, limit))),
    onSuccess: (text): Effect.Effect<A, E | Problem, R> => {
      const problem = checkText(text, request.headers["content-type"], limit)
      return problem === undefined ? next : Effect.fail(seen(problem))
    }
  })
}

const identity = (problem: Problem) => problem

/**
 * The exact body bytes, bounded by the limit (413 past it, without buffering more): for routes that
 * need the bytes themselves (a provider's push: its signature covers them), not JSON checks.
 */
export const readBytes = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<Uint8Array<ArrayBuffer>, Problem> => {
  if (declaredTooLarge(request, limit)) return Effect.fail(tooLarge(limit))
  return Effect.matchEffect(bounded(request.arrayBuffer, limit), {
    onFailure: (error) => Effect.fail(readProblem(error, limit)),
    onSuccess: (buffer) => buffer.byteLength > limit ? Effect.fail(tooLarge(limit)) : Effect.succeed(new Uint8Array(buffer))
  })
}

/**
 * The API's decoder reads JSON bodies only under `application/json`; a body the checks below take as
 * JSON under another JSON media type (`application/merge-patch+json`, `text/json`) is handed to the
 * decoder as `application/json`, instead of being refused with a 415.
 */
export const asJson = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  const type = request.headers["content-type"]?.toLowerCase()
  if (type === undefined || !type.includes("json") || /^\s*application\/json\s*(;|$)/.test(type)) return request
  return request.modify({ headers: Headers.set(request.headers, "content-type", "application/json") })
}

/** The checks of a body's text, in the contracted order; `undefined` when the body may go on. */
const checkText = (text: string, contentType: string | undefined, limit: number): Problem | undefined => {
  // runtimes that buffer before the limit applies answer the same
  if (text.length > limit / 4 && byteLength(text) > limit) return tooLarge(limit)
  // only a truly empty body is "no body": whitespace alone is not JSON
  if (text === "") return undefined
  if (contentType !== undefined && !contentType.toLowerCase().includes("json")) {
    return unsupportedMediaType()
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

export const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH"
