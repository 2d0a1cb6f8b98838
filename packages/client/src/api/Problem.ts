/**
 * The one error body of the API (contracts 4): RFC 9457 problem JSON, `application/problem+json`.
 * Handlers and middleware fail with `Problem`; the host renders it (http/Problems.ts).
 *
 * One class with a dynamic `status` and many `type`s. An endpoint documents the statuses it can
 * answer with `problemFor(status, ...)`: the same class refined to that status (OpenAPI, typed
 * clients). Every problem is answered by `render`, with its correlation id and, for 429 and 503,
 * the Retry-After header (http/Problems.ts `ProblemResponses`; a status the builder encodes from
 * its declaration would drop that header).
 */
import * as Effect from "effect/Effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware, HttpApiSchema } from "effect/http-api"
import * as Schema from "effect/Schema"

export const FieldError = Schema.Struct({
  path: Schema.String.annotate({ description: "JSON path of the offending field, e.g. `branchNames[1]`" }),
  message: Schema.String
})
export type FieldError = typeof FieldError.Type

export const contentType = "application/problem+json"

export class Problem extends Schema.Error<Problem>("Problem")({
  type: Schema.String.annotate({
    description: "Stable machine-readable problem type, a relative URI such as `/problems/branch-not-tracked`"
  }),
  title: Schema.String,
  status: Schema.Int,
  detail: Schema.String,
  errors: Schema.optionalKey(Schema.Array(FieldError)),
  retryAfterSeconds: Schema.optionalKey(Schema.Int.annotate({ description: "Also sent as the Retry-After header" })),
  correlationId: Schema.optionalKey(Schema.String)
}, { description: "RFC 9457 problem details" }) {
  /** The answer of a status the endpoint did not declare (and of problems outside the API's routes). */
  [HttpServerRespondable.symbol]() {
    return Effect.succeed(render(this))
  }
}

/** The problem as its response; `correlationId` when the problem does not carry one yet. */
export const render = (problem: Problem, correlationId?: string): HttpServerResponse.HttpServerResponse => {
  const id = problem.correlationId ?? correlationId
  return HttpServerResponse.jsonUnsafe(
    {
      type: problem.type,
      title: problem.title,
      status: problem.status,
      detail: problem.detail,
      ...(problem.errors ? { errors: problem.errors } : {}),
      ...(problem.retryAfterSeconds !== undefined ? { retryAfterSeconds: problem.retryAfterSeconds } : {}),
      ...(id !== undefined ? { correlationId: id } : {})
    },
    {
      status: problem.status,
      contentType,
      ...(problem.retryAfterSeconds !== undefined ? { headers: { "retry-after": String(problem.retryAfterSeconds) } } : {})
    }
  )
}

/**
 * The documented (and encoded) problem of one status. Every status shares one schema component
 * (`Problem`, see api/OpenApiDocument.ts); `description` is the response's description.
 */
export const problemFor = (status: number, description: string) =>
  Problem.check(Schema.makeFilter((p: Problem) => p.status === status, { expected: `a problem with status ${status}` })).pipe(
    HttpApiSchema.status(status),
    HttpApiSchema.asJson({ contentType })
  ).annotate({ description, identifier: "Problem" })

export const Problem400 = problemFor(400, "Malformed JSON, schema violation or business rule not satisfied; `errors` names each field")
export const Problem401 = problemFor(401, "No valid API key or session: missing, unknown, expired or revoked")
export const Problem403 = problemFor(403, "The organization's edition or the key's permissions do not allow this")
export const Problem404 = problemFor(404, "Not found in this organization (also for other organizations' resources)")
export const Problem409 = problemFor(409, "Conflict with the current workflow state")
export const Problem413 = problemFor(413, "Request body larger than the documented limit")
export const Problem429 = problemFor(429, "Too many requests; retry after the Retry-After header")
export const Problem503 = problemFor(503, "The provider could not be reached; retry after the Retry-After header")

/**
 * The outermost middleware of every endpoint (http/Problems.ts `layer`): request decode failures
 * become the 400 validation problem, a response that fails its own schema a 500, and every problem
 * is answered with the request's correlation id. Declaring `Problem400` documents 400 on every
 * operation, as the API's own error did before.
 */
export class ProblemResponses extends HttpApiMiddleware.Service<ProblemResponses>()("ProblemResponses", {
  error: Problem400
}) {}
