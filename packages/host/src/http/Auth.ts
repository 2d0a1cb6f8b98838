/**
 * The `Authentication` middleware of every organization route (spec 5; contracts 3, 4): the key,
 * then the organization in the path, then the edition gate, then the permissions the endpoint
 * declares (all in the core's `ApiKeys.authenticate`), then the key's rate limit, then the body (413,
 * malformed JSON, text no store can hold) and the query's text.
 */
import { type Permission, SecretHasher, Store, Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { Authentication, CurrentCaller, RequiredPermissions } from "../api/Security.js"
import * as BodyGuard from "./BodyGuard.js"
import * as Problems from "./Problems.js"
import * as RateLimit from "./RateLimit.js"
import { RequestInfo } from "./RequestInfo.js"

export interface Options {
  readonly rateLimit: RateLimit.Options | null
  readonly maxBodyBytes: number
}

export const layer = (options: Options): Layer.Layer<Authentication, never, Store | SecretHasher> =>
  Layer.effect(
    Authentication,
    Effect.gen(function*() {
      // the workflow's services, as this layer was built with them
      const services = yield* Effect.context<Store | SecretHasher>()
      const limiter = RateLimit.make(options.rateLimit)
      return {
        apiKey: (httpEffect, { credential, endpoint }) =>
          Effect.gen(function*() {
            // fail closed: an organization route without declared permissions is a programming error
            const required: ReadonlyArray<Permission.Permission> | undefined = Context.getOrUndefined(endpoint.annotations, RequiredPermissions)
            if (required === undefined) {
              return yield* Effect.die(new Error(`no permissions declared for ${endpoint.method} ${endpoint.path}`))
            }
            // the route's raw path parameters: a missing x-api-key arrives as an empty secret (401)
            const { params } = yield* HttpRouter.RouteContext
            const principal = yield* Workflows.ApiKeys.authenticate(Redacted.value(credential), params.orgId ?? "", required).pipe(
              Effect.withSpan("ApiKeys.authenticate"),
              Effect.provideContext(services),
              Problems.orProblem
            )
            const wait = limiter.take(principal.apiKeyId, Date.now())
            if (wait > 0) {
              return yield* Problems.make({
                status: 429,
                type: "/problems/rate-limited",
                detail: "this API key sent too many requests; retry after the Retry-After delay",
                retryAfterSeconds: wait
              })
            }
            const request = yield* HttpServerRequest.HttpServerRequest
            yield* BodyGuard.check(request, options.maxBodyBytes)
            yield* BodyGuard.checkQuery(request)
            const info = yield* RequestInfo
            return yield* Effect.provideService(httpEffect, CurrentCaller, {
              orgId: principal.orgId,
              actor: { kind: "apiKey" as const, apiKeyId: principal.apiKeyId, serviceAccountId: principal.serviceAccountId },
              correlationId: info?.id ?? "",
              permissions: principal.permissions
            })
          })
      }
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
