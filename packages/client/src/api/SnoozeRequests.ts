/** Snooze requests, the organization's exceptions (contracts 5, 6): create, read, list, review, reopen. */
import { SnoozeRequest } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const SnoozePath = { ...OrgPath, snoozeRequestId: pathId("SnoozeRequestId") }

/** The page parameters and the list's filters; a cursor continues the list of the same filters. */
export const SnoozeListQuery = Schema.Struct({ ...PageParams.fields, ...SnoozeRequest.SnoozeFilter.fields })

export const SnoozeRequestsGroup = HttpApiGroup.make("snoozeRequests")
  .annotate(OpenApi.Description, "Snooze requests: create, review, reopen")
  .add(
    HttpApiEndpoint.get("listSnoozeRequests", "/org/:orgId/snooze-requests", {
      params: OrgPath,
      query: SnoozeListQuery,
      success: Page(SnoozeRequest.SnoozeRequest)
    })
      .annotate(OpenApi.Summary, "List snooze requests")
      .annotate(
        OpenApi.Description,
        "Oldest first; `status` and `repositoryId` narrow the list. Pass `nextCursor` back with the same filters."
      )
      .pipe(requires("exceptions:read")),
    HttpApiEndpoint.get("getSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId", {
      params: SnoozePath,
      success: SnoozeRequest.SnoozeRequest
    })
      .annotate(OpenApi.Summary, "Read one snooze request")
      .pipe(requires("exceptions:read")),
    HttpApiEndpoint.post("createSnoozeRequest", "/org/:orgId/snooze-requests", {
      params: OrgPath,
      payload: SnoozeRequest.SnoozeCreateRequest,
      success: SnoozeRequest.SnoozeRequest.pipe(HttpApiSchema.status(201)),
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Create a snooze request (pending)")
      .pipe(requires("exceptions:write")),
    HttpApiEndpoint.post("reviewSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId/review", {
      params: SnoozePath,
      payload: SnoozeRequest.SnoozeReviewRequest,
      success: SnoozeRequest.SnoozeRequest,
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Approve or reject a pending snooze request")
      .pipe(requires("exceptions:review")),
    HttpApiEndpoint.post("reopenSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId/reopen", {
      params: SnoozePath,
      success: SnoozeRequest.SnoozeRequest,
      error: Problem409
    })
      .annotate(OpenApi.Summary, "Reopen a rejected or expired snooze request")
      .pipe(requires("exceptions:write"))
  )
  .middleware(Authentication)
