/** Snooze requests, the organization's exceptions (contracts 5, 6): create, review, reopen. */
import { SnoozeRequest } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const SnoozePath = { ...OrgPath, snoozeRequestId: pathId("SnoozeRequestId") }

export const SnoozeRequestsGroup = HttpApiGroup.make("snoozeRequests")
  .add(
    HttpApiEndpoint.get("listSnoozeRequests", "/org/:orgId/snooze-requests", {
      params: OrgPath,
      query: PageParams,
      success: Page(SnoozeRequest.SnoozeRequest)
    }).pipe(requires("exceptions:read")),
    HttpApiEndpoint.post("createSnoozeRequest", "/org/:orgId/snooze-requests", {
      params: OrgPath,
      payload: SnoozeRequest.SnoozeCreateRequest,
      success: SnoozeRequest.SnoozeRequest.pipe(HttpApiSchema.status(201)),
      error: Problem413
    }).pipe(requires("exceptions:write")),
    HttpApiEndpoint.post("reviewSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId/review", {
      params: SnoozePath,
      payload: SnoozeRequest.SnoozeReviewRequest,
      success: SnoozeRequest.SnoozeRequest,
      error: [Problem409, Problem413]
    }).pipe(requires("exceptions:review")),
    HttpApiEndpoint.post("reopenSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId/reopen", {
      params: SnoozePath,
      success: SnoozeRequest.SnoozeRequest,
      error: Problem409
    }).pipe(requires("exceptions:write"))
  )
  .middleware(Authentication)
