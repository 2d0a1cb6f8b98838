/**
 * The decision API's HTTP route (issue 18): `POST /org/{orgId}/rpc` carries the Effect RPC protocol
 * of `rpc/Decisions.ts`. It is declared here, beside the REST routes, so it passes the same
 * `Authentication` middleware (401 -> 404 -> 403, `policy:read`, rate limit, body checks) and the
 * OpenAPI document describes it for callers that do not use `DecisionClient`. The host answers it
 * raw: the schemas below describe the messages on the wire, and the host checks each request
 * message against them before the RPC server reads it, so bad input is a 400 naming the field.
 */
import { Decision } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath } from "./Common.js"
import { Problem413 } from "./Problem.js"
import { ResolutionView } from "./Repositories.js"
import { Authentication, requires } from "./Security.js"

/**
 * Requests per `Resolve` call. One call is one HTTP request body, which the host also bounds (1 MiB
 * by default): `DecisionClient` cuts a longer stream of requests into calls under both limits.
 */
export const maxRequestsPerCall = 10_000

/** The payload of `Resolve`. */
export const ResolveRequest = Schema.Struct({
  requests: Schema.Array(Decision.DecisionRequest).check(Schema.isMaxLength(maxRequestsPerCall))
})

const RequestFields = {
  _tag: Schema.Literal("Request"),
  id: Schema.Union([Schema.String, Schema.Number]).annotate({
    description: "The caller's id of this call, repeated in every answer message"
  }),
  headers: Schema.Array(Schema.Tuple([Schema.String, Schema.String])).annotate({
    description: "RPC headers; send `[]` (credentials go in HTTP headers)"
  }),
  // what Effect's RPC client adds when it traces
  traceId: Schema.optionalKey(Schema.String),
  spanId: Schema.optionalKey(Schema.String),
  sampled: Schema.optionalKey(Schema.Boolean)
}

/** The envelope of one RPC request message; its `payload` is checked against the procedure named by `tag`. */
export const RpcRequestEnvelope = Schema.Struct({
  ...RequestFields,
  tag: Schema.Literals(["Resolve", "Explain"]),
  payload: Schema.Unknown
})

export const ResolveCall = Schema.Struct({ ...RequestFields, tag: Schema.Literal("Resolve"), payload: ResolveRequest }).annotate({
  identifier: "DecisionResolveCall",
  description: `Decide up to ${maxRequestsPerCall} references; the answer streams one decision per request, in request order`
})

export const ExplainCall = Schema.Struct({ ...RequestFields, tag: Schema.Literal("Explain"), payload: Decision.DecisionRequest })
  .annotate({
    identifier: "DecisionExplainCall",
    description: "Explain one reference: the REST resolve's answer with its `considered` list"
  })

const RpcResponseMessage = Schema.Union([
  Schema.Struct({
    _tag: Schema.Literal("Chunk"),
    requestId: Schema.String,
    values: Schema.Array(Decision.Decision)
  }).annotate({ identifier: "DecisionChunk", description: "The next decisions of a `Resolve` call, in request order" }),
  Schema.Struct({
    _tag: Schema.Literal("Exit"),
    requestId: Schema.String,
    exit: Schema.Union([
      Schema.Struct({ _tag: Schema.Literal("Success"), value: Schema.Union([ResolutionView, Schema.Null]) }),
      Schema.Struct({ _tag: Schema.Literal("Failure"), cause: Schema.Array(Schema.Unknown) })
    ]).annotate({
      description: "How the call ended: `Success` (`value` is `Explain`'s answer, null for `Resolve`) or `Failure`, " +
        "whose `cause` lists `{ _tag: \"Fail\", error }` with `error._tag` `RepositoryNotFound` or `InvalidReferenceInBody`"
    })
  }).annotate({ identifier: "DecisionExit", description: "The last message of a call" })
])

export const DecisionsGroup = HttpApiGroup.make("decisions")
  .annotate(OpenApi.Description, "The decision API: many image references decided in one streamed call (Effect RPC over HTTP)")
  .add(
    HttpApiEndpoint.post("decisionRpc", "/org/:orgId/rpc", {
      params: OrgPath,
      payload: Schema.Union([ResolveCall, ExplainCall]),
      success: HttpApiSchema.StreamNdjson({ schema: RpcResponseMessage }),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Decide image references (RPC)")
      .annotate(
        OpenApi.Description,
        "The Effect RPC protocol over HTTP with NDJSON framing (docs/decision-api.md). The body is one request message, " +
          "`{\"_tag\":\"Request\",\"id\":\"1\",\"tag\":\"Resolve\",\"payload\":{\"requests\":[{\"image\":\"node:20\"}]},\"headers\":[]}`; " +
          "the answer (`application/x-ndjson`) streams `Chunk` messages of decisions as they are computed, then one `Exit`. " +
          `\`Resolve\` takes up to ${maxRequestsPerCall} requests \`{ image, platform?, repositoryId?, branch? }\` and answers each in order ` +
          "(an invalid image or platform is an `invalid` decision); `Explain` takes one and answers as the REST resolve. " +
          "An unknown repository or an untracked branch ends the call with a failed `Exit`. " +
          "TypeScript callers use `DecisionClient` of `@image-policy/client`. The full reference is docs/decision-api.md of the image-policy sources."
      )
      .pipe(requires("policy:read"))
  )
  .middleware(Authentication)
