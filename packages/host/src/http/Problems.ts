/**
 * Every non-2xx answer is RFC 9457 problem JSON (contracts 4). Domain errors carry no status: this
 * table is the one place that gives each its status, its stable `type` and the field it names.
 * Unknown failures are defects: logged without secrets and answered 500 with a correlation id.
 */
import { type FieldError, Problem, ProblemResponses, render } from "@image-policy/client/api/Problem"
import type { PushNotAuthenticated } from "@image-policy/client/api/VcsEvents"
import { Input, type UserError, type VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type { HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import * as Layer from "effect/Layer"
import type * as Types from "effect/Types"
import { RequestInfo } from "./RequestInfo.js"

export { render }

const validationDetail = "the request is not valid; see errors"

/** Every error answered by its own rule: the core's user errors and the edge's own. */
export type EdgeError = UserError | PushNotAuthenticated

export interface Rule {
  readonly status: number
  /** The field a single-field error names, when the error itself carries no `path`. */
  readonly path?: string
  /** A fixed detail, for errors whose own message must not reach the caller. */
  readonly detail?: string
  /** The problem type, when it is not the one named after the error's tag. */
  readonly type?: string
}

/** One rule per tag of `EdgeError`: a tag missing, misspelt or no longer an error fails the typecheck. */
export const rules: { readonly [Tag in EdgeError["_tag"]]: Rule } = {
  // authentication and authority (contracts 4: 401 -> 404 -> 403 -> 403)
  Unauthenticated: {
    status: 401,
    detail: "a valid, active API key is required in the x-api-key header (or, for the web console, a session cookie)"
  },
  OrganizationNotFound: { status: 404, detail: "no such organization for this API key; check the org id in the path" },
  AutomationApiNotIncluded: { status: 403 },
  PermissionDenied: { status: 403 },
  // browser sessions (issue 17): one answer for every refused sign-in, whatever the reason
  SignInFailed: { status: 401, detail: "wrong email or password" },
  NotSignedIn: { status: 401, detail: "no live session: sign in again (POST /api/v1/session)" },
  CsrfRejected: { status: 403, type: "/problems/csrf" },
  CurrentPasswordWrong: { status: 400, path: "currentPassword" },
  // onboarding (spec 4 rules 2-3)
  ConnectionNotActive: { status: 400, path: "vcsConnectionId" },
  RepositoryNotAvailable: { status: 400, path: "externalRepoId" },
  RepositoryAlreadyTracked: { status: 409 },
  DuplicateBranchName: { status: 400 },
  DefaultBranchNotIncluded: { status: 400 },
  BranchNotAvailable: { status: 400 },
  RoutineWithoutTeam: { status: 400, path: "assignedRoutineId" },
  RoutineTeamMismatch: { status: 400, path: "assignedRoutineId" },
  // assignments (spec 4 rules 4-6)
  PolicyGroupNotFoundInBody: { status: 400 },
  AllReposGroupNotAssignable: { status: 400 },
  BranchNotTracked: { status: 400 },
  DuplicateAssignment: { status: 400 },
  EmptyBranchNames: { status: 400 },
  DuplicateBranchInAssignment: { status: 400 },
  // policy (spec 4 rules 7-9)
  InvalidMapping: { status: 400 },
  ExternalPhaseReadOnly: { status: 409 },
  PhaseNotExternal: { status: 409 },
  // snooze requests
  SnoozeUntilNotInFuture: { status: 400 },
  InvalidSnoozeTransition: { status: 409 },
  // generic
  // a workflow's own check of its input (core Input.validate) answers as the API's decoder does
  InvalidInput: { status: 400, type: "/problems/validation-error", detail: validationDetail },
  InvalidReferenceInBody: { status: 400 },
  InvalidCursor: { status: 400, path: "cursor" },
  // resources named in the path (404 also hides other organizations' resources)
  RepositoryNotFound: { status: 404, detail: "no such repository in this organization" },
  TeamNotFound: { status: 404, detail: "no such team in this organization" },
  VcsConnectionNotFound: { status: 404, detail: "no such VCS connection in this organization" },
  PolicyGroupNotFound: { status: 404, detail: "no such policy group in this organization" },
  PhaseNotFound: { status: 404, detail: "no such phase in this policy group" },
  ApiKeyNotFound: { status: 404, detail: "no such API key in this organization" },
  SnoozeRequestNotFound: { status: 404, detail: "no such snooze request in this organization" },
  WebhookNotFound: { status: 404, detail: "no such webhook destination in this organization" },
  DeliveryNotFound: { status: 404, detail: "no such delivery for this webhook destination" },
  // webhooks (spec 6; contracts 5)
  InvalidEndpoint: { status: 400, path: "endpointUrl" },
  DeliveryNotDead: { status: 409 },
  NotGenericWebhook: { status: 409 },
  // provider push webhooks (api/VcsEvents.ts): one answer for every unverifiable delivery, so an
  // unsigned caller learns nothing about which connection ids exist
  PushNotAuthenticated: { status: 401, detail: "the delivery is not signed with the webhook secret of this VCS connection" },
  PushReplayed: { status: 401, detail: "this delivery was already received, or names no delivery id; it was ignored" },
  PushStale: { status: 401, detail: "the push is more than 5 minutes old; old deliveries are refused" },
  // organization administration (issue 15)
  RoutineNotFound: { status: 404, detail: "no such routine in this organization" },
  TeamInUse: { status: 409 },
  RoutineInUse: { status: 409 },
  VcsConnectionHasNoToken: { status: 409 },
  VcsConnectionInUse: { status: 409 },
  // policy administration (issue 15)
  PolicyGroupNameTaken: { status: 409 },
  PhaseNameTaken: { status: 409 },
  PolicyGroupAssigned: { status: 409 },
  MappingNotFound: { status: 404, detail: "no such mapping in this phase" },
  // members and roles (docs/api.md#members-and-roles)
  RoleRequired: { status: 403 },
  PermissionNotGrantable: { status: 403 },
  MemberNotFound: { status: 404, detail: "no such member in this organization" },
  RoleNotFound: { status: 404, detail: "no such custom role in this organization" },
  MemberEmailTaken: { status: 409, path: "email" },
  RoleNameTaken: { status: 409, path: "name" },
  BuiltInRoleReadOnly: { status: 409 },
  RoleInUse: { status: 409 }
}

/** Provider trouble is answered by its reason. */
export const providerStatus: { readonly [Reason in VcsProviderError["reason"]]: number } = {
  "not-configured": 409,
  "unauthorized": 409,
  "not-found": 404,
  "rate-limited": 429,
  "unavailable": 503
}

/** The tags `rules` answers, for telling an `EdgeError` from any other tagged value. */
const ruled: ReadonlySet<string> = new Set(Object.keys(rules))

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable"
}

/** `BranchNotTracked` -> `/problems/branch-not-tracked` */
const typeOf = (tag: string) => `/problems/${tag.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase()}`

/** `BranchNotTracked` -> `branch not tracked` */
const describeTag = (tag: string) => tag.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase()

export const make = (options: {
  readonly status: number
  readonly type: string
  readonly detail: string
  readonly errors?: ReadonlyArray<FieldError> | undefined
  readonly retryAfterSeconds?: number | undefined
}): Problem =>
  new Problem({
    type: options.type,
    title: titles[options.status] ?? "Error",
    status: options.status,
    detail: options.detail,
    ...(options.errors && options.errors.length > 0 ? { errors: options.errors } : {}),
    ...(options.retryAfterSeconds !== undefined ? { retryAfterSeconds: Math.max(1, Math.ceil(options.retryAfterSeconds)) } : {})
  })

export const validation = (errors: ReadonlyArray<FieldError>, detail = validationDetail) =>
  make({ status: 400, type: "/problems/validation-error", detail, errors })

// errors are recognised by their tag, as `Effect.catchTag` does, so a second copy of the core's
// classes (another bundle) is still answered by its rule
const isTagged = (u: unknown): u is { readonly _tag: string } =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string"
const isProviderError = (u: { readonly _tag: string }): u is VcsProviderError => u._tag === "VcsProviderError"
const isEdgeError = (u: { readonly _tag: string }): u is EdgeError => ruled.has(u._tag)

/** The problem for a known domain error, or `undefined` when the error is not a user error. */
export const fromDomain = (error: unknown): Problem | undefined => {
  if (error instanceof Problem) return error
  if (!isTagged(error)) return undefined
  if (isProviderError(error)) {
    const { reason } = error
    return make({
      status: providerStatus[reason],
      type: `/problems/vcs-provider-${reason}`,
      detail: error.message,
      retryAfterSeconds: reason === "rate-limited" ? error.retryAfterSeconds ?? 60 : reason === "unavailable" ? 30 : undefined
    })
  }
  if (!isEdgeError(error)) return undefined
  const rule: Rule = rules[error._tag]
  // an error without a message of its own (Effect 4's default message is empty) is told by its tag
  const detail = rule.detail ?? (typeof error.message === "string" && error.message !== "" ? error.message : describeTag(error._tag))
  const list: ReadonlyArray<FieldError> | undefined = "errors" in error
    ? error.errors
    : "path" in error
    ? [{ path: error.path, message: detail }]
    : rule.path !== undefined
    ? [{ path: rule.path, message: detail }]
    : undefined
  return make({ status: rule.status, type: rule.type ?? typeOf(error._tag), detail, errors: list })
}

/** A failure as its problem when it is a domain error; anything else is a defect. */
export const failAsProblem = (error: unknown): Effect.Effect<never, Problem> => {
  const problem = fromDomain(error)
  return problem === undefined ? Effect.die(error) : Effect.fail(problem)
}

/** 500: a failure of ours; the correlation id lets the caller point at its log line. */
export const internalError = (): Problem =>
  make({ status: 500, type: "/problems/internal-error", detail: "an unexpected error occurred; quote the correlationId when reporting it" })

/** For handlers: a domain failure becomes its problem; anything else stays a defect. */
export const orProblem = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Problem, R> => Effect.catch(effect, failAsProblem)

/**
 * A request the API could not decode (path, query, headers or body): the 400 validation problem
 * naming each field as the core's formatter does (`branchNames[1]`, `limit`). A response that fails
 * its own schema is the host's bug, not the caller's: 500, and logged.
 */
export const fromSchemaError = (error: HttpApiError.HttpApiSchemaError): Effect.Effect<Problem> =>
  error.kind === "Body" || error.kind === "ResponseHeaders"
    ? Effect.as(
      // paths and rules only, never the refused values (one may be a secret the answer was to show once)
      Effect.logError("response failed to encode").pipe(Effect.annotateLogs({ kind: error.kind, errors: Input.fieldErrors(error.cause) })),
      internalError()
    )
    : Effect.succeed(validation(Input.fieldErrors(error.cause)))

/**
 * The `ProblemResponses` middleware: the outermost of every endpoint. It records the route for the
 * access log, and answers every problem itself (decode failures included) with the request's
 * correlation id and, for 429 and 503, Retry-After: the builder's own encoding of a declared error
 * sends no headers.
 */
export const layer = Layer.succeed(ProblemResponses)((httpEffect, { endpoint }) =>
  // read from the fiber in the same step (a `flatMap` of the reference is one step more per request)
  Effect.withFiber((fiber) => {
    const info = fiber.getRef(RequestInfo)
    if (info !== undefined) info.route = endpoint.path
    const answer = (problem: Problem) => Effect.succeed(render(problem, info?.id))
    return Effect.catch(
      httpEffect,
      (error): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled> => {
        if (error instanceof Problem) return answer(error)
        if (HttpApiError.HttpApiSchemaError.is(error)) return Effect.flatMap(fromSchemaError(error), answer)
        return Effect.fail(error as Types.unhandled)
      }
    )
  })
)
