import { assert, describe, it } from "@effect/vitest"
import { Option, Result } from "effect"
import * as fc from "fast-check"
import * as DeliveryPolicy from "../src/DeliveryPolicy.js"
import { prop } from "./support/fcProp.js"

const response = (status: number): DeliveryPolicy.Outcome => ({ _tag: "Response", status })

describe("DeliveryPolicy (spec 6)", () => {
  it("classifies answers", () => {
    for (const s of [200, 201, 202, 204, 299]) assert.strictEqual(DeliveryPolicy.classifyResponse(response(s)), "success")
    assert.strictEqual(DeliveryPolicy.classifyResponse(response(410)), "disable")
    for (const s of [408, 425, 429, 500, 502, 503, 504, 599]) assert.strictEqual(DeliveryPolicy.classifyResponse(response(s)), "retry")
    for (const s of [301, 400, 401, 403, 404, 413, 501, 505]) assert.strictEqual(DeliveryPolicy.classifyResponse(response(s)), "fail")
    assert.strictEqual(DeliveryPolicy.classifyResponse({ _tag: "Timeout" }), "retry")
    assert.strictEqual(DeliveryPolicy.classifyResponse({ _tag: "NetworkError" }), "retry")
  })

  it("parses Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z")
    assert.deepStrictEqual(DeliveryPolicy.parseRetryAfter("120", now), Option.some(120))
    assert.deepStrictEqual(DeliveryPolicy.parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now), Option.some(60))
    assert.deepStrictEqual(DeliveryPolicy.parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now), Option.some(0))
    assert.deepStrictEqual(DeliveryPolicy.parseRetryAfter("Thursday, 01-Jan-26 00:02:00 GMT", now), Option.some(120))
    assert.deepStrictEqual(DeliveryPolicy.parseRetryAfter("Thu Jan  1 00:00:30 2026", now), Option.some(30))
    for (const junk of [undefined, "", "-5", "soon", "1.5", "12abc", "Tue, 31 Feb 2026 00:00:00 GMT", "2026-01-01T00:01:00Z", "Mon 5"]) {
      assert.isTrue(Option.isNone(DeliveryPolicy.parseRetryAfter(junk, now)), String(junk))
    }
  })

  it("parses a configured schedule and refuses a bad one", () => {
    assert.deepStrictEqual(Result.getOrThrow(DeliveryPolicy.parseRetrySchedule("1, 2,3")), [1, 2, 3])
    for (const bad of ["", "0", "-1", "a,b", "1,,2", "90000", Array(21).fill("1").join(",")]) {
      assert.isTrue(Result.isFailure(DeliveryPolicy.parseRetrySchedule(bad)), bad)
    }
  })

  it("honours Retry-After up to the one-hour cap and dead-letters after the schedule", () => {
    const step = DeliveryPolicy.nextStep({ attempt: 1, classification: "retry", retryAfterSeconds: 90, jitter: 0.5 })
    assert.deepStrictEqual(step, { _tag: "Retry", delayMs: 90_000 })
    const capped = DeliveryPolicy.nextStep({ attempt: 1, classification: "retry", retryAfterSeconds: 86_400, jitter: 0.5 })
    assert.deepStrictEqual(capped, { _tag: "Retry", delayMs: 3_600_000 })
    assert.deepStrictEqual(DeliveryPolicy.nextStep({ attempt: 9, classification: "retry", jitter: 0 }), { _tag: "DeadLetter" })
    assert.deepStrictEqual(DeliveryPolicy.nextStep({ attempt: 1, classification: "fail", jitter: 0 }), { _tag: "DeadLetter" })
    assert.deepStrictEqual(DeliveryPolicy.nextStep({ attempt: 3, classification: "disable", jitter: 0 }), { _tag: "Disable" })
  })

  prop("retry delays stay within the jitter band (or Retry-After) and under the cap", [
    fc.integer({ min: 1, max: 8 }),
    fc.double({ min: 0, max: 0.9999, noNaN: true }),
    fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined })
  ], ([attempt, jitter, retryAfterSeconds]) => {
    const scheduled = DeliveryPolicy.defaultRetrySchedule[attempt - 1]!
    const step = DeliveryPolicy.nextStep({ attempt, classification: "retry", jitter, retryAfterSeconds })
    assert.strictEqual(step._tag, "Retry")
    if (step._tag !== "Retry") return
    const seconds = step.delayMs / 1000
    assert.isAtMost(seconds, DeliveryPolicy.maxDelaySeconds)
    assert.isAtLeast(seconds + 0.001, Math.min(scheduled * 0.8, DeliveryPolicy.maxDelaySeconds))
    assert.isAtMost(seconds, Math.max(scheduled * 1.2, retryAfterSeconds ?? 0) + 0.001)
  })

  prop("attempts beyond the schedule always dead-letter", [
    fc.integer({ min: 9, max: 1000 }),
    fc.double({ min: 0, max: 0.99, noNaN: true })
  ], ([attempt, jitter]) => {
    assert.deepStrictEqual(DeliveryPolicy.nextStep({ attempt, classification: "retry", jitter }), { _tag: "DeadLetter" })
  })

  prop(
    "every status maps to exactly one class; random headers never throw",
    [fc.integer({ min: 100, max: 599 }), fc.string()],
    ([status, header]) => {
      assert.include(["success", "retry", "disable", "fail"], DeliveryPolicy.classifyResponse(response(status)))
      assert.isTrue(Option.isOption(DeliveryPolicy.parseRetryAfter(header, 0)))
    }
  )
})
