/**
 * The outermost layer of every request (a global router middleware, so unknown routes pass through
 * it too): a request id, every failure rendered as problem JSON (contracts 4), defects logged
 * without secrets and answered 500 with a correlation id, and one structured access log line.
 */
import { contentType as problemContentType, type Problem } from "@image-policy/client/api/Problem"
import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Tracer from "effect/Tracer"
import type * as Types from "effect/Types"
import * as HostMetrics from "../metrics/HostMetrics.js"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import { type Info, RequestInfo } from "./RequestInfo.js"
import * as RequestSpan from "./RequestSpan.js"

const requestIdPattern = /^[A-Za-z0-9._:-]{1,64}$/

const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const given = request.headers["x-request-id"]
  return given !== undefined && requestIdPattern.test(given) ? given : globalThis.crypto.randomUUID()
}

/** The problem of a failure or defect the routes did not answer themselves, if it is one of ours. */
const problemOf = (error: unknown, maxBodyBytes: number): Problem | undefined => {
  if (HttpServerError.isHttpServerError(error)) {
    const reason = error.reason
    if (reason._tag === "RouteNotFound") {
      return Problems.make({ status: 404, type: "/problems/route-not-found", detail: "no such route; see GET /api/v1/openapi.json" })
    }
    // the API's decoder reads bodies as a defect: one over MaxBodySize arrives here
    if (reason._tag === "RequestParseError") return BodyGuard.readProblem(error, maxBodyBytes)
    return undefined
  }
  return Problems.fromDomain(error)
}

/** A defect's description for the log: its kind and message, never the request or its body. */
const describeDefect = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { name: typeof error }
}

const toResponse = (cause: Cause.Cause<unknown>, requestId: string, maxBodyBytes: number) => {
  const failure = Cause.findErrorOption(cause)
  const defect = Cause.findDefect(cause)
  const problem = Option.isSome(failure)
    ? problemOf(failure.value, maxBodyBytes)
    : Result.isSuccess(defect) && HttpServerError.isHttpServerError(defect.success)
    ? problemOf(defect.success, maxBodyBytes)
    : undefined
  if (problem !== undefined) return Effect.succeed(Problems.render(problem, requestId))
  if (Cause.hasInterruptsOnly(cause)) {
    return Effect.succeed(Problems.render(
      Problems.make({ status: 503, type: "/problems/interrupted", detail: "the request was interrupted", retryAfterSeconds: 1 }),
      requestId
    ))
  }
  return Effect.as(
    Effect.logError("unexpected failure").pipe(Effect.annotateLogs({ requestId, defect: describeDefect(cause) })),
    Problems.render(Problems.internalError(), requestId)
  )
}

/**
 * The framework answers a few requests itself without a failure anyone can catch (415 for a body
 * that is not JSON on a route whose body guard did not run first): every non-2xx is problem JSON,
 * and a body that is not JSON is the same 400 wherever it is refused.
 */
const ensureProblem = (response: HttpServerResponse.HttpServerResponse, requestId: string) => {
  if (response.status < 400 || (response.headers["content-type"] ?? "").startsWith(problemContentType)) return response
  return Problems.render(
    response.status === 415
      ? BodyGuard.unsupportedMediaType()
      : Problems.make({ status: response.status, type: `/problems/http-${response.status}`, detail: "the request could not be handled" }),
    requestId
  )
}

export interface Options {
  readonly accessLog: boolean
  readonly maxBodyBytes: number
}

export const layer = (options: Options) => {
  const maxBodySize = ByteSize.bytes(options.maxBodyBytes)
  return HttpRouter.middleware(
    // the host's metrics registry and whether spans are recorded, read once when the router is built
    Effect.map(
      Effect.all([Effect.service(HostMetrics.HostMetrics), RequestSpan.recorded]),
      ([metrics, traced]) => (app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
        // a plain chain over the fiber's context, not a generator: this runs around every request, and
        // each generator step and each `provideService` is an Effect step of its own
        Effect.withFiber((fiber) => {
          const request = Context.getUnsafe(
            fiber.context as Context.Context<HttpServerRequest.HttpServerRequest>,
            HttpServerRequest.HttpServerRequest
          )
          const started = performance.now()
          const info: Info = { id: requestIdOf(request), route: undefined }
          // JSON under any JSON media type
          const read = BodyGuard.asJson(request)
          // one context change for the request: its info, its body reader, and no body buffered past
          // the limit, on any route, and the request id on every log line written while it runs
          const handled = Effect.updateContext(app, (context: Context.Context<never>) => {
            const withInfo = Context.add(
              Context.add(
                Context.add(context, RequestInfo, info),
                References.CurrentLogAnnotations,
                { ...Context.get(context, References.CurrentLogAnnotations), requestId: info.id }
              ),
              HttpServerRequest.MaxBodySize,
              maxBodySize
            )
            return read === request ? withInfo : Context.add(withInfo, HttpServerRequest.HttpServerRequest, read)
          })
          const counted = metrics === undefined
            ? (response: HttpServerResponse.HttpServerResponse) =>
              HttpServerResponse.setHeader(ensureProblem(response, info.id), "x-request-id", info.id)
            : (response: HttpServerResponse.HttpServerResponse) => {
              const answered = HttpServerResponse.setHeader(ensureProblem(response, info.id), "x-request-id", info.id)
              // plain function calls, no Effect step: the registry is this host's (HostMetrics.ts)
              HostMetrics.recordRequest(metrics, request.method, info.route, answered.status, (performance.now() - started) / 1000)
              return answered
            }
          // the platform's span of this request, open around this middleware
          const span = traced ? Context.getOrUndefined(fiber.context, Tracer.ParentSpan) : undefined
          const finish = span === undefined ? counted : (response: HttpServerResponse.HttpServerResponse) => {
            RequestSpan.annotate(span, request.method, info)
            return counted(response)
          }
          const answer = !options.accessLog
            ? (response: HttpServerResponse.HttpServerResponse) => Effect.succeed(finish(response))
            : (response: HttpServerResponse.HttpServerResponse) => {
              const answered = finish(response)
              return Effect.as(
                Effect.logInfo("request").pipe(Effect.annotateLogs({
                  requestId: info.id,
                  method: request.method,
                  route: info.route ?? new URL(request.url, "http://localhost").pathname,
                  status: answered.status,
                  durationMs: Math.round((performance.now() - started) * 100) / 100
                })),
                answered
              )
            }
          // one frame for both outcomes (a catch, then a map, then a tap would be three)
          return Effect.matchCauseEffect(handled, {
            onFailure: (cause) => Effect.flatMap(toResponse(cause, info.id, options.maxBodyBytes), answer),
            onSuccess: answer
          })
          // a catch-all handles every error; the router's type asks a global middleware to keep `unhandled`
        }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
    ),
    { global: true }
  )
}
