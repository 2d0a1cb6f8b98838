/**
 * The one shape of every organization handler: the caller, one workflow, its problems. A write
 * the workflow rejects (a business rule, an unknown resource, a conflict) leaves the core's
 * rejection audit row (`Workflows.Caller.auditRejection`), named after the operation and the most
 * specific resource its path names.
 */
import { Api } from "@image-policy/client/api/Api"
import type { Problem } from "@image-policy/client/api/Problem"
import { CurrentCaller } from "@image-policy/client/api/Security"
import { type AuditStore, type Ids, Workflows } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { HttpRouter } from "effect/http"
import { HttpApi } from "effect/http-api"
import * as References from "effect/References"
import * as Problems from "../http/Problems.js"

type Caller = typeof CurrentCaller.Service

interface Operation {
  /** The audit action of its rejections, e.g. `createWebhook`. */
  readonly name: string
  /** The span of its workflow, e.g. `webhooks.createWebhook`. */
  readonly span: string
}

/** `METHOD path-template` -> the operation, read once from the API definition. */
const operations = new Map<string, Operation>()
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    operations.set(`${endpoint.method} ${endpoint.path}`, { name: endpoint.identifier, span: `${group.identifier}.${endpoint.identifier}` })
  }
})

/** The most specific resource a path names (its last id parameter), for the audit row. */
const resourceKinds: ReadonlyArray<readonly [string, string]> = [
  ["eventId", "event"],
  ["mappingId", "policy_mapping"],
  ["snoozeRequestId", "snooze_request"],
  ["keyId", "api_key"],
  ["webhookId", "webhook"],
  ["phaseId", "phase"],
  ["groupId", "policy_group"],
  ["repositoryId", "repository"],
  ["connectionId", "vcs_connection"],
  ["routineId", "routine"],
  ["teamId", "team"],
  ["memberId", "member"],
  ["roleId", "role"]
]

const recordRejection = (caller: Caller, problem: Problem, { params, route }: typeof HttpRouter.RouteContext.Service) => {
  if (route.method === "GET") return Effect.void
  const resource = resourceKinds.find(([param]) => params[param] !== undefined)
  return Workflows.Caller.auditRejection(caller, {
    action: operations.get(`${route.method} ${route.path}`)?.name ?? route.method,
    resourceType: resource?.[1] ?? route.path.split("/").filter((s) => s !== "" && !s.startsWith(":")).pop() ?? "organization",
    resourceId: resource === undefined ? null : params[resource[0]] ?? null,
    notFound: problem.status === 404,
    detail: problem.type
  })
}

export const withCaller = <A, E, R>(
  f: (caller: Caller) => Effect.Effect<A, E, R>
): Effect.Effect<A, Problem, R | CurrentCaller | AuditStore | Ids | HttpRouter.RouteContext> =>
  // one synchronous step reads the caller and the route (a `yield*` of each would be an Effect step
  // of its own, on every request); the middleware and the router provide both before any handler runs
  Effect.withFiber((fiber) => {
    const caller = Context.getUnsafe(fiber.context as Context.Context<CurrentCaller>, CurrentCaller)
    const routeContext = Context.getUnsafe(fiber.context as Context.Context<HttpRouter.RouteContext>, HttpRouter.RouteContext)
    const { method, path } = routeContext.route
    const workflow = f(caller)
    // the core's workflows are `Effect.fnUntraced`: their spans are opened here, named after the
    // operation, while the tracer is on (with it off, Effect 4 would still make a no-op span and
    // capture a stack trace for it)
    const traced = fiber.getRef(References.TracerEnabled)
      ? Effect.withSpan(workflow, operations.get(`${method} ${path}`)?.span ?? "workflow")
      : workflow
    return Effect.catch(traced, (error) => {
      const problem = Problems.fromDomain(error)
      if (problem === undefined) return Effect.die(error)
      // the audit trail must not turn a clear 4xx into a 5xx: a failed audit write is only logged
      return recordRejection(caller, problem, routeContext).pipe(
        Effect.catchCause(() => Effect.logWarning("could not record a rejected request in the audit trail")),
        Effect.andThen(Effect.fail(problem))
      )
    })
  })
