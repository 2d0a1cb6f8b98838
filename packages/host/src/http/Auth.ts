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
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Api } from "../api/Api.js"
import { Authentication, RequiredPermissions } from "../api/Security.js"
import { withWorkflowSpan } from "../handlers/Call.js"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import * as RateLimit from "./RateLimit.js"
import { RequestInfo } from "./RequestInfo.js"

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
      const permissions = routePermissions()
      const limiter = RateLimit.make(options.rateLimit)
      return Authentication.of({
        apiKey: (secret) =>
          Effect.gen(function*() {
            const { params, route } = yield* HttpRouter.RouteContext
            const request = yield* HttpServerRequest.HttpServerRequest
            const info = Option.getOrUndefined(yield* Effect.serviceOption(RequestInfo))
            if (info) info.route = route.path
            const required = permissions.get(`${route.method} ${route.path}`)
            // fail closed: an organization route without declared permissions is a programming error
            if (required === undefined) return yield* Effect.dieMessage(`no permissions declared for ${route.method} ${route.path}`)
            const principal = yield* withWorkflowSpan(
              Workflows.ApiKeys.authenticate(Redacted.value(secret), params.orgId ?? "", required),
              "ApiKeys.authenticate"
            ).pipe(
              Effect.provide(services),
              Problems.orProblem
            )
            const wait = limiter.take(principal.apiKeyId, Date.now())
            if (wait > 0) {
              return yield* Effect.fail(Problems.make({
                status: 429,
                type: "/problems/rate-limited",
                detail: "this API key sent too many requests; retry after the Retry-After delay",
                retryAfterSeconds: wait
              }))
            }
            yield* BodyGuard.check(request, options.maxBodyBytes)
            yield* BodyGuard.checkQuery(request)
            return {
              orgId: principal.orgId,
              actor: { kind: "apiKey" as const, apiKeyId: principal.apiKeyId, serviceAccountId: principal.serviceAccountId },
              correlationId: info?.id ?? "",
              permissions: principal.permissions
            }
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
