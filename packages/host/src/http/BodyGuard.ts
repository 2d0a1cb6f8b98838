/**
 * Reads a request body once, before the handler decodes it, so the contracted order holds
 * (contracts 4: ... 403 -> 413 -> 400): bodies over the limit answer 413 without being buffered
 * past it, bodies that are not JSON answer 400 instead of reaching the decoder. The body's bytes are
 * cached by the request, so the decoder reads them again for free; its text and JSON are kept here
 * (`text`, `json`) for handlers that read the body themselves.
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

/**
 * Bodies read so far, by the runtime's request object (`source`, shared by every view of one request).
 * Effect's request decodes its cached bytes again on every `text` read; the decision API's megabyte
 * bodies were decoded and parsed three times on their way to the RPC server.
 */
const bodies = new WeakMap<object, { readonly text: string; json?: unknown }>()

/** The body's text, decoded once per request. */
export const text = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, HttpServerError.HttpServerError> => {
  const known = bodies.get(request.source)
  return known !== undefined ? Effect.succeed(known.text) : Effect.map(request.text, (text) => {
    bodies.set(request.source, { text })
    return text
  })
}

/** The body parsed as JSON once per request (a body `checkThen` passed was parsed there). */
export const json = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<unknown, HttpServerError.HttpServerError | SyntaxError> =>
  Effect.flatMap(text(request), (body) => {
    const known = bodies.get(request.source)
    if (known !== undefined && "json" in known) return Effect.succeed(known.json)
    return Effect.try({ try: () => JSON.parse(body) as unknown, catch: (cause) => cause as SyntaxError })
  })

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
  return Effect.matchEffect(inPlace ? text(request) : bounded(text(request), limit), {
    onFailure: (error): Effect.Effect<A, E | Problem, R> => Effect.fail(seen(readProblem(error, limit))),
    onSuccess: (body): Effect.Effect<A, E | Problem, R> => {
      const checked = checkText(body, request.headers["content-type"], limit)
      if (checked !== undefined && "problem" in checked) return Effect.fail(seen(checked.problem))
      if (checked !== undefined) {
        const known = bodies.get(request.source)
        if (known !== undefined) known.json = checked.json
      }
      return next
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

/**
 * The checks of a body's text, in the contracted order: its problem, or the JSON it holds when it
 * may go on (`undefined` for no body).
 */
const checkText = (
  text: string,
  contentType: string | undefined,
  limit: number
): { readonly problem: Problem } | { readonly json: unknown } | undefined => {
  // runtimes that buffer before the limit applies answer the same
  if (text.length > limit / 4 && Text.utf8Length(text) > limit) return { problem: tooLarge(limit) }
  // only a truly empty body is "no body": whitespace alone is not JSON
  if (text === "") return undefined
  if (contentType !== undefined && !contentType.toLowerCase().includes("json")) {
    return { problem: unsupportedMediaType() }
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    // the parser's message quotes the body, which may hold anything: never echo it
    return { problem: Problems.make({ status: 400, type: "/problems/malformed-json", detail: "the request body is not valid JSON" }) }
  }
  if (!JsonValue.withinDepth(body, JsonValue.maxDepth)) {
    return {
      problem: Problems.make({
        status: 400,
        type: "/problems/body-too-deep",
        detail: `JSON bodies may nest at most ${JsonValue.maxDepth} levels`
      })
    }
  }
  const invalid = JsonValue.unstorableFields(body)
  if (invalid.length > 0) {
    return { problem: Problems.validation(invalid, "the request body holds text that is not valid Unicode; see errors") }
  }
  return { json: body }
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
