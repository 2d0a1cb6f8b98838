/**
 * The client's address, for the per-address sign-in throttle: the socket's peer on Node
 * (`remoteAddress`), or the peer a runtime serving standard `Request`s (Deno) hands the web handler
 * beside each request, since a `Request` carries no address. No `X-Forwarded-For` is trusted: behind
 * a proxy every client has the proxy's address (docs/sessions.md).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { HttpServerRequest } from "effect/http"
import * as Option from "effect/Option"

/** The peer of the request being handled, when the runtime gives it beside the request. */
export const PeerAddress = Context.Reference<string | undefined>("@image-policy/host/PeerAddress", {
  defaultValue: () => undefined
})

/** The per-request context of a web handler call: `web.handler(request, ClientAddress.context(peer))`. */
export const context = (peer: string): Context.Context<never> => Context.make(PeerAddress, peer) as Context.Context<never>

/** The client's address, or "unknown" when the runtime tells none. */
export const of = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string> =>
  Option.match(request.remoteAddress, {
    onSome: Effect.succeed,
    onNone: () => Effect.map(PeerAddress, (peer) => peer ?? "unknown")
  })
