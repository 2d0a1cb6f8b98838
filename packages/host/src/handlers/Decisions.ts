/**
 * The decision API's route (issue 18): `POST /api/v1/org/{orgId}/rpc` serves `DecisionRpcs` over
 * HTTP with NDJSON framing, so decisions leave as they are computed. The route is an endpoint of the
 * `Api`, so the REST routes' `Authentication` runs first, unchanged (credential, organization,
 * edition, `policy:read`, rate limit, body); its caller reaches the RPC handlers through the request's
 * context, which the RPC server hands to the handler it starts for the message (`DecisionCaller`).
 * The handler here decodes the request message (a 400 naming the field, where the RPC server would
 * answer a defect) and hands the request to the RPC server.
 */
import { DecisionFraming, DecisionRpcs } from "@image-policy/client"
import { Api } from "@image-policy/client/api/Api"
import { ExplainCall, ResolveCall, RpcRequestEnvelope } from "@image-policy/client/api/Decisions"
import { CurrentCaller } from "@image-policy/client/api/Security"
import { Input, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as RpcServer from "effect/rpc/RpcServer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as BodyGuard from "../http/BodyGuard.js"
import * as Problems from "../http/Problems.js"

const { Decisions } = Workflows

const Handlers = DecisionRpcs.DecisionRpcs.toLayer({
  Resolve: ({ requests }) => Stream.unwrap(CurrentCaller.useSync((caller) => Decisions.resolve(caller, requests))),
  Explain: (request) => CurrentCaller.use((caller) => Decisions.explain(caller, request))
}).pipe(
  // one per host: a stream of requests arrives as call after call against the same policies
  Layer.provide(Layer.sync(Decisions.IndexCache, () => Decisions.makeIndexCache()))
)

/** The caller `Authentication` proved for the HTTP request; a route served without it is a bug of ours, never an anonymous call. */
const CallerFromRequest = Layer.succeed(DecisionRpcs.DecisionCaller)((effect) =>
  Effect.flatMap(
    Effect.serviceOption(CurrentCaller),
    Option.match({
      onNone: () => Effect.die(new Error("decision RPC reached without an authenticated caller")),
      onSome: (caller) => Effect.provideService(effect, CurrentCaller, caller)
    })
  )
)

const parseOptions = { errors: "all", onExcessProperty: "error" } as const
const decodeEnvelope = Schema.decodeUnknownResult(RpcRequestEnvelope)
const decodeCall = { Resolve: Schema.decodeUnknownResult(ResolveCall), Explain: Schema.decodeUnknownResult(ExplainCall) } as const

/** A problem when `message` is not one valid request message of the group; `undefined` when the RPC server may read it. */
const requestProblem = (message: unknown) => {
  const envelope = decodeEnvelope(message, parseOptions)
  if (Result.isFailure(envelope)) return Problems.validation(Input.fieldErrors(envelope.failure))
  const call: Result.Result<unknown, Schema.SchemaError> = decodeCall[envelope.success.tag](message, parseOptions)
  return Result.isFailure(call) ? Problems.validation(Input.fieldErrors(call.failure)) : undefined
}

// never echo the body: it may hold anything
const malformed = () => Problems.make({ status: 400, type: "/problems/malformed-json", detail: "send one RPC request message as JSON" })

/**
 * The request as the RPC server reads it: its body's text is the one `Authentication` decoded (the
 * runtime's request would decode its bytes again). Every other field is the request's own.
 */
const withBodyText = (request: HttpServerRequest.HttpServerRequest, text: string): HttpServerRequest.HttpServerRequest =>
  Object.create(request, { text: { value: Effect.succeed(text) } })

export const DecisionsHandlers = HttpApiBuilder.group(
  Api,
  "decisions",
  (handlers) =>
    Effect.map(
      RpcServer.toHttpEffect(DecisionRpcs.DecisionRpcs, { spanPrefix: "decisions" }),
      (rpc) =>
        handlers.handleRaw("decisionRpc", ({ request }) =>
          // the body was read and checked as JSON by `Authentication`; both are kept for this request
          Effect.matchEffect(BodyGuard.json(request), {
            onFailure: () => Effect.fail(malformed()),
            onSuccess: (message) => {
              const problem = requestProblem(message)
              return problem !== undefined ? Effect.fail(problem) : Effect.flatMap(
                Effect.orDie(BodyGuard.text(request)),
                (text) => Effect.provideService(rpc, HttpServerRequest.HttpServerRequest, withBodyText(request, text))
              )
            }
          }))
    )
).pipe(Layer.provide([Handlers, CallerFromRequest, DecisionFraming.layerNdjson]))
