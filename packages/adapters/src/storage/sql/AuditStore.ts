/** The audit trail over SQL; the filters' columns are indexed by migration 0007. */
import { Audit, type AuditStore } from "@image-policy/core"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeAudit = Rows.decoder(Audit.AuditEvent)

export const make = (sql: SqlClient.SqlClient): typeof AuditStore.Service => {
  const { die, doc, json, page } = Rows
  // `Audit.matches` in SQL: the actor's name is its key id, member id or system name (`Audit.actorName`)
  const where = (filter: Audit.AuditFilter) =>
    sql`${
      filter.actor !== undefined
        ? sql`AND COALESCE(doc->'actor'->>'apiKeyId', doc->'actor'->>'memberId', doc->'actor'->>'name') = ${filter.actor}`
        : sql``
    }
      ${filter.action !== undefined ? sql`AND doc->>'action' = ${filter.action}` : sql``}
      ${filter.resourceType !== undefined ? sql`AND doc->>'resourceType' = ${filter.resourceType}` : sql``}
      ${filter.resourceId !== undefined ? sql`AND doc->>'resourceId' = ${filter.resourceId}` : sql``}
      ${filter.from !== undefined ? sql`AND at >= ${filter.from}` : sql``}
      ${filter.to !== undefined ? sql`AND at < ${filter.to}` : sql``}`
  return {
    append: (orgId, e) => die(sql`INSERT INTO audit_events (org_id, id, at, doc) VALUES (${orgId}, ${e.id}, ${e.at}, ${json(e)}::jsonb)`),
    list: (orgId, request, filter = {}) =>
      page(
        (after, limit) =>
          sql`SELECT doc FROM audit_events WHERE org_id = ${orgId} ${where(filter)}
            ${after ? sql`AND (at, id) < (${after.sortKey}, ${after.id})` : sql``}
            ORDER BY at DESC, id DESC LIMIT ${limit}`,
        doc(decodeAudit),
        (a) => [a.at, a.id] as const,
        request
      )
  }
}
