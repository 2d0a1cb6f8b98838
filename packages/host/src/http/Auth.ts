/**
 * The `Authentication` middleware of every organization route (spec 5, 5.1; contracts 3, 4): an API
 * key (`x-api-key`) or the web console's session cookie. Either way: the credential, then the
 * organization in the path, then (keys only) the edition gate, then the permissions the endpoint
 * declares, then the rate limit, then the body (413, malformed JSON, text no store can hold) and the
 * query's text. With the cookie, unsafe methods also need the session's CSRF token (and, when the
 * request names an Origin, this service's), checked right after the session (docs/sessions.md).
 *
 * How the two schemes share one order. The builder (effect `HttpApiBuilder.makeSecurityMiddleware`)
 * tries `apiKey` then `session`, and answers the last one's failure. So:
 * - `apiKey` with no `x-api-key` header fails at once (no lookup): the `session` scheme goes next;
 * - `apiKey` with a header runs the key path; when it fails, it remembers its problem for this
 *   request, and `session`, seeing the header, answers that same problem: a request with a key is
 *   answered as the key (404, 403 edition, 403 permission, 429, 413 ...), whatever cookie it carries;
 * - `session` without a header: no cookie answers the 401 of a missing credential; a cookie runs
 *   the session path.
 * The key path's cost on each request is as before: the failure is remembered only where it is
 * made, never on the way that succeeds.
 */
import type { Problem } from "@image-policy/client/api/Problem"
import { Authentication, CurrentCaller, RequiredPermissions, RequiredRoles } from "@image-policy/client/api/Security"
import { AccessStore, type Permission, SecretHasher, type SessionStore, Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint } from "effect/http-api"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import type * as Types from "effect/Types"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import * as RateLimit from "./RateLimit.js"
import { RequestInfo } from "./RequestInfo.js"
import * as SessionCookie from "./SessionCookie.js"

export interface Options extends SessionCookie.Options {
  readonly rateLimit: RateLimit.Options | null
  readonly maxBodyBytes: number
}

type Services = AccessStore | SecretHasher | SessionStore

export const layer = (options: Options): Layer.Layer<Authentication, never, Services> =>
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      // the workflow's services, as this layer was built with them
      const services = yield* Effect.context<Services>()
      const limiter = RateLimit.make(options.rateLimit)
      const allowedOrigin = SessionCookie.allowedOrigin(options)
      // a request without any credential: the 401 of a missing key, made once
      const missing = Problems.fromDomain(new Workflows.ApiKeys.Unauthenticated({ reason: "missing" }))!
      /** The API key scheme's answer to a request, for the session scheme that the builder tries after it. */
      const keyAnswers = new WeakMap<HttpServerRequest.HttpServerRequest, Problem>()

      /** What both schemes check once the caller is known: the rate limit, the query, the body; then the handler. */
      const admit = (
        fiber: Fiber.Fiber<unknown, unknown>,
        request: HttpServerRequest.HttpServerRequest,
        httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, CurrentCaller>,
        caller: typeof CurrentCaller.Service,
        bucket: string,
        seen: (problem: Problem) => Problem
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, Problem | Types.unhandled> => {
        const wait = limiter.take(bucket, Date.now())
        if (wait > 0) {
          return Effect.fail(seen(Problems.make({
            status: 429,
            type: "/problems/rate-limited",
            detail: "this API key or session sent too many requests; retry after the Retry-After delay",
            retryAfterSeconds: wait
          })))
        }
        const queryProblem = BodyGuard.queryProblem(request)
        const handled: Effect.Effect<HttpServerResponse.HttpServerResponse, Problem | Types.unhandled> = queryProblem === undefined
          ? Effect.provideService(httpEffect, CurrentCaller, caller)
          : Effect.fail(seen(queryProblem))
        // the body (when the method has one) is read and checked in the frame that then runs the handler
        return BodyGuard.checkThen(request, options.maxBodyBytes, handled, BodyGuard.limitInPlace(fiber, options.maxBodyBytes), seen)
      }

      /** The endpoint's requirement; an organization route without declared permissions is a programming error. */
      const requirement = (endpoint: HttpApiEndpoint.Top) => {
        const required: ReadonlyArray<Permission.Permission> | undefined = Context.getOrUndefined(endpoint.annotations, RequiredPermissions)
        // a few operations also need a built-in role by name (api/Security.ts `requiresRole`)
        const roles = Context.getOrUndefined(endpoint.annotations, RequiredRoles)
        return required === undefined ? undefined : roles === undefined ? { permissions: required } : { permissions: required, roles }
      }
      const undeclared = (endpoint: HttpApiEndpoint.Top) =>
        Effect.die(new Error(`no permissions declared for ${endpoint.method} ${endpoint.path}`))

      // the router provides both to every route handler (the middleware runs inside it)
      const routeOf = (fiber: Fiber.Fiber<unknown, unknown>) => ({
        params: Context.getUnsafe(fiber.context as Context.Context<HttpRouter.RouteContext>, HttpRouter.RouteContext).params,
        request: Context.getUnsafe(
          fiber.context as Context.Context<HttpServerRequest.HttpServerRequest>,
          HttpServerRequest.HttpServerRequest
        )
      })

      const service: typeof Authentication.Service = {
        apiKey: (httpEffect, { credential, endpoint }) =>
          // the request's own services are read straight from the fiber in one step (a `yield*` of
          // each would be an Effect step of its own, on every request of every organization route)
          Effect.withFiber((fiber) => {
            const secret = Redacted.value(credential)
            // no header: nothing to look up; the session scheme is tried next
            if (secret === "") return Effect.fail(missing)
            const required = requirement(endpoint)
            if (required === undefined) return undeclared(endpoint)
            const { params, request } = routeOf(fiber)
            const seen = (problem: Problem) => {
              keyAnswers.set(request, problem)
              return problem
            }
            const authenticated = Workflows.ApiKeys.authenticateWith(services, secret, params.orgId ?? "", required)
            // with the tracer off Effect 4 would still make a (no-op) span and capture a stack trace for it
            const traced = fiber.getRef(References.TracerEnabled) ? Effect.withSpan(authenticated, "ApiKeys.authenticate") : authenticated
            // one frame for both outcomes (`orProblem` then `flatMap` would be two)
            return Effect.matchEffect(traced, {
              onFailure: (error) => Effect.mapError(Problems.failAsProblem(error), seen),
              onSuccess: (principal) =>
                admit(
                  fiber,
                  request,
                  httpEffect,
                  {
                    orgId: principal.orgId,
                    actor: { kind: "apiKey" as const, apiKeyId: principal.apiKeyId, serviceAccountId: principal.serviceAccountId },
                    correlationId: fiber.getRef(RequestInfo)?.id ?? "",
                    permissions: principal.permissions
                  },
                  principal.apiKeyId,
                  seen
                )
            })
          }),
        session: (httpEffect, { credential, endpoint }) =>
          Effect.withFiber((fiber) => {
            const { params, request } = routeOf(fiber)
            const key = request.headers["x-api-key"]
            // a request with a key is answered as the key was (this scheme runs only after it failed)
            if (key !== undefined && key !== "") return Effect.fail(keyAnswers.get(request) ?? missing)
            const token = Redacted.value(credential)
            if (token === "") return Effect.fail(missing)
            const required = requirement(endpoint)
            if (required === undefined) return undeclared(endpoint)
            const authorized = Workflows.Sessions.authorizeWith(
              services,
              token,
              SessionCookie.origin(request),
              allowedOrigin(request),
              params.orgId ?? "",
              required,
              options.sessionLifetimes
            )
            const traced = fiber.getRef(References.TracerEnabled) ? Effect.withSpan(authorized, "Sessions.authorize") : authorized
            return Effect.matchEffect(traced, {
              onFailure: Problems.failAsProblem,
              onSuccess: (session) =>
                admit(
                  fiber,
                  request,
                  httpEffect,
                  {
                    orgId: session.orgId,
                    actor: { kind: "member" as const, memberId: session.member.id },
                    correlationId: fiber.getRef(RequestInfo)?.id ?? "",
                    permissions: session.permissions
                  },
                  session.member.id,
                  (problem) => problem
                )
            })
          })
      }
      return service
    })
  )
