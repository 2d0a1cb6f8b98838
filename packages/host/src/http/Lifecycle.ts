/**
 * The outermost layer of every request: a request id, every failure rendered as problem JSON
 * (contracts 4; unknown routes included), defects logged without secrets and answered 500 with a
 * correlation id, and one structured access log line.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { constTrue } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Problem } from "../api/Problem.js"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import * as RequestInfo from "./RequestInfo.js"

const requestIdPattern = /^[A-Za-z0-9._:-]{1,64}$/

const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const given = request.headers["x-request-id"]
  return given !== undefined && requestIdPattern.test(given) ? given : globalThis.crypto.randomUUID()
}

const tagOf = (u: unknown) => (typeof u === "object" && u !== null ? (u as any)._tag : undefined)

const failureProblem = (error: unknown): Problem | undefined => {
  if (error instanceof Problem) return error
  if (error instanceof HttpApiError.HttpApiDecodeError) return Problems.fromDecodeError(error.issues)
  switch (tagOf(error)) {
    case "RouteNotFound":
      return Problems.make({ status: 404, type: "/problems/route-not-found", detail: "no such route; see GET /api/v1/openapi.json" })
    case "RequestError":
      return Problems.make({ status: 400, type: "/problems/unreadable-body", detail: "the request body could not be read" })
  }
  return Problems.fromDomain(error)
}

/** A defect's description for the log: its kind and message, never the request or its body. */
const describeDefect = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { name: typeof error }
}

const toResponse = (cause: Cause.Cause<unknown>, requestId: string) => {
  const failure = Cause.failureOption(cause)
  const problem = Option.isSome(failure) ? failureProblem(failure.value) : undefined
  if (problem !== undefined) return Effect.succeed(Problems.render(problem, requestId))
  if (Cause.isInterruptedOnly(cause)) {
    return Effect.succeed(Problems.render(
      Problems.make({ status: 503, type: "/problems/interrupted", detail: "the request was interrupted", retryAfterSeconds: 1 }),
      requestId
    ))
  }
  return Effect.as(
    Effect.logError("unexpected failure").pipe(Effect.annotateLogs({ requestId, defect: describeDefect(cause) })),
    Problems.render(
      Problems.make({
        status: 500,
        type: "/problems/internal-error",
        detail: "an unexpected error occurred; quote the correlationId when reporting it"
      }),
      requestId
    )
  )
}

export interface Options {
  readonly accessLog: boolean
  readonly maxBodyBytes: number
  /** The runtime's own body reader, when it has a cheaper one than the platform's (Node). */
  readonly bodyReader?: BodyGuard.BodyReader | undefined
}

export const middleware = (options: Options) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const started = options.accessLog ? performance.now() : 0
    const info: RequestInfo.RequestInfo = { id: requestIdOf(request), route: undefined }
    RequestInfo.set(request, info)
    // chunked bodies over the limit must still get their 413 (see BodyGuard.withDrainingBody), and
    // the runtime may read bodies more cheaply than the platform; every other request (GET, DELETE)
    // runs in its context as it is, with no context change
    const drained = BodyGuard.withDrainingBody(request, options.maxBodyBytes)
    const guarded = drained !== request || options.bodyReader === undefined
      ? drained
      : options.bodyReader(request, options.maxBodyBytes)
    const handled = Effect.catchAllCause(
      guarded === request
        ? app
        : Effect.mapInputContext(app, (context: Context.Context<HttpServerRequest.HttpServerRequest>) =>
          Context.add(context, HttpServerRequest.HttpServerRequest, guarded)),
      (cause) => toResponse(cause, info.id)
    )
    if (!options.accessLog) return Effect.map(handled, (response) => HttpServerResponse.setHeader(response, "x-request-id", info.id))
    return Effect.flatMap(handled, (response) =>
      Effect.as(
        Effect.logInfo("request").pipe(Effect.annotateLogs({
          requestId: info.id,
          method: request.method,
          route: info.route ?? new URL(request.url, "http://localhost").pathname,
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 100) / 100
        })),
        HttpServerResponse.setHeader(response, "x-request-id", info.id)
      ))
  })

/**
 * The platform's request span, only when spans are recorded. With the tracer off the platform
 * still parses the URL, redacts the headers, makes a no-op span and puts it in the request's
 * context (about 40 Effect steps per request); `tracing: false` skips that bookkeeping too.
 * `App.apiLayer` adds it from the tracer flag the runtime set (`--tracing` turns it into `Layer.empty`).
 */
export const requestSpans = (tracing: boolean): Layer.Layer<never> =>
  tracing ? Layer.empty : Layer.scopedDiscard(Effect.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, constTrue))
