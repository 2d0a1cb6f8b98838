/**
 * The one migration set of the SQL store, for PGlite and PostgreSQL alike, run by the generic
 * `effect/sql` Migrator (no shell, no pg_dump: STACK.md trap 5). Migrations are recorded in
 * `image_policy_migrations` (the same table and columns as the Effect 3 build wrote, so a store it
 * migrated is up to date here), so running them again is a no-op.
 *
 * Entities are stored as JSONB documents decoded with the core's schemas on read, beside the
 * columns that queries filter, order or lock on. Every table starts with `org_id`, and every key
 * that holds organization data includes it. Sort columns use the "C" collation so keyset order is
 * byte order, the same order the memory store uses.
 */
import * as Effect from "effect/Effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/**
 * Runs `;`-terminated statements one by one, in order (a `;` at the end of a line ends one).
 * Both clients send every statement through the extended protocol, which takes one statement per
 * call; the Migrator runs a migration inside one transaction, so the statements stay atomic.
 */
export const statements = (sql: SqlClient.SqlClient, text: string): Effect.Effect<void, SqlError> =>
  Effect.forEach(
    text.split(/;[ \t]*$/m).map((s) => s.trim()).filter((s) => s.length > 0),
    (statement) => sql.unsafe(statement),
    { discard: true }
  )

const init = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE TABLE organizations (
      id text PRIMARY KEY,
      doc jsonb NOT NULL
    );
    CREATE TABLE teams (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      name text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX teams_order ON teams (org_id, name, id);
    CREATE TABLE routines (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      team_id text,
      name text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX routines_order ON routines (org_id, name, id);
    CREATE TABLE vcs_connections (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      external_account_name text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      settings jsonb,
      PRIMARY KEY (org_id, id)
    );
    CREATE TABLE repositories (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      vcs_connection_id text NOT NULL,
      external_repo_id text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id),
      UNIQUE (org_id, vcs_connection_id, external_repo_id)
    );
    CREATE INDEX repositories_order ON repositories (org_id, created_at, id);
    CREATE TABLE policy_groups (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      name text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX policy_groups_order ON policy_groups (org_id, name, id);
    CREATE TABLE draft_mappings (
      org_id text NOT NULL REFERENCES organizations (id),
      group_id text NOT NULL,
      phase_id text NOT NULL,
      key text NOT NULL,
      id text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, phase_id, key)
    );
    CREATE INDEX draft_mappings_order ON draft_mappings (org_id, group_id, phase_id, created_at, id);
    CREATE TABLE published_mappings (
      org_id text NOT NULL REFERENCES organizations (id),
      group_id text NOT NULL,
      phase_id text NOT NULL,
      key text NOT NULL,
      position integer NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, group_id, phase_id, key)
    );
    CREATE TABLE repository_assignments (
      org_id text NOT NULL REFERENCES organizations (id),
      repository_id text NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, repository_id)
    );
    CREATE TABLE api_keys (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      secret_hash text NOT NULL UNIQUE,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX api_keys_order ON api_keys (org_id, created_at, id);
    CREATE TABLE webhooks (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX webhooks_order ON webhooks (org_id, created_at, id);
    CREATE TABLE snooze_requests (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX snooze_requests_order ON snooze_requests (org_id, created_at, id);
    CREATE TABLE audit_events (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX audit_events_order ON audit_events (org_id, at DESC, id DESC);
    CREATE TABLE outbox_events (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE TABLE deliveries (
      org_id text NOT NULL REFERENCES organizations (id),
      event_id text NOT NULL,
      webhook_id text NOT NULL,
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_status_code integer,
      updated_at text COLLATE "C" NOT NULL,
      lease_owner text,
      lease_until timestamptz,
      PRIMARY KEY (org_id, event_id, webhook_id)
    );
    CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX deliveries_order ON deliveries (org_id, webhook_id, updated_at, event_id);
    CREATE TABLE delivery_attempts (
      org_id text NOT NULL REFERENCES organizations (id),
      event_id text NOT NULL,
      webhook_id text NOT NULL,
      attempt integer NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, event_id, webhook_id, attempt)
    );
  `
  )
})

/**
 * Branch scans, their findings and remediation requests (issue 7), and the poll interval of
 * external phases.
 *
 * - `scans`: one row per scan; `lease_worker`/`lease_until` are the claim lease (like
 *   `deliveries`). A partial unique index allows one `queued`/`running` scan per branch, so a
 *   racing enqueue finds the pending one instead of adding a second.
 * - `scan_findings`: the branch's current findings (those of its newest succeeded scan), replaced
 *   whole when a scan succeeds; keyed in the findings order (file, line, column, seq). `seq`
 *   tells apart findings at one position. Text holds no NUL (see `Storable.ts`).
 * - `remediation_requests`: the request document (its changes as JSON) beside the columns lists
 *   order and filter on.
 * - External phases live inside the policy group's document, so `pollIntervalSeconds` is a field
 *   of `doc->'phases'[i]->'external'`: every stored external phase without one gets 60
 *   (`PolicyGroup.defaultPollIntervalSeconds`), and the document is read and written whole.
 */
const scans = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE TABLE scans (
      org_id text NOT NULL REFERENCES organizations (id),
      id text COLLATE "C" NOT NULL,
      repository_id text NOT NULL,
      branch_name text NOT NULL,
      trigger text NOT NULL,
      status text NOT NULL,
      failure text,
      commit_sha text,
      file_count integer NOT NULL DEFAULT 0,
      finding_count integer NOT NULL DEFAULT 0,
      queued_at text COLLATE "C" NOT NULL,
      started_at text,
      finished_at text,
      lease_worker text,
      lease_until timestamptz,
      PRIMARY KEY (org_id, id)
    );
    CREATE UNIQUE INDEX scans_pending ON scans (org_id, repository_id, branch_name)
      WHERE status IN ('queued', 'running');
    CREATE INDEX scans_claim ON scans (queued_at, id) WHERE status IN ('queued', 'running');
    CREATE INDEX scans_latest ON scans (org_id, repository_id, branch_name, queued_at DESC, id DESC);
    CREATE INDEX scans_order ON scans (org_id, repository_id, queued_at DESC, id DESC);
    CREATE INDEX scans_routine ON scans (org_id, repository_id, branch_name, queued_at DESC) WHERE trigger = 'routine';
    CREATE TABLE scan_findings (
      org_id text NOT NULL REFERENCES organizations (id),
      repository_id text NOT NULL,
      branch_name text NOT NULL,
      file text COLLATE "C" NOT NULL,
      line integer NOT NULL,
      col integer NOT NULL,
      seq integer NOT NULL,
      scan_id text NOT NULL,
      kind text NOT NULL,
      reference text NOT NULL,
      image text,
      normalized text,
      platform text,
      stage text,
      unresolved jsonb,
      PRIMARY KEY (org_id, repository_id, branch_name, file, line, col, seq)
    );
    CREATE TABLE remediation_requests (
      org_id text NOT NULL REFERENCES organizations (id),
      id text COLLATE "C" NOT NULL,
      repository_id text NOT NULL,
      branch_name text NOT NULL,
      status text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id)
    );
    CREATE INDEX remediation_requests_order ON remediation_requests (org_id, repository_id, created_at DESC, id DESC);
    CREATE INDEX remediation_requests_latest
      ON remediation_requests (org_id, repository_id, branch_name, created_at DESC, id DESC);
    UPDATE policy_groups SET doc = jsonb_set(doc, '{phases}', (
      SELECT jsonb_agg(
        CASE WHEN jsonb_typeof(p->'external') = 'object' AND NOT (p->'external' ? 'pollIntervalSeconds')
          THEN jsonb_set(p, '{external,pollIntervalSeconds}', '60'::jsonb)
          ELSE p END
        ORDER BY ord)
      FROM jsonb_array_elements(doc->'phases') WITH ORDINALITY AS x(p, ord)))
    WHERE EXISTS (
      SELECT 1 FROM jsonb_array_elements(doc->'phases') AS x(p)
      WHERE jsonb_typeof(p->'external') = 'object' AND NOT (p->'external' ? 'pollIntervalSeconds'));
  `
  )
})

/**
 * Claims per scan (`Scan.maxScanAttempts`): a scan whose every run hangs past its lease or crashes
 * its worker is abandoned instead of claimed forever. Scans stored before this count 0 attempts.
 */
const scanAttempts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(sql, `ALTER TABLE scans ADD COLUMN attempts integer NOT NULL DEFAULT 0;`)
})

/** Remediation reads a repository's snooze requests (not the organization's) through this index. */
const snoozesByRepository = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(sql, `CREATE INDEX snooze_requests_repository ON snooze_requests (org_id, (doc->>'repositoryId'), created_at, id);`)
})

/**
 * Issue 15 (snooze expiry, audit filters, the organization's failing deliveries):
 * - `snooze_requests.status` and `until_at` repeat the document's status and `until` (as an
 *   instant), so the list filters on status, transitions compare-and-set on it, and the expiry
 *   worker finds approved requests past their `until` through a partial index instead of reading
 *   every document. An `until` past year 9999 (`+010000-…`, which PostgreSQL does not read) is
 *   stored as `infinity`; the stores write `until_at` from the instant itself.
 * - audit rows are filtered by actor (key id or system name), action and resource, newest first.
 * - an organization's failing deliveries (dead, or pending after a failed attempt), newest first
 *   in byte order (the memory store's order).
 */
const adminOps = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    ALTER TABLE snooze_requests ADD COLUMN status text;
    ALTER TABLE snooze_requests ADD COLUMN until_at timestamptz;
    UPDATE snooze_requests SET status = doc->>'status', until_at = CASE
      WHEN doc->>'until' LIKE '+%' THEN 'infinity'::timestamptz ELSE (doc->>'until')::timestamptz END;
    ALTER TABLE snooze_requests ALTER COLUMN status SET NOT NULL;
    ALTER TABLE snooze_requests ALTER COLUMN until_at SET NOT NULL;
    CREATE INDEX snooze_requests_status ON snooze_requests (org_id, status, created_at, id);
    CREATE INDEX snooze_requests_expiry ON snooze_requests (until_at) WHERE status = 'approved';
    CREATE INDEX audit_events_actor
      ON audit_events (org_id, (COALESCE(doc->'actor'->>'apiKeyId', doc->'actor'->>'name')), at DESC, id DESC);
    CREATE INDEX audit_events_action ON audit_events (org_id, (doc->>'action'), at DESC, id DESC);
    CREATE INDEX audit_events_resource
      ON audit_events (org_id, (doc->>'resourceType'), (doc->>'resourceId'), at DESC, id DESC);
    CREATE INDEX deliveries_failing
      ON deliveries (org_id, updated_at DESC, event_id COLLATE "C" DESC, webhook_id COLLATE "C" DESC)
      WHERE status = 'dead' OR (status = 'pending' AND attempts > 0);
  `
  )
})

/**
 * Compliance reporting (issue 15): one snapshot of the organization's report per UTC day, written
 * by the snapshot worker of any host (the first one wins: `ON CONFLICT DO NOTHING` on the key), so
 * the history chart reads rows instead of rescanning.
 */
const complianceSnapshots = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE TABLE compliance_snapshots (
      org_id text NOT NULL REFERENCES organizations (id),
      day text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, day)
    );
  `
  )
})

/**
 * Organization administration (issue 15): a team, routine or connection is deleted only while no
 * tracked repository uses it, and the check reads repositories by their team and routine.
 */
const organizationAdmin = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE INDEX repositories_team ON repositories (org_id, (doc->>'assignedTeamId'));
    CREATE INDEX repositories_routine ON repositories (org_id, (doc->>'assignedRoutineId'));
  `
  )
})

/**
 * Members and custom roles (issue 15). Emails and role names are unique per organization ignoring
 * case: the key columns hold the core's `Member.emailKey` / `Role.nameKey`, computed in one place
 * for every store. The role indexes serve the "is this role still held" count before a deletion.
 */
const membersAndRoles = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE TABLE roles (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      name text COLLATE "C" NOT NULL,
      name_key text NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id),
      UNIQUE (org_id, name_key)
    );
    CREATE INDEX roles_order ON roles (org_id, name, id);
    CREATE TABLE members (
      org_id text NOT NULL REFERENCES organizations (id),
      id text NOT NULL,
      email_key text NOT NULL,
      created_at text COLLATE "C" NOT NULL,
      doc jsonb NOT NULL,
      PRIMARY KEY (org_id, id),
      UNIQUE (org_id, email_key)
    );
    CREATE INDEX members_order ON members (org_id, created_at, id);
    CREATE INDEX members_role ON members (org_id, (doc->>'role'));
    CREATE INDEX api_keys_role ON api_keys (org_id, (doc->>'role'));
  `
  )
})

/**
 * Several hosts on one database (issue 16): the routine tick, each external phase's poll, the
 * snooze expiry pass and the compliance snapshot pass are claimed here, one row per key, so one
 * host does each due run (`ScheduleStore`). Times are epoch milliseconds.
 */
const scheduledRuns = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE TABLE scheduled_runs (
      key text PRIMARY KEY,
      done_due_at bigint,
      done_claimed_at bigint,
      holder text,
      held_due_at bigint,
      claimed_at bigint,
      lease_until bigint
    );
  `
  )
})

/**
 * Browser sessions (issue 17): members' password hashes and their sessions, both removed with their
 * member (ON DELETE CASCADE). A session is found by the SHA-256 of the cookie's token; a sign-in by
 * the member's email key across organizations. Times are ISO 8601 text (COLLATE "C" compares them in
 * time order). The audit actor index now also names members (`Audit.actorName`).
 */
const sessions = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    CREATE TABLE member_credentials (
      org_id text NOT NULL,
      member_id text NOT NULL,
      password_hash text NOT NULL,
      updated_at text NOT NULL,
      PRIMARY KEY (org_id, member_id),
      FOREIGN KEY (org_id, member_id) REFERENCES members (org_id, id) ON DELETE CASCADE
    );
    CREATE TABLE sessions (
      org_id text NOT NULL,
      id text NOT NULL,
      member_id text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      created_at text COLLATE "C" NOT NULL,
      expires_at text COLLATE "C" NOT NULL,
      last_seen_at text COLLATE "C" NOT NULL,
      PRIMARY KEY (org_id, id),
      FOREIGN KEY (org_id, member_id) REFERENCES members (org_id, id) ON DELETE CASCADE
    );
    CREATE INDEX sessions_member ON sessions (org_id, member_id);
    CREATE INDEX members_email ON members (email_key);
    DROP INDEX audit_events_actor;
    CREATE INDEX audit_events_actor
      ON audit_events (org_id, (COALESCE(doc->'actor'->>'apiKeyId', doc->'actor'->>'memberId', doc->'actor'->>'name')), at DESC, id DESC);
  `
  )
})

/**
 * Remediation requests learn merges (provider webhooks): `number` and `merged_at` as columns,
 * copied from the document, so a merge finds the repository's request by its provider number and
 * the compliance history counts requests opened and merged per day over a range with an index
 * rather than reading every document. Stored documents get `mergedAt: null` (none was merged yet).
 */
const remediationMerges = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* statements(
    sql,
    `
    ALTER TABLE remediation_requests ADD COLUMN number integer;
    ALTER TABLE remediation_requests ADD COLUMN merged_at text COLLATE "C";
    UPDATE remediation_requests SET number = (doc->>'number')::integer,
      doc = CASE WHEN doc ? 'mergedAt' THEN doc ELSE doc || '{"mergedAt": null}'::jsonb END;
    UPDATE remediation_requests SET merged_at = doc->>'mergedAt' WHERE doc->>'mergedAt' IS NOT NULL;
    CREATE INDEX remediation_requests_number ON remediation_requests (org_id, repository_id, number) WHERE number IS NOT NULL;
    CREATE INDEX remediation_requests_created ON remediation_requests (org_id, created_at);
    CREATE INDEX remediation_requests_merged ON remediation_requests (org_id, merged_at) WHERE merged_at IS NOT NULL;
  `
  )
})

export const migrations = {
  "0001_init": init,
  "0002_scans": scans,
  "0003_scan_attempts": scanAttempts,
  "0004_snoozes_by_repository": snoozesByRepository,
  "0006_organization_admin": organizationAdmin,
  "0007_admin_ops": adminOps,
  "0009_members_and_roles": membersAndRoles,
  "0010_compliance_snapshots": complianceSnapshots,
  "0012_scheduled_runs": scheduledRuns,
  "0013_sessions": sessions,
  "0014_remediation_merges": remediationMerges
}

export const table = "image_policy_migrations"

/** Runs every pending migration; answers the ones it ran (none when up to date). */
export const run = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table })
