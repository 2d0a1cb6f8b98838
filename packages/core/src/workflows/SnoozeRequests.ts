/**
 * Snooze requests: create, review, reopen and expire, each with its event and audit row in the
 * transaction of the change (spec 3, 6; contracts 6), and the reads of one request and of a
 * filtered list.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { OrgId, SnoozeRequestId } from "../Id.js"
import { normalizeImageReference } from "../ImageReference.js"
import * as Input from "../Input.js"
import type { PageRequest } from "../Page.js"
import { Ids } from "../ports/Ids.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { SnoozeStore } from "../ports/SnoozeStore.js"
import { transaction } from "../ports/Transaction.js"
import * as SnoozeRequest from "../SnoozeRequest.js"
import { audit, type Caller, emit, InvalidReferenceInBody, now } from "./Caller.js"

export class SnoozeRequestNotFound extends Schema.TaggedError<SnoozeRequestNotFound>()("SnoozeRequestNotFound", {
  snoozeRequestId: Schema.String
}) {
  override get message() {
    return `no snooze request ${this.snoozeRequestId} in this organization`
  }
}

const emitTransition = (caller: Caller, request: SnoozeRequest.SnoozeRequest, t: SnoozeRequest.SnoozeTransition, at: Date) =>
  Effect.gen(function*() {
    const { repositories } = yield* RepositoryStore
    const repository = yield* repositories.get(caller.orgId, request.repositoryId)
    yield* emit(caller, {
      family: "snooze",
      repositoryTeamId: Option.match(repository, { onNone: () => null, onSome: (r) => r.assignedTeamId })
    }, [{
      type: `service.snooze_request.${t.action}` as const,
      data: {
        snooze_request_id: request.id,
        previous_status: t.previousStatus,
        current_status: t.currentStatus,
        action: t.action,
        repository_id: request.repositoryId,
        changed_at: at.toISOString()
      }
    }])
  })

export const createSnoozeRequest = Effect.fnUntraced(function*(
  caller: Caller,
  input: SnoozeRequest.SnoozeCreateRequest
) {
  yield* Input.validate(SnoozeRequest.SnoozeCreateRequest, input)
  const snoozes = yield* SnoozeStore
  const { repositories } = yield* RepositoryStore
  const ids = yield* Ids
  return yield* transaction(Effect.gen(function*() {
    if (Option.isNone(yield* repositories.get(caller.orgId, input.repositoryId))) {
      return yield* new InvalidReferenceInBody({ path: "repositoryId", message: "no tracked repository has this id" })
    }
    if (Result.isFailure(normalizeImageReference(input.fromImage))) {
      return yield* new InvalidReferenceInBody({ path: "fromImage", message: "not a valid image reference" })
    }
    const at = yield* now
    const { event, request } = yield* Effect.fromResult(SnoozeRequest.create(input, {
      id: yield* ids.next("snoozeRequest"),
      now: at
    }))
    yield* snoozes.insert(caller.orgId, request)
    yield* audit(caller, "snooze_request.create", "snooze_request", request.id)
    yield* emitTransition(caller, request, event, at)
    return request
  }))
})

/**
 * A transition decided by the core rule on the stored request and written by compare-and-set on
 * its status: a concurrent writer that moved it first (another host's review, reopen or expiry)
 * makes this one fail as the rule fails on what that writer left, so no transition is applied or
 * announced twice.
 */
const transition = (
  name: string,
  apply: (r: SnoozeRequest.SnoozeRequest, at: Date) => Result.Result<
    { readonly request: SnoozeRequest.SnoozeRequest; readonly event: SnoozeRequest.SnoozeTransition },
    SnoozeRequest.InvalidSnoozeTransition
  >
) =>
(caller: Caller, id: SnoozeRequestId) =>
  SnoozeStore.use((snoozes) =>
    transaction(Effect.gen(function*() {
      const current = yield* snoozes.get(caller.orgId, id)
      if (Option.isNone(current)) return yield* new SnoozeRequestNotFound({ snoozeRequestId: id })
      const at = yield* now
      const { event, request } = yield* Effect.fromResult(apply(current.value, at))
      if (!(yield* snoozes.transition(caller.orgId, request, current.value.status))) {
        // the rule's answer on the state the other writer left (one of the state machine's refusals)
        const moved = Option.getOrElse(yield* snoozes.get(caller.orgId, id), () => current.value)
        return yield* Result.match(apply(moved, at), {
          onFailure: (refused) => Effect.fail(refused),
          onSuccess: () => Effect.fail(new SnoozeRequest.InvalidSnoozeTransition({ from: moved.status, action: name }))
        })
      }
      yield* audit(caller, `snooze_request.${name}`, "snooze_request", id)
      yield* emitTransition(caller, request, event, at)
      return request
    }))
  )

export const reviewSnoozeRequest = (caller: Caller, id: SnoozeRequestId, decision: SnoozeRequest.SnoozeReviewRequest) =>
  Effect.andThen(
    Input.validate(SnoozeRequest.SnoozeReviewRequest, decision),
    transition("review", (r, at) => SnoozeRequest.review(r, decision, at))(caller, id)
  )

export const reopenSnoozeRequest = transition("reopen", (r) => SnoozeRequest.reopen(r))

export const listSnoozeRequests = Effect.fnUntraced(function*(
  caller: Caller,
  page: PageRequest,
  filter: SnoozeRequest.SnoozeFilter = {}
) {
  const snoozes = yield* SnoozeStore
  return yield* snoozes.list(caller.orgId, page, filter)
})

export const getSnoozeRequest = Effect.fnUntraced(function*(caller: Caller, id: SnoozeRequestId) {
  const snoozes = yield* SnoozeStore
  const found = yield* snoozes.get(caller.orgId, id)
  if (Option.isNone(found)) return yield* new SnoozeRequestNotFound({ snoozeRequestId: id })
  return found.value
})

const expire = transition("expire", (r, at) => SnoozeRequest.expire(r, at))

/** The `system` actor of expiries, in their audit rows. */
export const expiryActor = "snooze-expiry"

/**
 * Expires one approved request whose `until` has passed (`SnoozeRequest.expire`): status
 * `expired`, its audit row `snooze_request.expire` and `service.snooze_request.status_changed`, in
 * one transaction. Answers whether it expired it; a request another host expired first, or that
 * was not due after all, changes nothing.
 */
export const expireSnoozeRequest = (orgId: OrgId, id: SnoozeRequestId, correlationId: string) =>
  expire({ orgId, actor: { kind: "system", name: expiryActor }, correlationId }, id).pipe(
    Effect.as(true),
    Effect.catchTag("InvalidSnoozeTransition", () => Effect.succeed(false)),
    Effect.catchTag("SnoozeRequestNotFound", () => Effect.succeed(false))
  )

/**
 * One pass of the expiry worker: every approved request of every organization whose `until` has
 * passed, up to `limit`, each expired in its own transaction. Answers how many it expired. Safe on
 * several hosts at once: each expiry is a compare-and-set, so a request expires (and emits) once.
 */
export const expireDueSnoozeRequests = Effect.fnUntraced(function*(options: {
  readonly limit: number
  readonly correlationId: string
}) {
  const snoozes = yield* SnoozeStore
  const due = yield* snoozes.dueForExpiry({ now: yield* now, limit: options.limit })
  let expired = 0
  for (const { id, orgId } of due) {
    if (yield* expireSnoozeRequest(orgId, id, options.correlationId)) expired++
  }
  return expired
})
