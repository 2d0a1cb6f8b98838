/** The audit trail (contracts 5): who changed what, and which writes were refused; filtered, and exported as NDJSON. */
import { Audit } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams } from "./Common.js"
import { Authentication, requires } from "./Security.js"

export const AuditListQuery = Schema.Struct({ ...PageParams.fields, ...Audit.AuditFilter.fields })

const filters = "`actor` (an API key id or a system actor's name), `action`, `resourceType`, `resourceId`, " +
  "`from` (inclusive) and `to` (exclusive) narrow the rows."

export const AuditGroup = HttpApiGroup.make("audit")
  .annotate(OpenApi.Description, "The organization's audit trail: filter and export")
  .add(
    HttpApiEndpoint.get("listAuditEvents", "/org/:orgId/audit-events", {
      params: OrgPath,
      query: AuditListQuery,
      success: Page(Audit.AuditEvent)
    })
      .annotate(OpenApi.Summary, "List audit events")
      .annotate(OpenApi.Description, `Newest first. ${filters} Pass \`nextCursor\` back with the same filters.`)
      .pipe(requires("audit:read")),
    HttpApiEndpoint.get("exportAuditEvents", "/org/:orgId/audit-events/export", {
      params: OrgPath,
      query: Audit.AuditFilter,
      success: HttpApiSchema.StreamNdjson({ schema: Audit.AuditEvent })
    })
      .annotate(OpenApi.Summary, "Export audit events as NDJSON")
      .annotate(
        OpenApi.Description,
        `Every matching row, newest first, one JSON object per line (\`application/x-ndjson\`), streamed from the store page by page. ${filters}`
      )
      .pipe(requires("audit:read"))
  )
  .middleware(Authentication)
