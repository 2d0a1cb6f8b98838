/** Snooze requests (exceptions) and the audit trail (contracts 5, 6). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Audit, SnoozeRequest } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { Created, OrgPath, Page, PageParams, PathId, strictPayload } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem409, Problem413, Problem429 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const SnoozePath = Schema.Struct({ orgId: PathId, snoozeRequestId: PathId })

export const SnoozeRequestsGroup = HttpApiGroup.make("snoozeRequests")
  .add(
    HttpApiEndpoint.get("listSnoozeRequests", "/org/:orgId/snooze-requests")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(SnoozeRequest.SnoozeRequest))
      .pipe(requires("exceptions:read"))
  )
  .add(
    HttpApiEndpoint.post("createSnoozeRequest", "/org/:orgId/snooze-requests")
      .setPath(OrgPath)
      .setPayload(strictPayload(SnoozeRequest.SnoozeCreateRequest))
      .addSuccess(Created(SnoozeRequest.SnoozeRequest))
      .addError(Problem413)
      .pipe(requires("exceptions:write"))
  )
  .add(
    HttpApiEndpoint.post("reviewSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId/review")
      .setPath(SnoozePath)
      .setPayload(strictPayload(SnoozeRequest.SnoozeReviewRequest))
      .addSuccess(SnoozeRequest.SnoozeRequest)
      .addError(Problem409)
      .addError(Problem413)
      .pipe(requires("exceptions:review"))
  )
  .add(
    HttpApiEndpoint.post("reopenSnoozeRequest", "/org/:orgId/snooze-requests/:snoozeRequestId/reopen")
      .setPath(SnoozePath)
      .addSuccess(SnoozeRequest.SnoozeRequest)
      .addError(Problem409)
      .pipe(requires("exceptions:write"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)

export const AuditGroup = HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("listAuditEvents", "/org/:orgId/audit-events")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(Audit.AuditEvent))
      .pipe(requires("audit:read"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
