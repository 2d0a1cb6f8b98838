/** Branch scans and each branch's findings over SQL. */
import {
  type ClaimedScan,
  Cursor,
  type Id,
  type Page,
  type PageRequest,
  type RoutineTarget,
  Scan,
  Scanner,
  type ScanOutcome,
  type ScanStore
} from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Storable from "../Storable.js"
import * as Rows from "./Rows.js"

const decodeScan = Schema.decodeUnknownSync(Scan.BranchScan)
const decodeFinding = Schema.decodeUnknownSync(Scanner.Finding)

export const make = (sql: SqlClient.SqlClient): typeof ScanStore.Service => {
  const { die, json, one, page } = Rows
  const { transaction } = Rows.make(sql)
  const scanColumns = sql`id, repository_id, branch_name, trigger, status, failure, commit_sha, file_count, finding_count,
    attempts, queued_at, started_at, finished_at`
  const toScan = (row: any): Scan.BranchScan =>
    decodeScan({
      id: row.id,
      repositoryId: row.repositoryId,
      branchName: row.branchName,
      trigger: row.trigger,
      status: row.status,
      failure: row.failure,
      commitSha: row.commitSha,
      fileCount: Number(row.fileCount),
      findingCount: Number(row.findingCount),
      attempts: Number(row.attempts),
      queuedAt: row.queuedAt,
      startedAt: row.startedAt,
      finishedAt: row.finishedAt
    })
  const findingColumns = sql`file, line, col, seq, kind, reference, image, normalized, platform, stage, unresolved`
  const toPositioned = (row: any): Storable.PositionedFinding => {
    const unresolved = typeof row.unresolved === "string" ? JSON.parse(row.unresolved) : row.unresolved
    return {
      seq: Number(row.seq),
      finding: decodeFinding({
        kind: row.kind,
        file: row.file,
        line: Number(row.line),
        column: Number(row.col),
        reference: row.reference,
        ...(row.image !== null ? { image: row.image } : {}),
        ...(row.normalized !== null ? { normalized: row.normalized } : {}),
        ...(row.platform !== null ? { platform: row.platform } : {}),
        ...(row.stage !== null ? { stage: row.stage } : {}),
        ...(unresolved !== null && unresolved !== undefined ? { unresolved } : {})
      })
    }
  }

  /**
   * Sets a repository branch's `scan.status` in one statement (no read-modify-write, so it never
   * undoes a concurrent change of another branch); a missing repository or branch is left alone.
   */
  const setBranchStatus = (orgId: string, repositoryId: string, branchName: string, status: Scan.ScanStatus) =>
    die(sql`UPDATE repositories SET doc = jsonb_set(doc, '{branches}', COALESCE((
        SELECT jsonb_agg(CASE WHEN b->>'branchName' = ${branchName}
          THEN jsonb_set(b, '{scan,status}', to_jsonb(${status}::text)) ELSE b END ORDER BY ord)
        FROM jsonb_array_elements(doc->'branches') WITH ORDINALITY AS x(b, ord)), '[]'::jsonb))
      WHERE org_id = ${orgId} AND id = ${repositoryId}
        AND doc->'branches' @> ${json([{ branchName }])}::jsonb`)

  const pendingScan = (orgId: string, scan: Scan.BranchScan) =>
    one(
      sql`SELECT ${scanColumns} FROM scans WHERE org_id = ${orgId} AND repository_id = ${scan.repositoryId}
        AND branch_name = ${scan.branchName} AND status IN ('queued', 'running')`,
      toScan
    )

  const enqueue = (orgId: string, scan: Scan.BranchScan, attempt = 0): Effect.Effect<Scan.BranchScan> =>
    Effect.gen(function*() {
      // the partial unique index `scans_pending` holds at most one queued/running scan per branch:
      // a racing enqueue waits for the other's commit and then finds its scan
      const inserted = yield* die(sql`INSERT INTO scans (org_id, id, repository_id, branch_name, trigger, status, failure,
          commit_sha, file_count, finding_count, attempts, queued_at, started_at, finished_at)
        VALUES (${orgId}, ${scan.id}, ${scan.repositoryId}, ${scan.branchName}, ${scan.trigger}, 'queued', ${scan.failure},
          ${scan.commitSha}, ${scan.fileCount}, ${scan.findingCount}, 0, ${scan.queuedAt}, ${scan.startedAt}, ${scan.finishedAt})
        ON CONFLICT (org_id, repository_id, branch_name) WHERE status IN ('queued', 'running') DO NOTHING
        RETURNING ${scanColumns}`)
      if (inserted.length > 0) {
        yield* setBranchStatus(orgId, scan.repositoryId, scan.branchName, "queued")
        return toScan(inserted[0])
      }
      const pending = yield* pendingScan(orgId, scan)
      if (Option.isSome(pending)) return pending.value
      // the pending scan finished between the two statements: queue this one after all
      if (attempt >= 3) return yield* Effect.die(new Error("scans.enqueue: the branch's pending scan kept changing"))
      return yield* enqueue(orgId, scan, attempt + 1)
    })

  const findingsPage = (
    orgId: string,
    repositoryId: string,
    branchName: string,
    request: PageRequest
  ): Effect.Effect<Page<Scanner.Finding>> =>
    Effect.gen(function*() {
      const after = Rows.after(request)
      const position = after === undefined ? undefined : Storable.parseCursorId(after.id)
      const rows = yield* die(sql`SELECT ${findingColumns} FROM scan_findings
        WHERE org_id = ${orgId} AND repository_id = ${repositoryId} AND branch_name = ${branchName}
        ${
        after && position
          ? sql`AND (file, line, col, seq) > (${String(after.sortKey)}, ${position[0]}, ${position[1]}, ${position[2]})`
          : sql``
      }
        ORDER BY file, line, col, seq LIMIT ${request.limit + 1}`)
      const fetched = rows.map(toPositioned)
      const items = fetched.slice(0, request.limit)
      const last = items[items.length - 1]
      return {
        items: items.map((p) => p.finding),
        nextCursor: fetched.length > request.limit && last !== undefined
          ? Cursor.encodeCursor({ sortKey: Storable.cursorKey(last)[0], id: Storable.cursorKey(last)[1] })
          : null
      }
    })

  const replaceFindings = (
    orgId: string,
    scanId: string,
    repositoryId: string,
    branchName: string,
    findings: ReadonlyArray<Storable.PositionedFinding>
  ) =>
    Effect.gen(function*() {
      yield* die(sql`DELETE FROM scan_findings WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
        AND branch_name = ${branchName}`)
      // one multi-row INSERT per chunk instead of a statement per finding
      for (let i = 0; i < findings.length; i += 1000) {
        const chunk = findings.slice(i, i + 1000).map(({ finding: f, seq }) => ({
          file: f.file,
          line: f.line,
          col: f.column,
          seq,
          kind: f.kind,
          reference: f.reference,
          image: f.image ?? null,
          normalized: f.normalized ?? null,
          platform: f.platform ?? null,
          stage: f.stage ?? null,
          unresolved: f.unresolved ?? null
        }))
        yield* die(sql`INSERT INTO scan_findings (org_id, repository_id, branch_name, scan_id, file, line, col, seq, kind,
            reference, image, normalized, platform, stage, unresolved)
          SELECT ${orgId}, ${repositoryId}, ${branchName}, ${scanId}, x.file, x.line, x.col, x.seq, x.kind, x.reference,
            x.image, x.normalized, x.platform, x.stage, x.unresolved
          FROM jsonb_to_recordset(${json(chunk)}::jsonb) AS x(file text, line integer, col integer, seq integer, kind text,
            reference text, image text, normalized text, platform text, stage text, unresolved jsonb)`)
      }
    })

  /** The columns of an ended scan (`Scan.endedFields`), as one SET list. */
  const endedColumns = (end: ReturnType<typeof Scan.endedFields>) =>
    sql`status = ${end.status}, failure = ${end.failure}, commit_sha = ${end.commitSha}, file_count = ${end.fileCount},
      finding_count = ${end.findingCount}, finished_at = ${end.finishedAt}`

  const finish = (orgId: string, id: string, worker: string, outcome: ScanOutcome): Effect.Effect<boolean> =>
    Effect.gen(function*() {
      const findings = outcome.status === "succeeded" ? Storable.positioned(outcome.findings) : []
      // the lease is lost once another worker claimed the scan (or it ended): then nothing is written
      const end = Scan.endedFields(outcome)
      const ended = yield* die(sql`UPDATE scans SET ${endedColumns(end)}, lease_worker = NULL, lease_until = NULL
        WHERE org_id = ${orgId} AND id = ${id} AND status = 'running' AND lease_worker = ${worker}
        RETURNING repository_id, branch_name`)
      const row = ended[0] as { repositoryId: string; branchName: string } | undefined
      if (row === undefined) return false
      // a failed scan keeps the branch's previous findings
      if (outcome.status === "succeeded") yield* replaceFindings(orgId, id, row.repositoryId, row.branchName, findings)
      yield* setBranchStatus(orgId, row.repositoryId, row.branchName, outcome.status)
      return true
    })

  const claimScans = ({ leaseMs, limit, now, worker }: {
    readonly worker: string
    readonly now: Date
    readonly leaseMs: number
    readonly limit: number
  }): Effect.Effect<ReadonlyArray<ClaimedScan>> =>
    Effect.gen(function*() {
      const at = now.toISOString()
      const expired = sql`status = 'running' AND (lease_until IS NULL OR lease_until < ${at}::timestamptz)`
      // every attempt hung past its lease or crashed its worker: give up on the scan instead of
      // handing it out again (a failed scan keeps the branch's previous findings)
      const abandon = Scan.endedFields({ status: "failed", failure: "abandoned", at })
      const abandoned = yield* die(sql`UPDATE scans s SET ${endedColumns(abandon)}, lease_worker = NULL, lease_until = NULL
        FROM (
          SELECT org_id, id FROM scans
          WHERE ${expired} AND attempts >= ${Scan.maxScanAttempts}
          FOR UPDATE SKIP LOCKED
        ) c
        WHERE s.org_id = c.org_id AND s.id = c.id
        RETURNING s.org_id, s.repository_id, s.branch_name`)
      // a scan starts no earlier than it was queued (Scan.startedAt; the same rule in SQL)
      const rows = yield* die(sql`UPDATE scans s SET status = 'running', started_at = COALESCE(s.started_at, GREATEST(${at}, s.queued_at)),
          attempts = s.attempts + 1,
          lease_worker = ${worker}, lease_until = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
        FROM (
          SELECT org_id, id FROM scans
          WHERE status = 'queued' OR (${expired} AND attempts < ${Scan.maxScanAttempts})
          ORDER BY queued_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) c
        WHERE s.org_id = c.org_id AND s.id = c.id
        RETURNING s.org_id, s.id, s.repository_id, s.branch_name, s.trigger, s.status, s.failure, s.commit_sha,
          s.file_count, s.finding_count, s.attempts, s.queued_at, s.started_at, s.finished_at`)
      const claimed = rows.map((row: any): ClaimedScan => ({ orgId: row.orgId as Id.OrgId, scan: toScan(row) }))
      // repository rows in one order (abandoned and claimed alike), so two claimers never wait on
      // each other's repositories
      const branches = [
        ...abandoned.map((row: any) => ({
          orgId: row.orgId as string,
          repositoryId: row.repositoryId as string,
          branchName: row.branchName as string,
          status: "failed" as const
        })),
        ...claimed.map((c) => ({
          orgId: c.orgId as string,
          repositoryId: c.scan.repositoryId as string,
          branchName: c.scan.branchName,
          status: "running" as const
        }))
      ]
      const key = (b: typeof branches[number]) => `${b.orgId}|${b.repositoryId}|${b.branchName}`
      branches.sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
      for (const b of branches) yield* setBranchStatus(b.orgId, b.repositoryId, b.branchName, b.status)
      return claimed.sort((a, b) =>
        a.scan.queuedAt < b.scan.queuedAt ? -1 : a.scan.queuedAt > b.scan.queuedAt ? 1 : a.scan.id < b.scan.id ? -1 : 1
      )
    })

  return {
    enqueue: (orgId, scan) => transaction(enqueue(orgId, scan)),
    get: (orgId, id) => one(sql`SELECT ${scanColumns} FROM scans WHERE org_id = ${orgId} AND id = ${id}`, toScan),
    latest: (orgId, repositoryId, branchName) =>
      one(
        sql`SELECT ${scanColumns} FROM scans WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
          AND branch_name = ${branchName} ORDER BY queued_at DESC, id DESC LIMIT 1`,
        toScan
      ),
    latestSucceeded: (orgId, repositoryId, branchName) =>
      one(
        sql`SELECT ${scanColumns} FROM scans WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
          AND branch_name = ${branchName} AND status = 'succeeded' ORDER BY queued_at DESC, id DESC LIMIT 1`,
        toScan
      ),
    list: (orgId, repositoryId, request, filter) =>
      page(
        (after, limit) =>
          sql`SELECT ${scanColumns} FROM scans WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
            ${filter?.branchName !== undefined ? sql`AND branch_name = ${filter.branchName}` : sql``}
            ${after ? sql`AND (queued_at, id) < (${after.sortKey}, ${after.id})` : sql``}
            ORDER BY queued_at DESC, id DESC LIMIT ${limit}`,
        toScan,
        (s) => [s.queuedAt, s.id] as const,
        request
      ),
    queueDepth: () =>
      Effect.map(
        die(sql`SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'running') AS running
          FROM scans WHERE status IN ('queued', 'running')`),
        (rows: ReadonlyArray<any>) => ({ queued: Number(rows[0]?.queued ?? 0), running: Number(rows[0]?.running ?? 0) })
      ),
    claim: (options) => transaction(claimScans(options)),
    renew: ({ leaseMs, now, scans, worker }) => {
      if (scans.length === 0) return Effect.succeed([])
      const keys = scans.map((k) => ({ org_id: k.orgId, id: k.id }))
      return Effect.map(
        die(sql`UPDATE scans s SET lease_until = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
          FROM jsonb_to_recordset(${json(keys)}::jsonb) AS k(org_id text, id text)
          WHERE s.org_id = k.org_id AND s.id = k.id AND s.status = 'running' AND s.lease_worker = ${worker}
          RETURNING s.org_id, s.id`),
        (rows) => rows.map((row: any) => ({ orgId: row.orgId as string, id: row.id as string }))
      )
    },
    release: (owners) =>
      Effect.map(
        die(sql`WITH freed AS (
            UPDATE scans SET lease_worker = NULL, lease_until = NULL
            WHERE status = 'running' AND ${Rows.leaseOwners(sql, "lease_worker", owners)}
            RETURNING 1
          )
          SELECT count(*) AS freed FROM freed`),
        (rows: ReadonlyArray<any>) => Number(rows[0]?.freed ?? 0)
      ),
    finish: (orgId, id, worker, outcome) => transaction(finish(orgId, id, worker, outcome)),
    findings: findingsPage,
    allFindings: (orgId, repositoryId, branchName) =>
      Effect.map(
        die(sql`SELECT ${findingColumns} FROM scan_findings
          WHERE org_id = ${orgId} AND repository_id = ${repositoryId} AND branch_name = ${branchName}
          ORDER BY file, line, col, seq`),
        (rows) => rows.map((row) => toPositioned(row).finding)
      ),
    remove: (orgId, repositoryId, branchNames) =>
      Effect.gen(function*() {
        if (branchNames !== undefined && branchNames.length === 0) return
        const only = branchNames !== undefined ? sql`AND ${sql.in("branch_name", branchNames)}` : sql``
        yield* die(sql`DELETE FROM scans WHERE org_id = ${orgId} AND repository_id = ${repositoryId} ${only}`)
        yield* die(sql`DELETE FROM scan_findings WHERE org_id = ${orgId} AND repository_id = ${repositoryId} ${only}`)
      }),
    routineTargets: () =>
      Effect.map(
        die(sql`SELECT r.org_id, r.id AS repository_id, x.b->>'branchName' AS branch_name,
            (ro.doc->>'intervalDays')::integer AS interval_days, r.created_at AS tracked_at,
            (SELECT s.queued_at FROM scans s WHERE s.org_id = r.org_id AND s.repository_id = r.id
              AND s.branch_name = x.b->>'branchName' AND s.trigger = 'routine'
              ORDER BY s.queued_at DESC LIMIT 1) AS last_routine_scan_at
          FROM repositories r
          JOIN routines ro ON ro.org_id = r.org_id AND ro.id = r.doc->>'assignedRoutineId'
          CROSS JOIN LATERAL jsonb_array_elements(r.doc->'branches') WITH ORDINALITY AS x(b, ord)
          WHERE (ro.doc->>'active')::boolean
          ORDER BY r.org_id, r.created_at, r.id, x.ord`),
        (rows) =>
          rows.map((row: any): RoutineTarget => ({
            orgId: row.orgId,
            repositoryId: row.repositoryId,
            branchName: row.branchName,
            intervalDays: Number(row.intervalDays),
            trackedAt: row.trackedAt,
            lastRoutineScanAt: row.lastRoutineScanAt ?? null
          }))
      )
  }
}
