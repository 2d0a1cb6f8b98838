/**
 * The one migration set of the SQL store, for PGlite and PostgreSQL alike, run by the generic
 * `@effect/sql` Migrator (no shell, no pg_dump: STACK.md trap 5). Migrations are recorded in
 * `image_policy_migrations`, so running them again is a no-op.
 *
 * Entities are stored as JSONB documents decoded with the core's schemas on read, beside the
 * columns that queries filter, order or lock on. Every table starts with `org_id`, and every key
 * that holds organization data includes it. Sort columns use the "C" collation so keyset order is
 * byte order, the same order the memory store uses.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

const init = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
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
  `)
})

export const migrations = { "0001_init": init }

export const table = "image_policy_migrations"

/** Runs every pending migration; answers the ones it ran (none when up to date). */
export const run = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table })
