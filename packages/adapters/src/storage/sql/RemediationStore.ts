/** Remediation requests over SQL. */
import { Remediation, type RemediationStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Storable from "../Storable.js"
import * as Rows from "./Rows.js"

const decodeRemediation = Rows.decoder(Remediation.RemediationRequest)

export const make = (sql: SqlClient.SqlClient): typeof RemediationStore.Service => {
  const { byCreated, die, doc, json, one, page } = Rows
  return {
    put: (orgId, request) => {
      const r = Storable.remediation(request)
      return die(sql`INSERT INTO remediation_requests
        (org_id, id, repository_id, branch_name, status, created_at, number, merged_at, doc)
        VALUES (${orgId}, ${r.id}, ${r.repositoryId}, ${r.branchName}, ${r.status}, ${r.createdAt}, ${r.number}, ${r.mergedAt},
          ${json(r)}::jsonb)
        ON CONFLICT (org_id, id) DO UPDATE SET repository_id = EXCLUDED.repository_id, branch_name = EXCLUDED.branch_name,
          status = EXCLUDED.status, created_at = EXCLUDED.created_at, number = EXCLUDED.number, merged_at = EXCLUDED.merged_at,
          doc = EXCLUDED.doc`)
    },
    get: (orgId, id) => one(sql`SELECT doc FROM remediation_requests WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRemediation)),
    latest: (orgId, repositoryId, branchName, options) =>
      one(
        sql`SELECT doc FROM remediation_requests WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
          AND branch_name = ${branchName} ${options?.excludeFailed ? sql`AND status <> 'failed'` : sql``}
          ORDER BY created_at DESC, id DESC LIMIT 1`,
        doc(decodeRemediation)
      ),
    findByNumber: (orgId, repositoryId, number) =>
      one(
        sql`SELECT doc FROM remediation_requests WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
          AND number = ${number} AND status <> 'failed' ORDER BY created_at DESC, id DESC LIMIT 1`,
        doc(decodeRemediation)
      ),
    close: (orgId, repositoryId, { at, branchNames }) => {
      if (branchNames !== undefined && branchNames.length === 0) return Effect.succeed(0)
      return Effect.map(
        die(sql`UPDATE remediation_requests
          SET status = 'closed', doc = doc || jsonb_build_object('status', 'closed', 'updatedAt', ${at}::text)
          WHERE org_id = ${orgId} AND repository_id = ${repositoryId} AND status NOT IN ('closed', 'merged')
          ${branchNames !== undefined ? sql`AND ${sql.in("branch_name", branchNames)}` : sql``} RETURNING id`),
        (rows) => rows.length
      )
    },
    list: (orgId, repositoryId, request) =>
      page(
        (after, limit) =>
          sql`SELECT doc FROM remediation_requests WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
            ${after ? sql`AND (created_at, id) < (${after.sortKey}, ${after.id})` : sql``}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        doc(decodeRemediation),
        byCreated,
        request
      )
  }
}
