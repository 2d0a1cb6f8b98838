import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import type * as Id from "../src/Id.js"
import * as Session from "../src/Session.js"
import { prop } from "./support/fcProp.js"

const minute = 60_000
const t0 = Date.parse("2026-03-01T00:00:00.000Z")
const fields = {
  id: "ses_0123456789abcdefghjkmnpqrs" as Id.SessionId,
  memberId: "mbr_0123456789abcdefghjkmnpqrs" as Id.MemberId,
  tokenHash: "h"
}
const policy = fc.record({ maxFailures: fc.integer({ min: 1, max: 10 }), windowMs: fc.integer({ min: 1_000, max: 3_600_000 }) })
const lifetimes = fc.record({
  idleMs: fc.integer({ min: 1_000, max: 86_400_000 }),
  maxAgeMs: fc.integer({ min: 1_000, max: 30 * 86_400_000 })
})

describe("Session (issue 17)", () => {
  prop(
    "throttle: however attempts arrive, no window holds more than maxFailures accepted failures",
    [policy, fc.array(fc.integer({ min: 0, max: 10_000_000 }), { maxLength: 80 })],
    ([p, times]) => {
      let failures: ReadonlyArray<number> = []
      const accepted: Array<number> = []
      for (const at of [...times].sort((a, b) => a - b)) {
        if (Session.retryAfterMs(failures, at, p) > 0) continue
        accepted.push(at)
        failures = Session.recordFailure(failures, at, p)
      }
      for (const start of accepted) {
        assert.isAtMost(accepted.filter((t) => t >= start && t < start + p.windowMs).length, p.maxFailures)
      }
    }
  )

  prop("throttle: after waiting Retry-After the next attempt is allowed", [
    policy,
    fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 30 }),
    fc.integer({ min: 0, max: 2_000_000 })
  ], ([p, times, at]) => {
    let failures: ReadonlyArray<number> = []
    for (const t of [...times].sort((a, b) => a - b)) failures = Session.recordFailure(failures, t, p)
    const now = Math.max(at, ...failures)
    const wait = Session.retryAfterMs(failures, now, p)
    assert.isAtLeast(wait, 0)
    assert.isAtMost(wait, p.windowMs)
    assert.strictEqual(Session.retryAfterMs(failures, now + wait, p), 0)
    // what is kept never grows past what can still count
    assert.isAtMost(failures.length, p.maxFailures)
  })

  prop("expiry: live exactly before both the idle and the absolute end; the idle end never passes the absolute", [
    lifetimes,
    fc.integer({ min: 0, max: 40 * 86_400_000 }),
    fc.integer({ min: 0, max: 40 * 86_400_000 })
  ], ([l, seen, at]) => {
    const opened = Session.open(fields, t0, l)
    const session = { ...opened, lastSeenAt: new Date(t0 + Math.min(seen, l.maxAgeMs)).toISOString() }
    const now = t0 + at
    const live = now < Date.parse(session.expiresAt) && now < Date.parse(session.lastSeenAt) + l.idleMs
    assert.strictEqual(Session.status(session, now, l) === "live", live)
    assert.isAtMost(Session.idleExpiresAtMs(session, l), Date.parse(session.expiresAt))
    if (live) assert.isBelow(now, Session.idleExpiresAtMs(session, l))
  })

  it("expiry: the absolute end wins over a recent use; a use moves the idle end; touch at most once a minute", () => {
    const l = { idleMs: 10 * minute, maxAgeMs: 60 * minute }
    const s = Session.open(fields, t0, l)
    assert.strictEqual(s.expiresAt, new Date(t0 + 60 * minute).toISOString())
    assert.strictEqual(Session.status(s, t0 + 10 * minute - 1, l), "live")
    assert.strictEqual(Session.status(s, t0 + 10 * minute, l), "idle-expired")
    const used = { ...s, lastSeenAt: new Date(t0 + 59 * minute).toISOString() }
    assert.strictEqual(Session.status(used, t0 + 60 * minute, l), "expired")
    assert.isFalse(Session.needsTouch(s, t0 + minute - 1))
    assert.isTrue(Session.needsTouch(s, t0 + minute))
  })

  prop("CSRF: safe methods always pass; unsafe ones exactly with the session's token and, if named, this origin", [
    fc.constantFrom("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "get", "post"),
    fc.option(fc.constantFrom("tok", "other", ""), { nil: undefined }),
    fc.option(fc.constantFrom("https://app.example", "https://evil.example", "null"), { nil: undefined })
  ], ([method, csrfToken, origin]) => {
    const result = Session.checkCsrf({ method, csrfToken, origin }, "tok", "https://app.example")
    const safe = ["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase())
    const expected = safe || (csrfToken === "tok" && (origin === undefined || origin === "https://app.example"))
    assert.strictEqual(Result.isSuccess(result), expected)
    if (Result.isFailure(result) && origin !== undefined && origin !== "https://app.example") {
      assert.strictEqual(result.failure.reason, "wrong-origin")
    }
  })

  prop("tokens: 32 bytes give a cookie-safe token that looks like one; different bytes, different tokens", [
    fc.uint8Array({ minLength: 32, maxLength: 32 }),
    fc.uint8Array({ minLength: 32, maxLength: 32 })
  ], ([a, b]) => {
    assert.isTrue(Session.looksLikeToken(Session.formatToken(a)))
    assert.strictEqual(Session.formatToken(a) === Session.formatToken(b), a.every((x, i) => x === b[i]))
    assert.notStrictEqual(Session.csrfSeed(Session.formatToken(a)), Session.formatToken(a))
  })

  prop("parseLifetime reads every unit and refuses what is out of range", [
    fc.integer({ min: 1, max: 365 }),
    fc.constantFrom(["s", 1_000], ["m", 60_000], ["h", 3_600_000], ["d", 86_400_000], ["", 1_000])
  ], ([n, [unit, ms]]) => {
    const parsed = Session.parseLifetime(`${n}${unit}`)
    const want = n * (ms as number)
    assert.strictEqual(parsed, want <= Session.maxLifetimeMs ? want : undefined)
  })

  it("parseLifetime refuses junk", () => {
    for (const bad of ["", "0", "0s", "12 hours", "1.5h", "-1d", "366d", "h"]) assert.isUndefined(Session.parseLifetime(bad), bad)
    assert.strictEqual(Session.parseLifetime("12h"), Session.defaultLifetimes.idleMs)
    assert.strictEqual(Session.parseLifetime(" 7d "), Session.defaultLifetimes.maxAgeMs)
  })

  it("passwords: 12 to 1024 characters", () => {
    const decode = Schema.decodeUnknownResult(Session.SetPasswordRequest)
    assert.isTrue(Result.isSuccess(decode({ password: "x".repeat(12) })))
    assert.isTrue(Result.isFailure(decode({ password: "x".repeat(11) })))
    assert.isTrue(Result.isFailure(decode({ password: "x".repeat(1025) })))
  })
})
