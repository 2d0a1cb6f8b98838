/** The audit trail (contracts 5): who changed what, and which writes were refused. */
import { Audit } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { OrgPath, Page, PageParams } from "./Common.js"
import { Authentication, requires } from "./Security.js"

export const AuditGroup = HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("listAuditEvents", "/org/:orgId/audit-events", {
      params: OrgPath,
      query: PageParams,
      success: Page(Audit.AuditEvent)
    }).pipe(requires("audit:read"))
  )
  .middleware(Authentication)
