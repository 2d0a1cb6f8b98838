/** Snooze requests over SQL. */
import { SnoozeRequest, type SnoozeStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeSnooze = Rows.decoder(SnoozeRequest.SnoozeRequest)

export const make = (sql: SqlClient.SqlClient): typeof SnoozeStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  return {
    insert: (orgId, r) =>
      die(sql`INSERT INTO snooze_requests (org_id, id, created_at, doc)
        VALUES (${orgId}, ${r.id}, ${r.createdAt}, ${json(r)}::jsonb)`),
    list: (orgId, request) => docPage("snooze_requests", "created_at", orgId, request, decodeSnooze, (r) => r.createdAt),
    listByRepository: (orgId, repositoryId) =>
      Effect.map(
        die(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND doc->>'repositoryId' = ${repositoryId}
          ORDER BY created_at, id`),
        (rows) => rows.map(doc(decodeSnooze))
      ),
    get: (orgId, id) => one(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeSnooze)),
    update: (orgId, r) => die(sql`UPDATE snooze_requests SET doc = ${json(r)}::jsonb WHERE org_id = ${orgId} AND id = ${r.id}`)
  }
}
