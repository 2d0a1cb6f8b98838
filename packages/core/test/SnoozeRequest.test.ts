import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Snooze from "../src/SnoozeRequest.js"
import { prop } from "./support/fcProp.js"

const now = new Date("2026-01-01T00:00:00.000Z")
const input: Snooze.SnoozeCreateRequest = {
  repositoryId: Id.make("repository", new Uint8Array(16)) as Id.RepositoryId,
  fromImage: "nginx:1.25",
  reason: "vendor certification pending",
  until: "2026-02-01T00:00:00Z"
}
const id = Id.make("snoozeRequest", new Uint8Array(16)) as Id.SnoozeRequestId
const fresh = () => Result.getOrThrow(Snooze.create(input, { id, now }))

describe("SnoozeRequest (contracts 6 state machine)", () => {
  it("creation is pending with previous status null and action created (spec 3, 6)", () => {
    const { event, request } = fresh()
    assert.deepStrictEqual(event, { action: "created", previousStatus: null, currentStatus: "pending" })
    assert.strictEqual(request.status, "pending")
    assert.strictEqual(request.until, "2026-02-01T00:00:00.000Z")
  })

  it("refuses an `until` that is not in the future", () => {
    const result = Snooze.create({ ...input, until: "2025-12-31T00:00:00Z" }, { id, now })
    assert.isTrue(Result.isFailure(result))
  })

  it("pending -> approved -> expired -> pending, and pending -> rejected -> pending", () => {
    const approved = Result.getOrThrow(Snooze.review(fresh().request, { decision: "approve" }, now))
    assert.strictEqual(approved.event.action, "reviewed")
    assert.strictEqual(approved.request.status, "approved")
    assert.isTrue(Snooze.isActive(approved.request, now))
    assert.isTrue(Result.isFailure(Snooze.expire(approved.request, now)), "not expired before until")
    const expired = Result.getOrThrow(Snooze.expire(approved.request, new Date("2026-02-01T00:00:00Z")))
    assert.deepStrictEqual(expired.event, { action: "status_changed", previousStatus: "approved", currentStatus: "expired" })
    const reopened = Result.getOrThrow(Snooze.reopen(expired.request))
    assert.deepStrictEqual(reopened.event, { action: "reopened", previousStatus: "expired", currentStatus: "pending" })
    const rejected = Result.getOrThrow(Snooze.review(fresh().request, { decision: "reject", comment: "no" }, now))
    assert.strictEqual(rejected.request.reviewComment, "no")
    assert.strictEqual(Result.getOrThrow(Snooze.reopen(rejected.request)).request.status, "pending")
  })

  const allowed: Record<Snooze.SnoozeStatus, ReadonlyArray<string>> = {
    pending: ["approve", "reject"],
    approved: ["expire"],
    rejected: ["reopen"],
    expired: ["reopen"]
  }
  const later = new Date("2027-01-01T00:00:00Z")
  const apply = (r: Snooze.SnoozeRequest, action: string) =>
    action === "approve"
      ? Snooze.review(r, { decision: "approve" }, now)
      : action === "reject"
      ? Snooze.review(r, { decision: "reject" }, now)
      : action === "expire"
      ? Snooze.expire(r, later)
      : Snooze.reopen(r)

  prop("random action sequences follow the machine exactly: allowed moves succeed, others are refused", [
    fc.array(fc.constantFrom("approve", "reject", "expire", "reopen"), { maxLength: 30 })
  ], ([actions]) => {
    let current = fresh().request
    for (const action of actions) {
      const result = apply(current, action)
      assert.strictEqual(Result.isSuccess(result), allowed[current.status].includes(action), `${current.status} ${action}`)
      if (Result.isSuccess(result)) {
        assert.strictEqual(result.success.event.previousStatus, current.status)
        current = result.success.request
      }
    }
  })
})
