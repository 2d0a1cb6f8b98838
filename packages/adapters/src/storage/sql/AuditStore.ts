/** The audit trail over SQL. */
import { Audit, type AuditStore } from "@image-policy/core"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeAudit = Rows.decoder(Audit.AuditEvent)

export const make = (sql: SqlClient.SqlClient): typeof AuditStore.Service => {
  const { die, doc, json, page } = Rows
  return {
    append: (orgId, e) => die(sql`INSERT INTO audit_events (org_id, id, at, doc) VALUES (${orgId}, ${e.id}, ${e.at}, ${json(e)}::jsonb)`),
    list: (orgId, request) =>
      page(
        (after, limit) =>
          sql`SELECT doc FROM audit_events WHERE org_id = ${orgId}
            ${after ? sql`AND (at, id) < (${after.sortKey}, ${after.id})` : sql``}
            ORDER BY at DESC, id DESC LIMIT ${limit}`,
        doc(decodeAudit),
        (a) => [a.at, a.id] as const,
        request
      )
  }
}
