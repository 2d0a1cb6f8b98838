/**
 * The one error body of the API (contracts 4): RFC 9457 problem JSON, `application/problem+json`.
 * Handlers and middleware fail with `Problem`; the host renders it (http/Problems.ts). The schemas
 * here document each status in the OpenAPI contract.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"

export const FieldError = Schema.Struct({
  path: Schema.String.annotations({ description: "JSON path of the offending field, e.g. `branchNames[1]`" }),
  message: Schema.String
})
export type FieldError = typeof FieldError.Type

const fields = {
  type: Schema.String.annotations({ description: "Stable machine-readable problem type, a relative URI such as `/problems/branch-not-tracked`" }),
  title: Schema.String,
  status: Schema.Int,
  detail: Schema.String,
  errors: Schema.optional(Schema.Array(FieldError)),
  correlationId: Schema.optional(Schema.String),
  retryAfterSeconds: Schema.optional(Schema.Int.annotations({ description: "Also sent as the Retry-After header" }))
}

export class Problem extends Schema.Class<Problem>("Problem")(fields, {
  description: "RFC 9457 problem details",
  ...HttpApiSchema.annotations({ status: 400 })
}) {}

/** A documentation-only copy of the problem schema for one status. */
export const problemFor = (status: number, description: string) =>
  Schema.Struct(fields).pipe(
    HttpApiSchema.withEncoding({ kind: "Json", contentType: "application/problem+json" })
  ).annotations({ ...HttpApiSchema.annotations({ status }), description, identifier: `Problem${status}` })

export const Problem401 = problemFor(401, "No valid API key: missing, unknown, expired or revoked")
export const Problem403 = problemFor(403, "The organization's edition or the key's permissions do not allow this")
export const Problem404 = problemFor(404, "Not found in this organization (also for other organizations' resources)")
export const Problem409 = problemFor(409, "Conflict with the current workflow state")
export const Problem413 = problemFor(413, "Request body larger than the documented limit")
export const Problem429 = problemFor(429, "Too many requests; retry after the Retry-After header")
export const Problem400 = problemFor(400, "Malformed JSON, schema violation or business rule not satisfied; `errors` names each field")
