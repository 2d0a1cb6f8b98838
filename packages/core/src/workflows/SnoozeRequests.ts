/** Snooze requests: create, review, reopen, each with its event (spec 3, 6; contracts 6). */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { SnoozeRequestId } from "../Id.js"
import { normalizeImageReference } from "../ImageReference.js"
import * as Input from "../Input.js"
import type { PageRequest } from "../Page.js"
import { Ids } from "../ports/Ids.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { SnoozeStore } from "../ports/SnoozeStore.js"
import { transaction } from "../ports/Transaction.js"
import * as SnoozeRequest from "../SnoozeRequest.js"
import { audit, type Caller, emit, InvalidReferenceInBody, now } from "./Caller.js"

export { InvalidReferenceInBody }

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
      yield* snoozes.update(caller.orgId, request)
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

export const listSnoozeRequests = Effect.fnUntraced(function*(caller: Caller, page: PageRequest) {
  const snoozes = yield* SnoozeStore
  return yield* snoozes.list(caller.orgId, page)
})
