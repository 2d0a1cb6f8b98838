/**
 * What the compliance report reads, and its daily snapshots, over SQL. Findings are counted in the
 * database per (bucket, image, platform): the rows that reach JS are a few per distinct image,
 * not one per finding (issue 15: 1,000 repositories x 3 branches x 20 findings within 200 ms).
 */
import { Assignment, type Id, type Remediation, Reports, type ReportStore, Repository, SnoozeRequest } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeRepository = Rows.decoder(Repository.Repository)
const decodeAssignments = Rows.decoder(Schema.Array(Assignment.RepositoryAssignment))
const decodeSnooze = Rows.decoder(SnoozeRequest.SnoozeRequest)
const decodeSnapshot = Rows.decoder(Reports.ComplianceSnapshot)

/** The UTC day after `day` (`YYYY-MM-DD`): the exclusive end of a range of ISO 8601 times. */
const dayAfter = (day: string) => Reports.dayOf(new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000))

export const make = (sql: SqlClient.SqlClient): typeof ReportStore.Service => {
  const { die, doc, json } = Rows
  const { transaction } = Rows.make(sql)
  /**
   * The branches as a relation: one array parameter per column, however many branches there are.
   * Arrays rather than one JSON document: the planner then knows how many rows there are (and
   * hashes the findings instead of probing them one branch at a time).
   */
  const branchRows = (branches: ReadonlyArray<Reports.BucketedBranch>) =>
    sql`unnest(${branches.map((b) => b.repositoryId)}::text[], ${branches.map((b) => b.branchName)}::text[],
      ${branches.map((b) => b.bucket)}::integer[]) WITH ORDINALITY AS b(repository_id, branch_name, bucket, ord)`

  return {
    repositories: (orgId) =>
      Effect.map(
        die(sql`SELECT r.doc, a.doc AS assignments FROM repositories r
          LEFT JOIN repository_assignments a ON a.org_id = r.org_id AND a.repository_id = r.id
          WHERE r.org_id = ${orgId} ORDER BY r.created_at, r.id`),
        (rows) =>
          rows.map((row: any) => ({
            repository: decodeRepository(row.doc),
            assignments: row.assignments === null ? [] : decodeAssignments(row.assignments)
          }))
      ),
    findingCounts: (orgId, branches) =>
      branches.length === 0 ? Effect.succeed([]) : Effect.map(
        transaction(Effect.andThen(
          // the aggregation hashes every finding of the branches: in memory, not spilled to disk
          die(sql`SET LOCAL work_mem = '64MB'`),
          // each branch's scan time is looked up once (the branch's findings are its newest succeeded
          // scan's), then the findings are counted per bucket in one pass
          die(sql`WITH b AS MATERIALIZED (
              SELECT b.repository_id, b.branch_name, b.bucket, l.finished_at
              FROM ${branchRows(branches)}
              LEFT JOIN LATERAL (SELECT s.finished_at FROM scans s WHERE s.org_id = ${orgId} AND s.repository_id = b.repository_id
                AND s.branch_name = b.branch_name AND s.status = 'succeeded' ORDER BY s.queued_at DESC, s.id DESC LIMIT 1) l ON true
            )
            SELECT b.bucket, f.normalized, f.platform,
              CASE WHEN jsonb_typeof(f.unresolved) = 'array' THEN jsonb_array_length(f.unresolved) > 0 ELSE false END AS unresolved,
              count(*)::integer AS count, min(b.finished_at) AS oldest_scan_at
            FROM b JOIN scan_findings f ON f.org_id = ${orgId} AND f.repository_id = b.repository_id AND f.branch_name = b.branch_name
            GROUP BY 1, 2, 3, 4`)
        )),
        (rows) =>
          rows.map((row: any): Reports.FindingCount => ({
            bucket: Number(row.bucket),
            normalized: row.normalized ?? null,
            platform: row.platform ?? null,
            unresolved: row.unresolved === true,
            count: Number(row.count),
            oldestScanAt: row.oldestScanAt ?? null
          }))
      ),
    branchStates: (orgId, branches) =>
      branches.length === 0 ? Effect.succeed([]) : Effect.map(
        die(sql`SELECT b.repository_id, b.branch_name,
            EXISTS (SELECT 1 FROM scans s WHERE s.org_id = ${orgId} AND s.repository_id = b.repository_id
              AND s.branch_name = b.branch_name AND s.status = 'succeeded') AS scanned,
            (SELECT count(*) FROM remediation_requests r WHERE r.org_id = ${orgId} AND r.repository_id = b.repository_id
              AND r.branch_name = b.branch_name AND r.status = 'open')::integer AS open_remediation_requests
          FROM ${branchRows(branches)} ORDER BY b.ord`),
        (rows) =>
          rows.map((row: any): Reports.BranchState => ({
            repositoryId: row.repositoryId,
            branchName: row.branchName,
            scanned: row.scanned === true,
            openRemediationRequests: Number(row.openRemediationRequests)
          }))
      ),
    liveSnoozes: (orgId) =>
      Effect.map(
        die(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND doc->>'status' IN ('pending', 'approved')
          ORDER BY created_at, id`),
        (rows) => rows.map(doc(decodeSnooze))
      ),
    organizationIds: () =>
      Effect.map(die(sql`SELECT id FROM organizations ORDER BY id`), (rows) => rows.map((row: any) => row.id as Id.OrgId)),
    putSnapshot: (orgId, snapshot) =>
      Effect.map(
        die(sql`INSERT INTO compliance_snapshots (org_id, day, doc) VALUES (${orgId}, ${snapshot.day}, ${json(snapshot)}::jsonb)
          ON CONFLICT (org_id, day) DO NOTHING RETURNING day`),
        (rows) => rows.length > 0
      ),
    remediationActivity: (orgId, from, to) =>
      Effect.map(
        // the day is the text's first 10 characters (ISO 8601 UTC); the day after `to` bounds the range
        die(sql<{ status: Remediation.RemediationStatus; createdAt: string; mergedAt: string | null }>`
          SELECT status, created_at, merged_at FROM remediation_requests WHERE org_id = ${orgId}
            AND created_at >= ${from} AND created_at < ${dayAfter(to)}
          UNION ALL
          SELECT status, created_at, merged_at FROM remediation_requests WHERE org_id = ${orgId}
            AND merged_at >= ${from} AND merged_at < ${dayAfter(to)}
            AND NOT (created_at >= ${from} AND created_at < ${dayAfter(to)})`),
        (rows) => rows.map((r) => ({ status: r.status, createdAt: r.createdAt, mergedAt: r.mergedAt }))
      ),
    snapshots: (orgId, from, to) =>
      Effect.map(
        die(sql`SELECT doc FROM compliance_snapshots WHERE org_id = ${orgId} AND day >= ${from} AND day <= ${to} ORDER BY day`),
        (rows) => rows.map(doc(decodeSnapshot))
      )
  }
}
