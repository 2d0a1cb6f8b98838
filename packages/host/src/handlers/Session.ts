/**
 * The session routes (issue 17; docs/sessions.md): sign in (throttled per account and per client
 * address), who am I, sign out. Each decodes, calls one workflow of `Workflows.Sessions`, and
 * encodes; the cookie and the throttle's counts are the edge's.
 */
import { Api } from "@image-policy/client/api/Api"
import { Member, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiBuilder } from "effect/http-api"
import * as ClientAddress from "../http/ClientAddress.js"
import * as Problems from "../http/Problems.js"
import { RequestInfo } from "../http/RequestInfo.js"
import * as SessionCookie from "../http/SessionCookie.js"
import * as SignInThrottle from "../http/SignInThrottle.js"

const { Sessions } = Workflows

export interface Options extends SessionCookie.Options {
  /** Refused sign-ins allowed per account and per address; default `SignInThrottle.defaults`. */
  readonly signInThrottle?: SignInThrottle.Options | undefined
}

const correlationId = Effect.withFiber((fiber) => Effect.succeed(fiber.getRef(RequestInfo)?.id ?? ""))
const nowMs = Effect.clockWith((clock) => Effect.succeed(clock.currentTimeMillisUnsafe()))

const throttled = (waitMs: number) =>
  Problems.make({
    status: 429,
    type: "/problems/sign-in-throttled",
    detail: "too many refused sign-ins for this account or from this address; retry after the Retry-After delay",
    retryAfterSeconds: waitMs / 1000
  })

export const SessionHandlers = (options: Options) => {
  const throttle = SignInThrottle.make(options.signInThrottle)
  const lifetimes = options.sessionLifetimes
  const allowedOrigin = SessionCookie.allowedOrigin(options)
  return HttpApiBuilder.group(Api, "session", (handlers) =>
    handlers
      .handle("signIn", ({ payload, request }) =>
        Effect.gen(function*() {
          const account = Member.emailKey(payload.email)
          const address = yield* ClientAddress.of(request)
          const wait = throttle.wait(account, address, yield* nowMs)
          if (wait > 0) return yield* Effect.fail(throttled(wait))
          const signedIn = yield* Sessions.signIn(
            payload,
            SessionCookie.origin(request),
            allowedOrigin(request),
            lifetimes,
            yield* correlationId
          ).pipe(
            // refused credentials count; a foreign Origin (no password was tried) does not
            Effect.tapError((error) =>
              error._tag === "SignInFailed"
                ? Effect.flatMap(nowMs, (at) => Effect.sync(() => throttle.failed(account, address, at)))
                : Effect.void
            ),
            Problems.orProblem
          )
          throttle.succeeded(account)
          yield* SessionCookie.set(options, signedIn.token, lifetimes.maxAgeMs)
          return signedIn.view
        }))
      .handle("getSession", ({ request }) => Problems.orProblem(Sessions.getSession(SessionCookie.token(request), lifetimes)))
      .handle("changePassword", ({ payload, request }) =>
        Effect.gen(function*() {
          const address = yield* ClientAddress.of(request)
          yield* Sessions.changePassword(
            SessionCookie.token(request),
            SessionCookie.origin(request),
            allowedOrigin(request),
            lifetimes,
            payload,
            yield* correlationId,
            {
              wait: (account) =>
                Effect.flatMap(nowMs, (at) => {
                  const wait = throttle.wait(account, address, at)
                  return wait > 0 ? Effect.fail(throttled(wait)) : Effect.void
                }),
              failed: (account) => Effect.flatMap(nowMs, (at) => Effect.sync(() => throttle.failed(account, address, at)))
            }
          ).pipe(Problems.orProblem)
          yield* SessionCookie.clear(options)
        }))
      .handle("signOut", ({ request }) =>
        Effect.gen(function*() {
          yield* Sessions.signOut(
            SessionCookie.token(request),
            SessionCookie.origin(request),
            allowedOrigin(request),
            lifetimes,
            yield* correlationId
          ).pipe(Problems.orProblem)
          yield* SessionCookie.clear(options)
        })))
}
