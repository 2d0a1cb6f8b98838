/**
 * The SQL store: one implementation of the core's `Store` port over `effect/sql`, used on the
 * embedded PGlite and on PostgreSQL. SQL errors are defects (the port's contract): a database that
 * is gone answers 500 with a correlation id, never a user error. Rows are decoded with the core's
 * schemas; a row that does not decode is a defect too.
 */
import type { ClaimedScan, Id, Page, PageRequest, RoutineTarget, ScanOutcome, StoreService } from "@image-policy/core"
import {
  ApiKey,
  Assignment,
  Audit,
  Cursor,
  Organization,
  Outbox,
  PolicyGroup,
  Remediation,
  Repository,
  Routine,
  Scan,
  Scanner,
  SnoozeRequest,
  Store,
  Team,
  VcsConnection,
  Webhook
} from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import { SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"
import * as Storable from "../Storable.js"

// documents are bound as JSON text and cast in SQL (`${json(x)}::jsonb`): the client refuses a
// plain object as a parameter
const json = (value: unknown) => JSON.stringify(value)
const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString()

const decoder = <A, I>(schema: Schema.Codec<A, I>) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (doc: unknown): A => decode(typeof doc === "string" ? JSON.parse(doc) : doc)
}

const DraftDoc = Schema.Struct({ ...PolicyGroup.PublishedMapping.fields, activeFrom: Schema.optionalKey(Schema.String) })
const decodeDraft = decoder(DraftDoc)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const die = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.orDie(effect)

  /** Keyset pagination on (`sortColumn`, `idColumn`); fetches one row more to know if more exist. */
  const page = <A>(
    rows: (after: { sortKey: string; id: string } | undefined, limit: number) => Effect.Effect<ReadonlyArray<any>, unknown>,
    decode: (row: any) => A,
    key: (a: A) => readonly [string, string],
    request: PageRequest
  ): Effect.Effect<Page<A>> =>
    Effect.gen(function*() {
      const after = request.cursor === undefined
        ? undefined
        : Result.getOrThrowWith(Cursor.decodeCursor(request.cursor), (e) => e)
      const fetched = (yield* die(rows(after && { sortKey: String(after.sortKey), id: after.id }, request.limit + 1)))
        .map(decode)
      const items = fetched.slice(0, request.limit)
      const last = items[items.length - 1]
      return {
        items,
        nextCursor: fetched.length > request.limit && last !== undefined
          ? Cursor.encodeCursor({ sortKey: key(last)[0], id: key(last)[1] })
          : null
      }
    })

  const one = <A>(rows: Effect.Effect<ReadonlyArray<any>, unknown>, decode: (row: any) => A) =>
    Effect.map(die(rows), (r) => (r.length > 0 ? Option.some(decode(r[0])) : Option.none()))

  /**
   * One page of an org's documents from `table`, in keyset order on (`sortColumn`, id). The table
   * and column names are constants of this file, never user input.
   */
  const docPage = <A extends { readonly id: string }>(
    table: string,
    sortColumn: "name" | "created_at" | "external_account_name",
    orgId: string,
    request: PageRequest,
    decode: (d: unknown) => A,
    sortKey: (a: A) => string,
    filter: Statement.Fragment = sql``
  ): Effect.Effect<Page<A>> =>
    page(
      (after, limit) =>
        sql`SELECT doc FROM ${sql(table)} WHERE org_id = ${orgId} ${filter}
          ${after ? sql`AND (${sql(sortColumn)}, id) > (${after.sortKey}, ${after.id})` : sql``}
          ORDER BY ${sql(sortColumn)}, id LIMIT ${limit}`,
      doc(decode),
      (a) => [sortKey(a), a.id] as const,
      request
    )

  /** Read-modify-write of one document under its row lock; a missing row is left alone. */
  const updateDoc = <A>(table: string, orgId: string, id: string, decode: (d: unknown) => A, change: (a: A) => A) =>
    Effect.gen(function*() {
      const current = yield* one(
        sql`SELECT doc FROM ${sql(table)} WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`,
        doc(decode)
      )
      if (Option.isNone(current)) return
      yield* die(sql`UPDATE ${sql(table)} SET doc = ${json(change(current.value))}::jsonb WHERE org_id = ${orgId} AND id = ${id}`)
    })

  const decodeOrg = decoder(Organization.Organization)
  const decodeTeam = decoder(Team.Team)
  const decodeRoutine = decoder(Routine.Routine)
  const decodeConnection = decoder(VcsConnection.VcsConnection)
  const decodeRepository = decoder(Repository.Repository)
  const decodeGroup = decoder(PolicyGroup.PolicyGroup)
  const decodePublished = decoder(PolicyGroup.PublishedMapping)
  const decodeAssignments = decoder(Schema.Array(Assignment.RepositoryAssignment))
  const decodeKey = decoder(ApiKey.ApiKey)
  const decodeWebhook = decoder(Webhook.WebhookDestination)
  const decodeSnooze = decoder(SnoozeRequest.SnoozeRequest)
  const decodeAudit = decoder(Audit.AuditEvent)
  const decodeEvent = decoder(Outbox.OutboxEvent)
  const decodeAttempt = decoder(Outbox.DeliveryAttempt)
  const doc = <A>(decode: (d: unknown) => A) => (row: any): A => decode(row.doc)
  const byCreated = (a: { readonly createdAt: string; readonly id: string }) => [a.createdAt, a.id] as const
  const toDelivery = (row: any): Outbox.Delivery => ({
    eventId: row.eventId,
    webhookId: row.webhookId,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: row.nextAttemptAt === null ? null : iso(row.nextAttemptAt),
    lastStatusCode: row.lastStatusCode === null ? null : Number(row.lastStatusCode),
    updatedAt: row.updatedAt
  })

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    // a failing BEGIN or COMMIT is a defect like every other SQL failure. COMMIT fails when a
    // statement of the transaction failed, even if the body caught that failure (PostgreSQL has
    // aborted the transaction): statements that may conflict use ON CONFLICT instead of catching
    sql.withTransaction(effect).pipe(
      Effect.catchIf((e): e is SqlError => e instanceof SqlError, (e) => Effect.die(e))
    ) as Effect.Effect<A, E, R>

  const decodeScan = Schema.decodeUnknownSync(Scan.BranchScan)
  const decodeFinding = Schema.decodeUnknownSync(Scanner.Finding)
  const decodeRemediation = decoder(Remediation.RemediationRequest)
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
      const after = request.cursor === undefined
        ? undefined
        : Result.getOrThrowWith(Cursor.decodeCursor(request.cursor), (e) => e)
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
        ...abandoned.map((row: any) => ({ orgId: row.orgId as string, repositoryId: row.repositoryId as string, branchName: row.branchName as string, status: "failed" as const })),
        ...claimed.map((c) => ({ orgId: c.orgId as string, repositoryId: c.scan.repositoryId as string, branchName: c.scan.branchName, status: "running" as const }))
      ]
      const key = (b: typeof branches[number]) => `${b.orgId}|${b.repositoryId}|${b.branchName}`
      branches.sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
      for (const b of branches) yield* setBranchStatus(b.orgId, b.repositoryId, b.branchName, b.status)
      return claimed.sort((a, b) =>
        a.scan.queuedAt < b.scan.queuedAt ? -1 : a.scan.queuedAt > b.scan.queuedAt ? 1 : a.scan.id < b.scan.id ? -1 : 1
      )
    })

  const store: StoreService = {
    transaction,
    organizations: {
      get: (orgId) => one(sql`SELECT doc FROM organizations WHERE id = ${orgId}`, doc(decodeOrg)),
      insert: (org) =>
        die(sql`INSERT INTO organizations (id, doc) VALUES (${org.id}, ${json(org)}::jsonb)
          ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`)
    },
    teams: {
      list: (orgId, request) =>
        docPage("teams", "name", orgId, request, decodeTeam, (t) => t.name),
      get: (orgId, id) => one(sql`SELECT doc FROM teams WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeTeam)),
      insert: (orgId, team) =>
        die(sql`INSERT INTO teams (org_id, id, name, doc) VALUES (${orgId}, ${team.id}, ${team.name}, ${json(team)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET name = EXCLUDED.name, doc = EXCLUDED.doc`)
    },
    routines: {
      list: (orgId, request, filter) =>
        docPage("routines", "name", orgId, request, decodeRoutine, (r) => r.name,
          filter?.teamId !== undefined ? sql`AND team_id = ${filter.teamId}` : sql``),
      get: (orgId, id) => one(sql`SELECT doc FROM routines WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRoutine)),
      insert: (orgId, r) =>
        die(sql`INSERT INTO routines (org_id, id, team_id, name, doc)
          VALUES (${orgId}, ${r.id}, ${r.teamId}, ${r.name}, ${json(r)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET team_id = EXCLUDED.team_id, name = EXCLUDED.name, doc = EXCLUDED.doc`)
    },
    vcsConnections: {
      list: (orgId, request) =>
        docPage("vcs_connections", "external_account_name", orgId, request, decodeConnection,
          (c) => c.externalAccountName),
      get: (orgId, id) =>
        one(sql`SELECT doc FROM vcs_connections WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeConnection)),
      insert: (orgId, c, settings) =>
        die(sql`INSERT INTO vcs_connections (org_id, id, external_account_name, doc, settings)
          VALUES (${orgId}, ${c.id}, ${c.externalAccountName}, ${json(c)}::jsonb, ${json(settings ?? null)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET external_account_name = EXCLUDED.external_account_name,
            doc = EXCLUDED.doc, settings = EXCLUDED.settings`),
      settings: (orgId, id) =>
        Effect.map(
          one(sql`SELECT settings FROM vcs_connections WHERE org_id = ${orgId} AND id = ${id}`, (r: any) =>
            typeof r.settings === "string" ? JSON.parse(r.settings) : r.settings),
          Option.filter((s) => s !== null)
        ),
      setStatus: (orgId, id, status) =>
        die(sql`UPDATE vcs_connections SET doc = jsonb_set(doc, '{status}', ${json(status)}::jsonb)
          WHERE org_id = ${orgId} AND id = ${id}`),
      setHealth: (orgId, id, status) =>
        die(sql`UPDATE vcs_connections SET doc = jsonb_set(doc, '{status}', ${json(status)}::jsonb)
          WHERE org_id = ${orgId} AND id = ${id} AND doc->>'status' NOT IN (${status}, 'inactive')`),
      // ids are random and never reused; two rows with one id would be a bug, answered as unknown
      locate: (id) =>
        Effect.map(
          die(sql`SELECT org_id, doc, settings FROM vcs_connections WHERE id = ${id} LIMIT 2`),
          (rows: ReadonlyArray<any>) => {
            const row = rows.length === 1 ? rows[0] : undefined
            return row === undefined ? Option.none() : Option.some({
              orgId: row.orgId as Id.OrgId,
              connection: decodeConnection(row.doc),
              settings: typeof row.settings === "string" ? JSON.parse(row.settings) : row.settings
            })
          }
        )
    },
    repositories: {
      list: (orgId, request, filter) =>
        docPage("repositories", "created_at", orgId, request, decodeRepository, (r) => r.createdAt,
          filter?.repositoryId !== undefined ? sql`AND id = ${filter.repositoryId}` : sql``),
      get: (orgId, id) =>
        one(sql`SELECT doc FROM repositories WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRepository)),
      findByExternalId: (orgId, connectionId, externalRepoId) =>
        one(
          sql`SELECT doc FROM repositories WHERE org_id = ${orgId} AND vcs_connection_id = ${connectionId}
            AND external_repo_id = ${externalRepoId}`,
          doc(decodeRepository)
        ),
      trackedExternalIds: (orgId, connectionId) =>
        Effect.map(
          die(sql<{ externalRepoId: string }>`SELECT external_repo_id FROM repositories
            WHERE org_id = ${orgId} AND vcs_connection_id = ${connectionId}`),
          (rows) => new Set(rows.map((r) => r.externalRepoId))
        ),
      insert: (orgId, repo) =>
        Effect.gen(function*() {
          // ON CONFLICT DO NOTHING keeps a PostgreSQL transaction usable after a racing insert
          const inserted = yield* die(sql`INSERT INTO repositories
            (org_id, id, vcs_connection_id, external_repo_id, created_at, doc)
            VALUES (${orgId}, ${repo.id}, ${repo.vcsConnectionId}, ${repo.externalRepoId}, ${repo.createdAt}, ${json(repo)}::jsonb)
            ON CONFLICT (org_id, vcs_connection_id, external_repo_id) DO NOTHING RETURNING id`)
          if (inserted.length > 0) return
          const rows = yield* die(sql<{ id: string }>`SELECT id FROM repositories WHERE org_id = ${orgId}
            AND vcs_connection_id = ${repo.vcsConnectionId} AND external_repo_id = ${repo.externalRepoId}`)
          return yield* Effect.fail(
            new Repository.RepositoryAlreadyTracked({
              externalRepoId: repo.externalRepoId,
              repositoryId: (rows[0]?.id ?? repo.id) as Id.RepositoryId
            })
          )
        }),
      lock: (orgId, id) => Effect.asVoid(die(sql`SELECT id FROM repositories WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`))
    },
    policyGroups: {
      list: (orgId, request) =>
        docPage("policy_groups", "name", orgId, request, decodeGroup, (g) => g.name),
      all: (orgId) =>
        Effect.map(die(sql`SELECT doc FROM policy_groups WHERE org_id = ${orgId} ORDER BY name, id`), (rows) =>
          rows.map(doc(decodeGroup))),
      get: (orgId, id) => one(sql`SELECT doc FROM policy_groups WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeGroup)),
      insert: (orgId, g) =>
        die(sql`INSERT INTO policy_groups (org_id, id, name, doc) VALUES (${orgId}, ${g.id}, ${g.name}, ${json(g)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET name = EXCLUDED.name, doc = EXCLUDED.doc`),
      lock: (orgId, id) =>
        Effect.asVoid(die(sql`SELECT id FROM policy_groups WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`)),
      setExternalState: (orgId, groupId, phaseId, patch) =>
        updateDoc("policy_groups", orgId, groupId, decodeGroup, (group) => ({
          ...group,
          phases: group.phases.map((p) => p.id === phaseId && p.external ? { ...p, external: { ...p.external, ...patch } } : p)
        })),
      externalPhases: () =>
        Effect.map(
          die(sql`SELECT org_id, doc FROM policy_groups
            WHERE doc->'phases' @> ${json([{ sourceType: "external" }])}::jsonb ORDER BY org_id, name, id`),
          (rows) =>
            rows.flatMap((row: any) => {
              const group = decodeGroup(row.doc)
              return PolicyGroup.externalPhases(group).map((p) => ({
                orgId: row.orgId as Id.OrgId,
                policyGroupId: group.id,
                phaseId: p.id,
                external: p.external
              }))
            })
        )
    },
    drafts: {
      listByPhase: (orgId, groupId, phaseId, request) =>
        page(
          (after, limit) =>
            sql`SELECT doc FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId} AND phase_id = ${phaseId}
              ${after ? sql`AND (created_at, id) > (${after.sortKey}, ${after.id})` : sql``}
              ORDER BY created_at, id LIMIT ${limit}`,
          doc(decodeDraft),
          byCreated,
          request
        ),
      listByGroup: (orgId, groupId) =>
        Effect.map(
          die(sql`SELECT doc FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId} ORDER BY created_at, id`),
          (rows) => rows.map(doc(decodeDraft))
        ),
      findByKey: (orgId, groupId, phaseId, key) =>
        one(
          sql`SELECT doc FROM draft_mappings WHERE org_id = ${orgId} AND group_id = ${groupId}
            AND phase_id = ${phaseId} AND key = ${key}`,
          doc(decodeDraft)
        ),
      put: (orgId, groupId, m) =>
        die(sql`INSERT INTO draft_mappings (org_id, group_id, phase_id, key, id, created_at, doc)
          VALUES (${orgId}, ${groupId}, ${m.phaseId}, ${m.key}, ${m.id}, ${m.createdAt}, ${json(m)}::jsonb)
          ON CONFLICT (org_id, phase_id, key) DO UPDATE SET id = EXCLUDED.id, created_at = EXCLUDED.created_at,
            doc = EXCLUDED.doc`)
    },
    published: {
      listByGroup: (orgId, groupId) =>
        Effect.map(
          die(sql`SELECT doc FROM published_mappings WHERE org_id = ${orgId} AND group_id = ${groupId}
            ORDER BY phase_id, position`),
          (rows) => rows.map(doc(decodePublished))
        ),
      listByGroups: (orgId, groupIds) => {
        if (groupIds.length === 0) return Effect.succeed(new Map())
        return Effect.map(
          die(sql`SELECT group_id, doc FROM published_mappings WHERE org_id = ${orgId} AND ${sql.in("group_id", groupIds)}
            ORDER BY group_id, phase_id, position`),
          (rows: ReadonlyArray<any>) => {
            const byGroup = new Map<Id.PolicyGroupId, Array<PolicyGroup.PublishedMapping>>(groupIds.map((id) => [id, []]))
            for (const row of rows) byGroup.get(row.groupId)?.push(doc(decodePublished)(row))
            return byGroup
          }
        )
      },
      replace: (orgId, groupId, phaseIds, mappings) =>
        Effect.gen(function*() {
          if (phaseIds.length === 0) return
          yield* die(sql`DELETE FROM published_mappings WHERE org_id = ${orgId} AND group_id = ${groupId}
            AND ${sql.in("phase_id", phaseIds)}`)
          const rows = mappings.filter((m) => phaseIds.includes(m.phaseId)).map((m, position) => ({
            orgId,
            groupId,
            phaseId: m.phaseId,
            key: m.key,
            position,
            doc: json(m)
          }))
          // one multi-row INSERT per chunk instead of a statement per mapping
          for (let i = 0; i < rows.length; i += 1000) {
            const chunk = rows.slice(i, i + 1000)
            yield* die(sql`INSERT INTO published_mappings (org_id, group_id, phase_id, key, position, doc)
              SELECT * FROM jsonb_to_recordset(${json(chunk.map((r) => ({
              org_id: r.orgId,
              group_id: r.groupId,
              phase_id: r.phaseId,
              key: r.key,
              position: r.position,
              doc: JSON.parse(r.doc)
            })))}::jsonb)
              AS x(org_id text, group_id text, phase_id text, key text, position integer, doc jsonb)`)
          }
        })
    },
    assignments: {
      get: (orgId, repositoryId) =>
        Effect.map(
          one(sql`SELECT doc FROM repository_assignments WHERE org_id = ${orgId} AND repository_id = ${repositoryId}`,
            doc(decodeAssignments)),
          Option.getOrElse(() => [])
        ),
      replace: (orgId, repositoryId, assignments) =>
        die(sql`INSERT INTO repository_assignments (org_id, repository_id, doc)
          VALUES (${orgId}, ${repositoryId}, ${json(assignments)}::jsonb)
          ON CONFLICT (org_id, repository_id) DO UPDATE SET doc = EXCLUDED.doc`)
    },
    apiKeys: {
      insert: (orgId, key) =>
        die(sql`INSERT INTO api_keys (org_id, id, secret_hash, created_at, doc)
          VALUES (${orgId}, ${key.id}, ${key.secretHash}, ${key.createdAt}, ${json(key)}::jsonb)`),
      list: (orgId, request) =>
        docPage("api_keys", "created_at", orgId, request, decodeKey, (k) => k.createdAt),
      get: (orgId, id) => one(sql`SELECT doc FROM api_keys WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeKey)),
      // the key and its organization in one round trip (authentication reads both on every request)
      findBySecretHash: (hash) =>
        one(
          sql`SELECT k.org_id, k.doc, o.doc AS org_doc FROM api_keys k
            JOIN organizations o ON o.id = k.org_id WHERE k.secret_hash = ${hash}`,
          (row: any) => ({ orgId: row.orgId as Id.OrgId, key: decodeKey(row.doc), organization: decodeOrg(row.orgDoc) })
        ),
      update: (orgId, key) =>
        die(sql`UPDATE api_keys SET doc = ${json(key)}::jsonb WHERE org_id = ${orgId} AND id = ${key.id}`),
      // one statement, one field: a concurrent revocation's revokedAt is never overwritten
      touch: (orgId, id, at) =>
        die(sql`UPDATE api_keys SET doc = jsonb_set(doc, '{lastUsedAt}', to_jsonb(${at}::text))
          WHERE org_id = ${orgId} AND id = ${id}
            AND (doc->>'lastUsedAt' IS NULL OR doc->>'lastUsedAt' < ${at})`)
    },
    webhooks: {
      insert: (orgId, d) =>
        die(sql`INSERT INTO webhooks (org_id, id, created_at, doc) VALUES (${orgId}, ${d.id}, ${d.createdAt}, ${json(d)}::jsonb)`),
      list: (orgId, request) =>
        docPage("webhooks", "created_at", orgId, request, decodeWebhook, (w) => w.createdAt),
      all: (orgId) =>
        Effect.map(die(sql`SELECT doc FROM webhooks WHERE org_id = ${orgId} ORDER BY created_at, id`), (rows) =>
          rows.map(doc(decodeWebhook))),
      get: (orgId, id) => one(sql`SELECT doc FROM webhooks WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeWebhook)),
      update: (orgId, d) =>
        die(sql`UPDATE webhooks SET doc = ${json(d)}::jsonb WHERE org_id = ${orgId} AND id = ${d.id}`),
      delete: (orgId, id) =>
        Effect.gen(function*() {
          yield* die(sql`DELETE FROM deliveries WHERE org_id = ${orgId} AND webhook_id = ${id}`)
          yield* die(sql`DELETE FROM webhooks WHERE org_id = ${orgId} AND id = ${id}`)
        })
    },
    snoozeRequests: {
      insert: (orgId, r) =>
        die(sql`INSERT INTO snooze_requests (org_id, id, created_at, doc)
          VALUES (${orgId}, ${r.id}, ${r.createdAt}, ${json(r)}::jsonb)`),
      list: (orgId, request) =>
        docPage("snooze_requests", "created_at", orgId, request, decodeSnooze, (r) => r.createdAt),
      listByRepository: (orgId, repositoryId) =>
        Effect.map(
          die(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND doc->>'repositoryId' = ${repositoryId}
            ORDER BY created_at, id`),
          (rows) => rows.map(doc(decodeSnooze))
        ),
      get: (orgId, id) => one(sql`SELECT doc FROM snooze_requests WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeSnooze)),
      update: (orgId, r) =>
        die(sql`UPDATE snooze_requests SET doc = ${json(r)}::jsonb WHERE org_id = ${orgId} AND id = ${r.id}`)
    },
    scans: {
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
      claim: (options) => transaction(claimScans(options)),
      finish: (orgId, id, worker, outcome) => transaction(finish(orgId, id, worker, outcome)),
      findings: findingsPage,
      allFindings: (orgId, repositoryId, branchName) =>
        Effect.map(
          die(sql`SELECT ${findingColumns} FROM scan_findings
            WHERE org_id = ${orgId} AND repository_id = ${repositoryId} AND branch_name = ${branchName}
            ORDER BY file, line, col, seq`),
          (rows) => rows.map((row) => toPositioned(row).finding)
        ),
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
    },
    remediations: {
      put: (orgId, request) => {
        const r = Storable.remediation(request)
        return die(sql`INSERT INTO remediation_requests (org_id, id, repository_id, branch_name, status, created_at, doc)
          VALUES (${orgId}, ${r.id}, ${r.repositoryId}, ${r.branchName}, ${r.status}, ${r.createdAt}, ${json(r)}::jsonb)
          ON CONFLICT (org_id, id) DO UPDATE SET repository_id = EXCLUDED.repository_id, branch_name = EXCLUDED.branch_name,
            status = EXCLUDED.status, created_at = EXCLUDED.created_at, doc = EXCLUDED.doc`)
      },
      get: (orgId, id) =>
        one(sql`SELECT doc FROM remediation_requests WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeRemediation)),
      latest: (orgId, repositoryId, branchName, options) =>
        one(
          sql`SELECT doc FROM remediation_requests WHERE org_id = ${orgId} AND repository_id = ${repositoryId}
            AND branch_name = ${branchName} ${options?.excludeFailed ? sql`AND status <> 'failed'` : sql``}
            ORDER BY created_at DESC, id DESC LIMIT 1`,
          doc(decodeRemediation)
        ),
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
    },
    audit: {
      append: (orgId, e) =>
        die(sql`INSERT INTO audit_events (org_id, id, at, doc) VALUES (${orgId}, ${e.id}, ${e.at}, ${json(e)}::jsonb)`),
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
    },
    outbox: {
      append: (orgId, events) =>
        Effect.gen(function*() {
          for (const { destinations, event } of events) {
            yield* die(sql`INSERT INTO outbox_events (org_id, id, doc) VALUES (${orgId}, ${event.id}, ${json(event)}::jsonb)`)
            for (const webhookId of destinations) {
              yield* die(sql`INSERT INTO deliveries (org_id, event_id, webhook_id, status, next_attempt_at, updated_at)
                VALUES (${orgId}, ${event.id}, ${webhookId}, 'pending', ${event.time}::timestamptz, ${event.time})`)
            }
          }
        }),
      getEvent: (orgId, id) => one(sql`SELECT doc FROM outbox_events WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeEvent)),
      claim: ({ leaseMs, limit, now, worker }) =>
        Effect.map(
          die(sql`UPDATE deliveries d SET lease_owner = ${worker}, lease_until = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
            FROM (
              SELECT org_id, event_id, webhook_id FROM deliveries
              WHERE status = 'pending' AND next_attempt_at <= ${now.toISOString()}::timestamptz
                AND (lease_until IS NULL OR lease_until < ${now.toISOString()}::timestamptz)
              ORDER BY next_attempt_at LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            ) c, outbox_events e
            WHERE d.org_id = c.org_id AND d.event_id = c.event_id AND d.webhook_id = c.webhook_id
              AND e.org_id = d.org_id AND e.id = d.event_id
            RETURNING d.org_id, d.event_id, d.webhook_id, d.status, d.attempts, d.next_attempt_at, d.last_status_code,
              d.updated_at, e.doc`),
          (rows) =>
            rows
              .map((row: any) => ({ orgId: row.orgId as string, delivery: toDelivery(row), event: decodeEvent(row.doc) }))
              .sort((a, b) => Date.parse(a.delivery.nextAttemptAt!) - Date.parse(b.delivery.nextAttemptAt!))
        ),
      // one statement, atomic on its own: the attempt row and the delivery's new state commit together
      // without a transaction of their own (one round trip per attempt instead of four); a delivery
      // that is gone (its webhook deleted meanwhile) records no attempt, as on the memory store
      recordAttempt: (orgId, attempt, next) =>
        Effect.asVoid(die(sql`WITH updated AS (
            UPDATE deliveries SET status = ${next.status},
              next_attempt_at = ${next.nextAttemptAt}::timestamptz, attempts = attempts + 1,
              last_status_code = ${attempt.statusCode}, updated_at = ${attempt.at}, lease_owner = NULL, lease_until = NULL
            WHERE org_id = ${orgId} AND event_id = ${attempt.eventId} AND webhook_id = ${attempt.webhookId}
            RETURNING 1
          )
          INSERT INTO delivery_attempts (org_id, event_id, webhook_id, attempt, doc)
          SELECT ${orgId}, ${attempt.eventId}, ${attempt.webhookId}, ${attempt.attempt}, ${json(attempt)}::jsonb
          WHERE EXISTS (SELECT 1 FROM updated)
          ON CONFLICT DO NOTHING`)),
      deliveries: (orgId, webhookId, request) =>
        page(
          (after, limit) =>
            sql`SELECT * FROM deliveries WHERE org_id = ${orgId} AND webhook_id = ${webhookId}
              ${after ? sql`AND (updated_at, event_id) > (${after.sortKey}, ${after.id})` : sql``}
              ORDER BY updated_at, event_id LIMIT ${limit}`,
          toDelivery,
          (d) => [d.updatedAt, d.eventId] as const,
          request
        ),
      attempts: (orgId, eventId, webhookId) =>
        Effect.map(
          die(sql`SELECT doc FROM delivery_attempts WHERE org_id = ${orgId} AND event_id = ${eventId}
            AND webhook_id = ${webhookId} ORDER BY attempt`),
          (rows) => rows.map(doc(decodeAttempt))
        ),
      requeue: (orgId, eventId, webhookId, now) =>
        Effect.map(
          die(sql`UPDATE deliveries SET status = 'pending', next_attempt_at = ${now.toISOString()}::timestamptz,
              updated_at = ${now.toISOString()}, lease_owner = NULL, lease_until = NULL
            WHERE org_id = ${orgId} AND event_id = ${eventId} AND webhook_id = ${webhookId} AND status = 'dead'
            RETURNING event_id`),
          (rows) => rows.length > 0
        )
    }
  }
  return store
})

export const layer: Layer.Layer<Store, never, SqlClient.SqlClient> = Layer.effect(Store, make)
