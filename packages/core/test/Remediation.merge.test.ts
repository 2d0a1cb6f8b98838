/** A provider's merge of a remediation request (`Remediation.merge`): which requests it concerns, and what it sets. */
import { assert, describe } from "@effect/vitest"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Remediation from "../src/Remediation.js"
import { prop } from "./support/fcProp.js"
import { repositoryId } from "./support/remediation.js"

const isoTime = fc.date({ min: new Date("2020-01-01T00:00:00.000Z"), max: new Date("2030-01-01T00:00:00.000Z"), noInvalidDate: true })
  .map((d) => d.toISOString())

const request = fc.record({
  status: fc.constantFrom<Remediation.RemediationStatus>("open", "failed", "superseded", "closed", "merged"),
  number: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
  createdAt: isoTime,
  mergedAt: isoTime
}).map(({ createdAt, mergedAt, number, status }): Remediation.RemediationRequest => ({
  id: Id.make("remediation", new Uint8Array(16).fill(7)) as Id.RemediationId,
  repositoryId,
  branchName: "main",
  headBranch: "image-policy/remediate/main",
  status,
  failure: status === "failed" ? "conflict" : null,
  number: status === "failed" ? null : number,
  url: number === null ? null : `https://git.example/acme/api/pull/${number}`,
  scanId: Id.make("scan", new Uint8Array(16).fill(3)) as Id.ScanId,
  changes: [],
  createdAt,
  updatedAt: createdAt,
  mergedAt: status === "merged" ? mergedAt : null
}))

describe("Remediation.merge", () => {
  prop(
    "a merge of request N marks exactly the request the service opened under N and not merged yet; it keeps everything else",
    [request, fc.integer({ min: 1, max: 20 }), isoTime, isoTime],
    ([r, number, mergedAt, at]) => {
      const merged = Remediation.merge(r, number, mergedAt, at)
      const concerns = r.number === number && (r.status === "open" || r.status === "superseded" || r.status === "closed")
      if (!concerns) {
        assert.isUndefined(merged)
        return
      }
      assert.deepStrictEqual(merged, { ...r, status: "merged", mergedAt, updatedAt: at })
    }
  )

  prop(
    "merging is final: a second delivery of the same merge (or any later one) changes nothing",
    [request, fc.integer({ min: 1, max: 20 }), isoTime, isoTime, isoTime],
    ([r, number, mergedAt, at, later]) => {
      const merged = Remediation.merge({ ...r, number }, number, mergedAt, at)
      if (merged === undefined) return
      assert.isUndefined(Remediation.merge(merged, number, later, later))
    }
  )
})
