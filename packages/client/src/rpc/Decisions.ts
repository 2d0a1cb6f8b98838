/**
 * The decision API (issue 18) as an Effect RPC group, shared by the host (which serves it at
 * `POST /api/v1/org/{orgId}/rpc`) and its clients (`DecisionClient`). `Resolve` streams one decision
 * per request, in request order; `Explain` answers one request as the REST resolve does. See
 * docs/decision-api.md for the protocol on the wire.
 */
import { Decision, Repository, Workflows } from "@image-policy/core"
import * as Rpc from "effect/rpc/Rpc"
import * as RpcGroup from "effect/rpc/RpcGroup"
import * as RpcMiddleware from "effect/rpc/RpcMiddleware"
import * as Schema from "effect/Schema"
import { maxRequestsPerCall, ResolveRequest } from "../api/Decisions.js"
import { ResolutionView } from "../api/Repositories.js"
import { CurrentCaller } from "../api/Security.js"

/** The errors a caller can act on: an unknown repository, or a branch it does not track (`path` names `requests[i].branch`). */
export const DecisionError = Schema.Union([Repository.RepositoryNotFound, Workflows.Caller.InvalidReferenceInBody])
export type DecisionError = typeof DecisionError.Type

/**
 * The caller the host authenticated on the HTTP request (the REST routes' `Authentication`), handed
 * to the handlers. It has no client side: the credentials travel as HTTP headers.
 */
export class DecisionCaller extends RpcMiddleware.Service<DecisionCaller, { provides: CurrentCaller }>()(
  "@image-policy/client/DecisionCaller"
) {}

/**
 * `Resolve`'s payload and answers as the RPC layer carries them, checked by their shape only. The
 * host checks every request against `ResolveRequest` once, before the RPC server reads the message
 * (a 400 naming the field), and a TypeScript caller cannot build another shape; every decision is
 * `Decision.decide`'s, made by the host from the schema's type. Checked in full on the way, 100,000
 * references were 400,000 Schema passes (the client's constructor and encoder and the server's
 * decoder for the requests; the server's encoder and the client's decoder for the decisions), the
 * largest part of the client's CPU in bench/decisions.js.
 */
const ResolvePayload = Schema.declare(
  (u): u is typeof ResolveRequest.Type =>
    typeof u === "object" && u !== null && Array.isArray((u as { readonly requests?: unknown }).requests),
  // JSON as it is: without this, the JSON codec walks the value to check it is JSON
  { toCodecJson: () => undefined }
)
const DecisionAsSent = Schema.declare(
  (u): u is Decision.Decision => typeof u === "object" && u !== null && typeof (u as { readonly image?: unknown }).image === "string",
  { toCodecJson: () => undefined }
)

export class DecisionRpcs extends RpcGroup.make(
  Rpc.make("Resolve", {
    payload: ResolvePayload,
    success: DecisionAsSent,
    error: DecisionError,
    stream: true
  }),
  Rpc.make("Explain", {
    payload: Decision.DecisionRequest,
    success: ResolutionView,
    error: DecisionError
  })
).middleware(DecisionCaller) {}

// the payload's schema and limit live beside the route's description (api/Decisions.ts), which the
// web console's bundle reads without the RPC modules
export { maxRequestsPerCall, ResolveRequest }
