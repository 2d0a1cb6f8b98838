/**
 * The `Authentication` middleware of every organization route (spec 5; contracts 3, 4): the key,
 * then the organization in the path, then the edition gate, then the permissions the endpoint
 * declares (all in the core's `ApiKeys.authenticate`), then the key's rate limit, then the body (413,
 * malformed JSON, text no store can hold) and the query's text.
 */
import type { Problem } from "@image-policy/client/api/Problem"
import { Authentication, CurrentCaller, RequiredPermissions, RequiredRoles } from "@image-policy/client/api/Security"
import { AccessStore, type Permission, SecretHasher, Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import type * as Types from "effect/Types"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import * as RateLimit from "./RateLimit.js"
import { RequestInfo } from "./RequestInfo.js"

export interface Options {
  readonly rateLimit: RateLimit.Options | null
  readonly maxBodyBytes: number
}

export const layer = (options: Options): Layer.Layer<Authentication, never, AccessStore | SecretHasher> =>
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      // the workflow's services, as this layer was built with them
      const services = yield* Effect.context<AccessStore | SecretHasher>()
      const limiter = RateLimit.make(options.rateLimit)
      const service: typeof Authentication.Service = {
        // PLACEHOLDER (issue 17 base): session cookie authentication replaces this before anything lands on main.
        // The builder tries the schemes in order and answers the last one's failure, so this one answers as the key would.
        session: (httpEffect, options) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            service.apiKey(httpEffect, { ...options, credential: Redacted.make(request.headers["x-api-key"] ?? "") })),
        apiKey: (httpEffect, { credential, endpoint }) =>
          // the request's own services are read straight from the fiber in one step (a `yield*` of
          // each would be an Effect step of its own, on every request of every organization route)
          Effect.withFiber((fiber) => {
            // fail closed: an organization route without declared permissions is a programming error
            const required: ReadonlyArray<Permission.Permission> | undefined = Context.getOrUndefined(
              endpoint.annotations,
              RequiredPermissions
            )
            if (required === undefined) {
              return Effect.die(new Error(`no permissions declared for ${endpoint.method} ${endpoint.path}`))
            }
            // a few operations also need a built-in role by name (api/Security.ts `requiresRole`)
            const roles = Context.getOrUndefined(endpoint.annotations, RequiredRoles)
            // the router provides both to every route handler (the middleware runs inside it)
            const { params } = Context.getUnsafe(fiber.context as Context.Context<HttpRouter.RouteContext>, HttpRouter.RouteContext)
            const request = Context.getUnsafe(
              fiber.context as Context.Context<HttpServerRequest.HttpServerRequest>,
              HttpServerRequest.HttpServerRequest
            )
            // the route's raw path parameters: a missing x-api-key arrives as an empty secret (401)
            const authenticated = Workflows.ApiKeys.authenticateWith(
              services,
              Redacted.value(credential),
              params.orgId ?? "",
              roles === undefined ? required : { permissions: required, roles }
            )
            // with the tracer off Effect 4 would still make a (no-op) span and capture a stack trace for it
            const traced = fiber.getRef(References.TracerEnabled) ? Effect.withSpan(authenticated, "ApiKeys.authenticate") : authenticated
            // one frame for both outcomes (`orProblem` then `flatMap` would be two)
            return Effect.matchEffect(traced, {
              onFailure: Problems.failAsProblem,
              onSuccess: (principal) => {
                const wait = limiter.take(principal.apiKeyId, Date.now())
                if (wait > 0) {
                  return Effect.fail(Problems.make({
                    status: 429,
                    type: "/problems/rate-limited",
                    detail: "this API key sent too many requests; retry after the Retry-After delay",
                    retryAfterSeconds: wait
                  }))
                }
                const caller: typeof CurrentCaller.Service = {
                  orgId: principal.orgId,
                  actor: { kind: "apiKey" as const, apiKeyId: principal.apiKeyId, serviceAccountId: principal.serviceAccountId },
                  correlationId: fiber.getRef(RequestInfo)?.id ?? "",
                  permissions: principal.permissions
                }
                const queryProblem = BodyGuard.queryProblem(request)
                const handled: Effect.Effect<HttpServerResponse.HttpServerResponse, Problem | Types.unhandled> = queryProblem === undefined
                  ? Effect.provideService(httpEffect, CurrentCaller, caller)
                  : Effect.fail(queryProblem)
                // the body (when the method has one) is read and checked in the frame that then runs the handler
                return BodyGuard.checkThen(request, options.maxBodyBytes, handled, BodyGuard.limitInPlace(fiber, options.maxBodyBytes))
              }
            })
          })
      }
      return service
    })
  )
