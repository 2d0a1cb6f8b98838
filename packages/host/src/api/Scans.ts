/**
 * Branch scans, their findings and the remediation requests of a repository (issue 7; spec 3:
 * onboarding queues one scan per tracked branch, publish opens no remediation at once).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Remediation, Scan } from "@image-policy/core"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Page, PageParams, PathId, strictPayload } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem413, Problem429 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const RepositoryPath = Schema.Struct({ orgId: PathId, repositoryId: PathId })

const BranchParam = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)).annotations({
  description: "A tracked branch of the repository; default: its default branch"
})

export const FindingsPage = Schema.Struct({
  branchName: Schema.String,
  scan: Schema.NullOr(Scan.BranchScan).annotations({
    description: "The scan the findings come from (the branch's newest succeeded scan); null until a scan of the branch succeeded"
  }),
  items: Schema.Array(Scan.FindingView),
  nextCursor: Schema.optional(Schema.String)
}).annotations({ identifier: "FindingsPage" })

const ScanRequest = strictPayload(Schema.Struct({
  branchNames: Schema.optional(
    Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))).pipe(Schema.minItems(1), Schema.maxItems(100))
      .annotations({ description: "Tracked branches to scan; every tracked branch when omitted" })
  ),
  remediate: Schema.optional(Schema.Boolean.annotations({
    description: "true runs the repository's routine now: each scan is a routine scan, which remediates its branch before it succeeds (default false)"
  }))
}))

const { $schema: _, ...scanRequestJsonSchema } = JSONSchema.make(ScanRequest)
const decodeScanRequest = ParseResult.decodeUnknown(ScanRequest)

/**
 * `{ branchNames? }`, or no body at all (which reaches the decoder as `null`, see
 * http/BodyGuard.ts): every tracked branch. Decoded by hand rather than as a union with `null`, so
 * a bad body is told what is wrong with its fields only, not also that it is not `null`.
 */
export const ScanPayload = Schema.transformOrFail(
  Schema.Unknown.annotations({ jsonSchema: scanRequestJsonSchema }),
  Schema.typeSchema(ScanRequest),
  { strict: true, decode: (body) => decodeScanRequest(body ?? {}), encode: ParseResult.succeed }
).annotations({ identifier: "ScanRequest", description: "The body may be omitted: every tracked branch" })

export const ScansQueued = Schema.Struct({ scans: Schema.Array(Scan.BranchScan) }).annotations(
  HttpApiSchema.annotations({ status: 202 })
)

export const ScansGroup = HttpApiGroup.make("scans")
  .add(
    HttpApiEndpoint.get("listFindings", "/org/:orgId/repositories/:repositoryId/findings")
      .setPath(RepositoryPath)
      .setUrlParams(Schema.Struct({ ...PageParams.fields, branch: Schema.optional(BranchParam) }))
      .addSuccess(FindingsPage)
      .annotate(
        OpenApi.Description,
        "The image references of a tracked branch (its newest succeeded scan), by file, line and column, each with the published mapping that applies to it now (`resolution`, null when none). 400 naming `branch` when the branch is not tracked."
      )
      .pipe(requires("repositories:read"))
  )
  .add(
    HttpApiEndpoint.get("listScans", "/org/:orgId/repositories/:repositoryId/scans")
      .setPath(RepositoryPath)
      .setUrlParams(Schema.Struct({ ...PageParams.fields, branch: Schema.optional(BranchParam) }))
      .addSuccess(Page(Scan.BranchScan))
      .annotate(OpenApi.Description, "The repository's scans, newest first, optionally of one tracked branch.")
      .pipe(requires("repositories:read"))
  )
  .add(
    HttpApiEndpoint.post("requestScans", "/org/:orgId/repositories/:repositoryId/scans")
      .setPath(RepositoryPath)
      .setPayload(ScanPayload)
      .addSuccess(ScansQueued)
      .addError(Problem413)
      .annotate(
        OpenApi.Description,
        "Queues a scan of each named tracked branch (every tracked branch when `branchNames` is omitted or there is no body). With `remediate: true` the scans are routine scans: each remediates its branch before it is recorded as succeeded, as when the routine comes due. A branch whose scan is already queued or running keeps it (and its trigger): the answer lists the scan now pending for each branch. 400 naming `branchNames[i]` for a branch that is not tracked."
      )
      .pipe(requires("repositories:manage"))
  )
  .add(
    HttpApiEndpoint.get("listRemediationRequests", "/org/:orgId/repositories/:repositoryId/remediation-requests")
      .setPath(RepositoryPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Remediation.RemediationRequest))
      .annotate(
        OpenApi.Description,
        "The pull/merge requests the routine opened (or failed to open) for the repository's branches, newest first, each with its changes."
      )
      .pipe(requires("repositories:read"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
