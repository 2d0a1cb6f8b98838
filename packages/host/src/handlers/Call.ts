/**
 * The one shape of every organization handler: the caller, one workflow, its problems. A write
 * the workflow rejects (a business rule, an unknown resource, a conflict) leaves an audit row with
 * outcome `rejected` and the problem type, written on its own after the rejected transaction rolled
 * back, so the trail shows who tried what even though nothing changed.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { type Id, Ids, Store } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { Api } from "../api/Api.js"
import type { Problem } from "../api/Problem.js"
import { CurrentCaller } from "../api/Security.js"
import * as Problems from "../http/Problems.js"

type Caller = typeof CurrentCaller.Service

/** `METHOD path-template` -> the operation's name, the audit action of its rejections. */
const operations = new Map<string, string>()
/** `METHOD path-template` -> the span of the operation's workflow (`group.operation`). */
const spanNames = new Map<string, string>()
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    operations.set(`${endpoint.method} ${endpoint.path}`, endpoint.name)
    spanNames.set(`${endpoint.method} ${endpoint.path}`, `${group.identifier}.${endpoint.name}`)
  }
})

/** The span of the route's operation, e.g. `organization.listTeams`. */
const spanOfRoute = (context: Context.Context<never>) =>
  Option.match(Context.getOption(context, HttpRouter.RouteContext), {
    onNone: () => "workflow",
    onSome: ({ route }) => spanNames.get(`${route.method} ${route.path}`) ?? "workflow"
  })

/** The most specific resource a path names (its last id parameter), for the audit row. */
const resourceKinds: ReadonlyArray<readonly [string, string]> = [
  ["eventId", "event"],
  ["snoozeRequestId", "snooze_request"],
  ["keyId", "api_key"],
  ["webhookId", "webhook"],
  ["phaseId", "phase"],
  ["groupId", "policy_group"],
  ["repositoryId", "repository"],
  ["connectionId", "vcs_connection"],
  ["teamId", "team"]
]

const recordRejection = (caller: Caller, problem: Problem, { params, route }: HttpRouter.RouteContext) =>
  Effect.gen(function*() {
    if (route.method === "GET") return
    const store = yield* Store
    const ids = yield* Ids
    const resource = resourceKinds.find(([param]) => params[param] !== undefined)
    yield* store.audit.append(caller.orgId, {
      id: (yield* ids.next("audit")) as Id.AuditEventId,
      at: new Date().toISOString(),
      actor: caller.actor,
      action: operations.get(`${route.method} ${route.path}`) ?? route.method,
      resourceType: resource?.[1] ?? route.path.split("/").filter((s) => s !== "" && !s.startsWith(":")).pop() ?? "organization",
      // a 404 names nothing of this organization: keeping the id would store another tenant's ids
      resourceId: resource && problem.status !== 404 ? params[resource[0]] ?? null : null,
      outcome: "rejected",
      detail: problem.type
    })
  })

export const withCaller = <A, E, R>(
  f: (caller: Caller) => Effect.Effect<A, E, R>
): Effect.Effect<A, Problem, R | CurrentCaller | Store | Ids> =>
  // one step reads the caller (and, when tracing, the route); one handler turns the workflow's
  // error into its problem and records a rejection
  Effect.withFiberRuntime((fiber) => {
    const context = fiber.currentContext as Context.Context<CurrentCaller>
    const caller = Context.get(context, CurrentCaller)
    const workflow = f(caller)
    // the core's workflows are `Effect.fnUntraced` (an `Effect.fn` span and its stack trace cost about
    // 10 µs per call even with the tracer off): their spans are opened here, only when recorded
    const traced = fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(workflow, spanOfRoute(context)) : workflow
    return Effect.catchAll(traced, (error) => {
      const problem = Problems.fromDomain(error)
      if (problem === undefined) return Effect.die(error)
      // the audit trail must not turn a clear 4xx into a 5xx: a failed audit write is only logged
      const recorded = Effect.catchAllCause(
        Effect.flatMap(Effect.serviceOption(HttpRouter.RouteContext), Option.match({
          onNone: () => Effect.void,
          onSome: (routeContext) => recordRejection(caller, problem, routeContext)
        })),
        () => Effect.logWarning("could not record a rejected request in the audit trail")
      )
      return Effect.zipRight(recorded, Effect.fail(problem))
    })
  })
