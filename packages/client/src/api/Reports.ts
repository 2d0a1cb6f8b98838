/** Compliance reporting (issue 15): the report now, and its daily history from snapshots. */
import { Reports } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath } from "./Common.js"
import { Authentication, requires } from "./Security.js"

const defaultHistoryDays = 30

/** `days`: an integer 1..365 written as a string (default 30). */
const Days = Schema.NumberFromString.check(
  Schema.isInt({ message: "days must be an integer" }),
  Schema.isBetween(
    { minimum: Reports.minHistoryDays, maximum: Reports.maxHistoryDays },
    { message: `days must be between ${Reports.minHistoryDays} and ${Reports.maxHistoryDays}` }
  )
).annotate({
  description: `Days of history ending today (UTC), ${Reports.minHistoryDays}..${Reports.maxHistoryDays}; default ${defaultHistoryDays}`
})

const HistoryQuery = { days: Days.pipe(Schema.withDecodingDefaultType(Effect.succeed(defaultHistoryDays))) }

export const ComplianceHistory = Schema.Struct({
  days: Schema.Int,
  /** First and last day of the range (UTC dates). */
  from: Schema.String,
  to: Schema.String,
  items: Schema.Array(Reports.HistoryPoint).annotate({
    description: "One point per day of the range that has a snapshot, oldest first; a day without one (no host ran) is absent"
  })
}).annotate({ identifier: "ComplianceHistory" })

export const ReportsGroup = HttpApiGroup.make("reports")
  .annotate(OpenApi.Description, "Compliance reports and their daily snapshots")
  .add(
    HttpApiEndpoint.get("getComplianceReport", "/org/:orgId/reports/compliance", {
      params: OrgPath,
      success: Reports.ComplianceReport.annotate({ identifier: "ComplianceReport" })
    })
      .annotate(OpenApi.Summary, "Compliance report of the organization, per policy group and per team")
      .annotate(
        OpenApi.Description,
        "Computed now: tracked and scanned branches, findings a published mapping applies to (out of policy) and findings without one (as the findings route resolves them), open remediation requests, pending and approved (not past `until`) snooze requests, and the finish time of the oldest scan holding an out-of-policy finding; for the organization, each policy group and each team."
      )
      .pipe(requires("reports:read")),
    HttpApiEndpoint.get("getComplianceHistory", "/org/:orgId/reports/compliance/history", {
      params: OrgPath,
      query: HistoryQuery,
      success: ComplianceHistory
    })
      .annotate(OpenApi.Summary, "Daily history of the organization's compliance counts")
      .annotate(
        OpenApi.Description,
        "The organization's counts of each day of the last `days` days (UTC) from the daily snapshots the hosts write; nothing is rescanned or recomputed."
      )
      .pipe(requires("reports:read"))
  )
  .middleware(Authentication)
