/**
 * The `Authentication` middleware of every organization route (spec 5; contracts 3, 4): the key,
 * then the organization in the path, then the edition gate, then the route's permissions (all in
 * the core's `ApiKeys.authenticate`), then the key's rate limit, then the body (413, malformed JSON,
 * text no store can hold) and the query's text.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Permission, SecretHasher, Store, Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Api } from "../api/Api.js"
import { Authentication, RequiredPermissions } from "../api/Security.js"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import * as RateLimit from "./RateLimit.js"
import * as RequestInfo from "./RequestInfo.js"

/** `METHOD path-template` -> permissions, read once from the API definition's annotations. */
export const routePermissions = (): ReadonlyMap<string, ReadonlyArray<Permission.Permission>> => {
  const table = new Map<string, ReadonlyArray<Permission.Permission>>()
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const required = Context.getOption(endpoint.annotations, RequiredPermissions)
      if (Option.isSome(required)) table.set(`${endpoint.method} ${endpoint.path}`, required.value)
    }
  })
  return table
}

export interface Options {
  readonly rateLimit: RateLimit.Options | null
  readonly maxBodyBytes: number
}

export const layer = (options: Options): Layer.Layer<Authentication, never, Store | SecretHasher> =>
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      const services = yield* Effect.context<Store | SecretHasher>()
      const store = Context.get(services, Store)
      const hasher = Context.get(services, SecretHasher)
      const permissions = routePermissions()
      const limiter = RateLimit.make(options.rateLimit)
      return Authentication.of({
        // one synchronous step reads what the request holds; Effect steps only where the work is
        apiKey: (secret) =>
          Effect.withFiberRuntime((fiber) => {
            const context = fiber.currentContext
            const { params, route } = Context.unsafeGet(context, HttpRouter.RouteContext)
            const request = Context.unsafeGet(context, HttpServerRequest.HttpServerRequest)
            const info = RequestInfo.get(request)
            if (info) info.route = route.path
            const required = permissions.get(`${route.method} ${route.path}`)
            // fail closed: an organization route without declared permissions is a programming error
            if (required === undefined) return Effect.dieMessage(`no permissions declared for ${route.method} ${route.path}`)
            const workflow = Workflows.ApiKeys.authenticate(Redacted.value(secret), params.orgId ?? "", required)
            // the workflow's span only when spans are recorded (as in Call.withCaller)
            const authenticate = fiber.getFiberRef(FiberRef.currentTracerEnabled)
              ? Effect.withSpan(workflow, "ApiKeys.authenticate")
              : workflow
            // the Node server runs each request in a context that holds these very services already;
            // the web handler (Deno) does not, and gets them here
            type Authenticated = Effect.Effect<Effect.Effect.Success<typeof authenticate>, Effect.Effect.Error<typeof authenticate>>
            const provided: Authenticated =
              context.unsafeMap.get(Store.key) === store && context.unsafeMap.get(SecretHasher.key) === hasher
                ? authenticate as Authenticated
                : Effect.provide(authenticate, services)
            // one handler for both outcomes: the workflow's error as its problem, or the principal
            return Effect.matchEffect(provided, {
              onFailure: (error) => {
                const problem = Problems.fromDomain(error)
                return problem === undefined ? Effect.die(error) : Effect.fail(problem)
              },
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
                const caller = {
                  orgId: principal.orgId,
                  actor: { kind: "apiKey" as const, apiKeyId: principal.apiKeyId, serviceAccountId: principal.serviceAccountId },
                  correlationId: info?.id ?? "",
                  permissions: principal.permissions
                }
                const query = BodyGuard.queryProblem(request)
                // no body to read (GET, DELETE): the query's text is checked at once, with no step for the body
                if (!BodyGuard.hasBody(request.method)) return query === undefined ? Effect.succeed(caller) : Effect.fail(query)
                return Effect.flatMap(
                  BodyGuard.check(request, options.maxBodyBytes),
                  () => query === undefined ? Effect.succeed(caller) : Effect.fail(query)
                )
              }
            })
          })
      })
    })
  )

/**
 * Hashing is the only per-request cost of a key that does not depend on the store: remember the
 * hashes of recently seen secrets (bounded, oldest evicted first). The store lookup still runs on
 * every request, so a revoked key stops working at once.
 */
export const cachedHasher = (capacity = 10_000): Layer.Layer<SecretHasher, never, SecretHasher> =>
  Layer.effect(
    SecretHasher,
    Effect.map(SecretHasher, (inner) => {
      const cache = new Map<string, string>()
      return SecretHasher.of({
        hash: (secret) => {
          const hit = cache.get(secret)
          if (hit !== undefined) return Effect.succeed(hit)
          return Effect.tap(inner.hash(secret), (hash) =>
            Effect.sync(() => {
              if (cache.size >= capacity) cache.delete(cache.keys().next().value!)
              cache.set(secret, hash)
            }))
        }
      })
    })
  )
