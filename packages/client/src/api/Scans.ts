/**
 * Branch scans, their findings and the remediation requests of a repository (issue 7; spec 3:
 * onboarding queues one scan per tracked branch, publish opens no remediation at once).
 */
import { Remediation, Scan } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const RepositoryPath = { ...OrgPath, repositoryId: pathId("RepositoryId") }

const BranchParam = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)).annotate({
  description: "A tracked branch of the repository; default: its default branch"
})

export const FindingsPage = Schema.Struct({
  branchName: Schema.String,
  scan: Schema.NullOr(Scan.BranchScan).annotate({
    description: "The scan the findings come from (the branch's newest succeeded scan); null until a scan of the branch succeeded"
  }),
  items: Schema.Array(Scan.FindingView),
  nextCursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "FindingsPage" })

const ScanRequest = Schema.Struct({
  branchNames: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)))
      .check(Schema.isMinLength(1), Schema.isMaxLength(100))
      .annotate({ description: "Tracked branches to scan; every tracked branch when omitted" })
  ),
  remediate: Schema.optionalKey(Schema.Boolean.annotate({
    description:
      "true runs the repository's routine now: each scan is a routine scan, which remediates its branch before it succeeds (default false)"
  }))
})

const scanRequestJsonSchema = Schema.toJsonSchemaDocument(ScanRequest, { onExcessProperty: "error" }).schema
const decodeScanRequest = Schema.decodeUnknownEffect(ScanRequest)

/**
 * `{ branchNames?, remediate? }`, or no body at all (which reaches the decoder as `undefined`):
 * every tracked branch. Decoded by hand rather than as a union with "no body", so a bad body is told
 * what is wrong with its fields only, not also that it is not empty.
 */
export const ScanPayload = Schema.Any.check(Schema.makeFilter(() => true, { toJsonSchema: () => scanRequestJsonSchema })).pipe(
  Schema.decodeTo(Schema.toType(ScanRequest), {
    decode: SchemaGetter.transformEffect((body: unknown, options) =>
      Effect.mapError(decodeScanRequest(body ?? {}, options), (error) => error.issue)
    ),
    encode: SchemaGetter.passthroughSupertype()
  })
).annotate({ identifier: "ScanRequest", description: "The body may be omitted: every tracked branch" })

export const ScansQueued = Schema.Struct({ scans: Schema.Array(Scan.BranchScan) }).pipe(HttpApiSchema.status(202))

const FindingsQuery = { ...PageParams.fields, branch: Schema.optionalKey(BranchParam) }

export const ScansGroup = HttpApiGroup.make("scans")
  .annotate(OpenApi.Description, "Branch scans, findings and remediation requests")
  .add(
    HttpApiEndpoint.get("listFindings", "/org/:orgId/repositories/:repositoryId/findings", {
      params: RepositoryPath,
      query: FindingsQuery,
      success: FindingsPage
    })
      .annotate(OpenApi.Summary, "List a branch's findings")
      .annotate(
        OpenApi.Description,
        "The image references of a tracked branch (its newest succeeded scan), by file, line and column, each with the published mapping that applies to it now (`resolution`, null when none). 400 naming `branch` when the branch is not tracked."
      )
      .pipe(requires("repositories:read")),
    HttpApiEndpoint.get("listScans", "/org/:orgId/repositories/:repositoryId/scans", {
      params: RepositoryPath,
      query: FindingsQuery,
      success: Page(Scan.BranchScan)
    })
      .annotate(OpenApi.Summary, "List a repository's scans")
      .annotate(OpenApi.Description, "The repository's scans, newest first, optionally of one tracked branch.")
      .pipe(requires("repositories:read")),
    HttpApiEndpoint.post("requestScans", "/org/:orgId/repositories/:repositoryId/scans", {
      params: RepositoryPath,
      payload: ScanPayload,
      success: ScansQueued,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Request scans of a repository's branches")
      .annotate(
        OpenApi.Description,
        "Queues a scan of each named tracked branch (every tracked branch when `branchNames` is omitted or there is no body). With `remediate: true` the scans are routine scans: each remediates its branch before it is recorded as succeeded, as when the routine comes due. A branch whose scan is already queued or running keeps it (and its trigger): the answer lists the scan now pending for each branch. 400 naming `branchNames[i]` for a branch that is not tracked."
      )
      .pipe(requires("repositories:manage")),
    HttpApiEndpoint.get("listRemediationRequests", "/org/:orgId/repositories/:repositoryId/remediation-requests", {
      params: RepositoryPath,
      query: PageParams,
      success: Page(Remediation.RemediationRequest)
    })
      .annotate(OpenApi.Summary, "List a repository's remediation requests")
      .annotate(
        OpenApi.Description,
        "The pull/merge requests the routine opened (or failed to open) for the repository's branches, newest first, each with its changes."
      )
      .pipe(requires("repositories:read"))
  )
  .middleware(Authentication)
