/**
 * The connection-health rule (`ConnectionHealth.statusAfter`): the status a VCS connection has
 * after a provider call, stated as the laws a connection's owner relies on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as ConnectionHealth from "../src/ConnectionHealth.js"
import { VcsProviderError, VcsWriteRejected } from "../src/Vcs.js"
import { ConnectionStatus } from "../src/VcsConnection.js"
import { prop } from "./support/fcProp.js"

const status = fc.constantFrom<ConnectionStatus>("active", "inactive", "error")
const attached = fc.constantFrom<ConnectionStatus>("active", "error")
const reasons = ["not-configured", "unauthorized", "not-found", "rate-limited", "unavailable"] as const
const writeReasons = ["conflict", "forbidden", "invalid"] as const

// the errors themselves, as the workflows see them, not look-alike records
const providerError = (reasons: ReadonlyArray<VcsProviderError["reason"]>) =>
  fc.tuple(fc.constantFrom(...reasons), fc.option(fc.nat(3600), { nil: undefined })).map(([reason, retryAfterSeconds]) =>
    new VcsProviderError({ reason, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) })
  )
const writeRejected = fc.tuple(fc.constantFrom<"conflict" | "forbidden">("conflict", "forbidden"), fc.constantFrom(403, 409)).map(
  ([reason, status]) => new VcsWriteRejected({ reason, status })
)
/** Outcomes in which the provider accepted the credentials (it answered, whatever it said). */
const answered: fc.Arbitrary<ConnectionHealth.CallOutcome> = fc.oneof(
  fc.constant(ConnectionHealth.answered),
  providerError(["not-found"]),
  writeRejected
)
const rejected: fc.Arbitrary<ConnectionHealth.CallOutcome> = providerError(["unauthorized"])
/** Outcomes that say nothing about the credentials. */
const silent: fc.Arbitrary<ConnectionHealth.CallOutcome> = fc.oneof(
  providerError(["rate-limited", "unavailable", "not-configured"]),
  // the adapter refuses some writes as invalid before it asks the provider anything
  fc.constantFrom(403, 409, 422).map((status) => new VcsWriteRejected({ reason: "invalid", status }))
)
const outcome = fc.oneof(answered, rejected, silent)

describe("ConnectionHealth.statusAfter", () => {
  it("every status and outcome, once", () => {
    const outcomes: ReadonlyArray<readonly [string, ConnectionHealth.CallOutcome]> = [
      ["answered", ConnectionHealth.answered],
      ...reasons.map((reason) => [reason, new VcsProviderError({ reason })] as const),
      ...writeReasons.map((reason) => [`write ${reason}`, new VcsWriteRejected({ reason, status: 409 })] as const)
    ]
    const table = outcomes.map(([name, o]) =>
      `${name}: ${(["active", "inactive", "error"] as const).map((s) => ConnectionHealth.statusAfter(s, o)).join(" ")}`
    )
    assert.deepStrictEqual(table, [
      "answered: active inactive active",
      "not-configured: active inactive error",
      "unauthorized: error inactive error",
      "not-found: active inactive active",
      "rate-limited: active inactive error",
      "unavailable: active inactive error",
      "write conflict: active inactive active",
      "write forbidden: active inactive active",
      "write invalid: active inactive error"
    ])
  })

  prop("answers a connection status", [status, outcome], ([s, o]) => {
    assert.isTrue(Schema.is(ConnectionStatus)(ConnectionHealth.statusAfter(s, o)))
  })

  prop("inactive is a fixed point: only the owner switches a connection on", [fc.array(outcome, { maxLength: 12 })], ([outcomes]) => {
    assert.strictEqual(outcomes.reduce(ConnectionHealth.statusAfter, "inactive" as ConnectionStatus), "inactive")
  })

  prop("no provider call switches a connection off", [attached, outcome], ([s, o]) => {
    assert.notStrictEqual(ConnectionHealth.statusAfter(s, o), "inactive")
  })

  prop("rejected credentials never leave a connection active; they mark an attached one error", [status, rejected], ([s, o]) => {
    const after = ConnectionHealth.statusAfter(s, o)
    assert.notStrictEqual(after, "active")
    if (s !== "inactive") assert.strictEqual(after, "error")
  })

  prop("an answer never leaves a connection error; it marks an attached one active", [status, answered], ([s, o]) => {
    const after = ConnectionHealth.statusAfter(s, o)
    assert.notStrictEqual(after, "error")
    if (s !== "inactive") assert.strictEqual(after, "active")
  })

  prop("an outcome that says nothing about the credentials changes nothing", [status, silent], ([s, o]) => {
    assert.strictEqual(ConnectionHealth.statusAfter(s, o), s)
  })

  prop("idempotent: the same outcome twice equals once", [status, outcome], ([s, o]) => {
    const once = ConnectionHealth.statusAfter(s, o)
    assert.strictEqual(ConnectionHealth.statusAfter(once, o), once)
  })

  prop(
    "after a run of calls the status is the last telling outcome's (or the start, when none told)",
    [status, fc.array(outcome, { maxLength: 12 })],
    ([s, outcomes]) => {
      const last = outcomes.filter((o) => ConnectionHealth.credentialsVerdict(o) !== "unknown").at(-1)
      const expected = last === undefined ? s : ConnectionHealth.statusAfter(s, last)
      assert.strictEqual(outcomes.reduce(ConnectionHealth.statusAfter, s), expected)
    }
  )
})
