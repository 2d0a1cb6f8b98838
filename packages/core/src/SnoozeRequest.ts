/**
 * Snooze requests (exceptions) and their state machine (contracts 6): `pending` -> `approved` |
 * `rejected`; `approved` -> `expired` when `until` passes; `rejected` | `expired` -> `pending` by reopen.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { RepositoryId, SnoozeRequestId } from "./Id.js"
import { IsoDateTime } from "./IsoDateTime.js"
import { storable, StorableString } from "./Text.js"

export const SnoozeStatus = Schema.Literals(["pending", "approved", "rejected", "expired"])
export type SnoozeStatus = typeof SnoozeStatus.Type

export const SnoozeRequest = Schema.Struct({
  id: SnoozeRequestId,
  repositoryId: RepositoryId,
  fromImage: Schema.String,
  reason: Schema.String,
  until: Schema.String,
  status: SnoozeStatus,
  createdAt: Schema.String,
  reviewedAt: Schema.NullOr(Schema.String),
  reviewComment: Schema.NullOr(Schema.String)
})
export type SnoozeRequest = typeof SnoozeRequest.Type

export const SnoozeCreateRequest = Schema.Struct({
  repositoryId: RepositoryId,
  fromImage: StorableString.check(Schema.isMinLength(1), Schema.isMaxLength(512)),
  reason: storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(2000))),
  until: IsoDateTime
})
export type SnoozeCreateRequest = typeof SnoozeCreateRequest.Type

export const SnoozeReviewRequest = Schema.Struct({
  decision: Schema.Literals(["approve", "reject"]),
  comment: Schema.optionalKey(StorableString.check(Schema.isMaxLength(2000)))
})
export type SnoozeReviewRequest = typeof SnoozeReviewRequest.Type

export type SnoozeAction = "created" | "reviewed" | "status_changed" | "reopened"

/** What a transition did: the data of the matching `service.snooze_request.*` event. */
export interface SnoozeTransition {
  readonly action: SnoozeAction
  readonly previousStatus: SnoozeStatus | null
  readonly currentStatus: SnoozeStatus
}

export class InvalidSnoozeTransition extends Schema.TaggedError<InvalidSnoozeTransition>()("InvalidSnoozeTransition", {
  from: SnoozeStatus,
  action: Schema.String
}) {
  override get message() {
    return `a ${this.from} snooze request cannot be ${this.action}`
  }
}

export class SnoozeUntilNotInFuture extends Schema.TaggedError<SnoozeUntilNotInFuture>()("SnoozeUntilNotInFuture", {
  until: Schema.String,
  path: Schema.Literal("until")
}) {
  override get message() {
    return "until must be in the future"
  }
}

type TransitionResult = Result.Result<{ readonly request: SnoozeRequest; readonly event: SnoozeTransition }, InvalidSnoozeTransition>

export const create = (
  input: SnoozeCreateRequest,
  ctx: { readonly id: SnoozeRequestId; readonly now: Date }
): Result.Result<{ readonly request: SnoozeRequest; readonly event: SnoozeTransition }, SnoozeUntilNotInFuture> => {
  const until = new Date(Date.parse(input.until))
  if (until.getTime() <= ctx.now.getTime()) {
    return Result.fail(new SnoozeUntilNotInFuture({ until: input.until, path: "until" }))
  }
  return Result.succeed({
    request: {
      id: ctx.id,
      repositoryId: input.repositoryId,
      fromImage: input.fromImage,
      reason: input.reason,
      until: until.toISOString(),
      status: "pending",
      createdAt: ctx.now.toISOString(),
      reviewedAt: null,
      reviewComment: null
    },
    event: { action: "created", previousStatus: null, currentStatus: "pending" }
  })
}

const move = (request: SnoozeRequest, action: SnoozeAction, to: SnoozeStatus, patch: Partial<SnoozeRequest> = {}): TransitionResult =>
  Result.succeed({
    request: { ...request, ...patch, status: to },
    event: { action, previousStatus: request.status, currentStatus: to }
  })

export const review = (request: SnoozeRequest, decision: SnoozeReviewRequest, now: Date): TransitionResult =>
  request.status !== "pending"
    ? Result.fail(new InvalidSnoozeTransition({ from: request.status, action: "reviewed" }))
    : move(request, "reviewed", decision.decision === "approve" ? "approved" : "rejected", {
      reviewedAt: now.toISOString(),
      reviewComment: decision.comment ?? null
    })

/** An approved request whose `until` has passed becomes expired; anything else is unchanged (error). */
export const expire = (request: SnoozeRequest, now: Date): TransitionResult =>
  request.status === "approved" && Date.parse(request.until) <= now.getTime()
    ? move(request, "status_changed", "expired")
    : Result.fail(new InvalidSnoozeTransition({ from: request.status, action: "expired" }))

export const reopen = (request: SnoozeRequest): TransitionResult =>
  request.status === "rejected" || request.status === "expired"
    ? move(request, "reopened", "pending", { reviewedAt: null, reviewComment: null })
    : Result.fail(new InvalidSnoozeTransition({ from: request.status, action: "reopened" }))

/** Whether an approved request suppresses remediation for its image at `now`. */
export const isActive = (request: SnoozeRequest, now: Date): boolean =>
  request.status === "approved" && Date.parse(request.until) > now.getTime()

/**
 * The filters of the snooze request list (`GET /snooze-requests?status=&repositoryId=`): every
 * filter given must match. A repository id that names nothing simply matches nothing.
 */
export const SnoozeFilter = Schema.Struct({
  status: Schema.optionalKey(SnoozeStatus),
  repositoryId: Schema.optionalKey(StorableString.check(Schema.isMaxLength(200)))
})
export type SnoozeFilter = typeof SnoozeFilter.Type

export const matchesFilter = (filter: SnoozeFilter, request: SnoozeRequest): boolean =>
  (filter.status === undefined || request.status === filter.status) &&
  (filter.repositoryId === undefined || request.repositoryId === filter.repositoryId)
