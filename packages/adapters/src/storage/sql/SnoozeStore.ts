/**
 * Snooze requests over SQL. `status` and `until_at` (migration 0007) repeat the document's
 * fields that the list filter, the compare-and-set of transitions and the expiry worker's read use.
 */
import { type Id, SnoozeRequest, type SnoozeStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeSnooze = Rows.decoder(SnoozeRequest.SnoozeRequest)

// epoch milliseconds, not the ISO text: `toISOString` writes years past 9999 with a sign that
// PostgreSQL does not read (an `until` of 9999-12-31T23:59-23:00 is in year 10000 in UTC)
const untilAt = (r: SnoozeRequest.SnoozeRequest) => String(Date.parse(r.until))

export const make = (sql: SqlClient.SqlClient): typeof SnoozeStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  return {
    insert: (orgId, r) =>
      die(sql`INSERT INTO snooze_requests (org_id, id, created_at, status, until_at, doc)
        VALUES (${orgId}, ${r.id}, ${r.createdAt}, ${r.status}, to_timestamp(${untilAt(r)}::double precision / 1000), ${json(r)}::jsonb)`),
    list: (orgId, request, filter = {}) =>
      docPage(
        "snooze_requests",
        "created_at",
        orgId,
        request,
        decodeSnooze,
        (r) => r.createdAt,
        sql`${filter.status !== undefined ? sql`AND status = ${filter.status}` : sql``}
          ${filter.repositoryId !== undefined ? sql`AND doc->>'repositoryId' = ${filter.repositoryId}` : sql``}`
      ),
    listByRepository: (orgId, repositoryId) =>
      Effect.map(
        die(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND doc->>'repositoryId' = ${repositoryId}
          ORDER BY created_at, id`),
        (rows) => rows.map(doc(decodeSnooze))
      ),
    get: (orgId, id) => one(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeSnooze)),
    update: (orgId, r) =>
      die(
        sql`UPDATE snooze_requests SET status = ${r.status}, until_at = to_timestamp(${untilAt(r)}::double precision / 1000), doc = ${
          json(r)
        }::jsonb
        WHERE org_id = ${orgId} AND id = ${r.id}`
      ),
    // one conditional UPDATE: a concurrent writer's UPDATE waits for this row lock, then finds the
    // status moved and updates nothing (PostgreSQL re-checks the WHERE on the committed row)
    transition: (orgId, r, from) =>
      Effect.map(
        die(
          sql`UPDATE snooze_requests SET status = ${r.status}, until_at = to_timestamp(${untilAt(r)}::double precision / 1000), doc = ${
            json(r)
          }::jsonb
          WHERE org_id = ${orgId} AND id = ${r.id} AND status = ${from} RETURNING id`
        ),
        (rows) => rows.length > 0
      ),
    dueForExpiry: ({ limit, now }) =>
      Effect.map(
        die(sql`SELECT org_id, id FROM snooze_requests
          WHERE status = 'approved' AND until_at <= ${now.toISOString()}::timestamptz
          ORDER BY until_at, org_id, id LIMIT ${limit}`),
        (rows) => rows.map((row: any) => ({ orgId: row.orgId as Id.OrgId, id: row.id as Id.SnoozeRequestId }))
      )
  }
}
