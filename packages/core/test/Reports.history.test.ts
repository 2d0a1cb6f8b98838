/**
 * The compliance history joined with remediation activity (`Reports.history`): each snapshot's
 * point gains the remediation requests opened (failed attempts left out) and merged on its day.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import type * as Remediation from "../src/Remediation.js"
import * as Reports from "../src/Reports.js"
import { prop } from "./support/fcProp.js"

const days = ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"] as const

/** A time on one of `days` (or just outside them), ISO 8601 UTC, as the stores keep it. */
const time = fc.tuple(fc.constantFrom("2026-02-28", ...days, "2026-03-05"), fc.integer({ min: 0, max: 86_399_999 }))
  .map(([day, ms]) => new Date(Date.parse(`${day}T00:00:00.000Z`) + ms).toISOString())

const activity = fc.record({
  status: fc.constantFrom<Remediation.RemediationStatus>("open", "failed", "superseded", "closed", "merged"),
  createdAt: time,
  mergedAt: time
}).map(({ createdAt, mergedAt, status }): Reports.RemediationActivity => ({
  status,
  createdAt,
  mergedAt: status === "merged" ? mergedAt : null
}))

const snapshot = (day: string): Reports.ComplianceSnapshot => ({
  day,
  report: {
    generatedAt: `${day}T00:05:00.000Z`,
    organization: {
      trackedBranches: 2,
      scannedBranches: 1,
      outOfPolicyFindings: 3,
      findingsWithoutMapping: 0,
      openRemediationRequests: 1,
      pendingSnoozes: 0,
      approvedSnoozes: 0,
      oldestOutOfPolicyScanAt: null
    },
    policyGroups: [],
    teams: []
  }
})

const snapshotDays = fc.subarray([...days]).map((d) => d.map(snapshot))

describe("Reports.history", () => {
  prop(
    "each point counts the requests opened on its day (failed attempts are not requests) and those merged on its day; the rest of the point is the snapshot's",
    [snapshotDays, fc.array(activity, { maxLength: 30 })],
    ([snapshots, requests]) => {
      const points = Reports.history(snapshots, requests)
      assert.deepStrictEqual(points.map((p) => p.day), snapshots.map((s) => s.day))
      for (const [i, point] of points.entries()) {
        const day = snapshots[i]!.day
        assert.strictEqual(
          point.remediationRequestsOpened,
          requests.filter((r) => r.status !== "failed" && r.createdAt.startsWith(day)).length,
          `opened on ${day}`
        )
        assert.strictEqual(
          point.remediationRequestsMerged,
          requests.filter((r) => r.status === "merged" && r.mergedAt?.startsWith(day)).length,
          `merged on ${day}`
        )
        assert.deepStrictEqual(
          { ...point, remediationRequestsOpened: 0, remediationRequestsMerged: 0 },
          { ...Reports.toHistoryPoint(snapshots[i]!), remediationRequestsOpened: 0, remediationRequestsMerged: 0 }
        )
      }
    }
  )

  prop(
    "the order of the requests does not matter, and a day without a snapshot has no point (its activity is not moved to another day)",
    [fc.array(activity, { maxLength: 30 })],
    ([requests]) => {
      const all = days.map(snapshot)
      const forward = Reports.history(all, requests)
      assert.deepStrictEqual(Reports.history(all, [...requests].reverse()), forward)
      const withoutSecond = Reports.history(all.filter((s) => s.day !== days[1]), requests)
      assert.deepStrictEqual(withoutSecond, forward.filter((p) => p.day !== days[1]))
    }
  )

  it("a request merged the day it was opened counts on that day as both", () => {
    const [point] = Reports.history([snapshot("2026-03-02")], [
      { status: "merged", createdAt: "2026-03-02T08:00:00.000Z", mergedAt: "2026-03-02T17:30:00.000Z" },
      { status: "failed", createdAt: "2026-03-02T09:00:00.000Z", mergedAt: null },
      { status: "open", createdAt: "2026-03-01T23:59:59.999Z", mergedAt: null }
    ])
    assert.strictEqual(point!.remediationRequestsOpened, 1)
    assert.strictEqual(point!.remediationRequestsMerged, 1)
  })
})
