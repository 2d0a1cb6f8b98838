import { assert, describe, it } from "@effect/vitest"
import { AccessStore, Id, OrganizationStore, PolicyStore, RemediationStore, ReportStore, ScanStore, SnoozeStore } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as Migrations from "../src/storage/sql/Migrations.js"
import * as PgliteClient from "../src/storage/sql/PgliteClient.js"
import * as SqlStore from "../src/storage/sql/SqlStore.js"
import * as StoreConfig from "../src/storage/StoreConfig.js"
import { freshPglite } from "./support/pglite.js"

const tables = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ tableName: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`
)

describe("migrations", () => {
  it("run up from empty, and a second run is a no-op", async () => {
    const pglite = await freshPglite()
    try {
      const program = Effect.gen(function*() {
        const first = yield* Migrations.run
        const after = yield* tables
        const second = yield* Migrations.run
        const again = yield* tables
        return { first, second, after: after.map((t) => t.tableName), again: again.map((t) => t.tableName) }
      })
      const result = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(result.first.map(([id, name]) => `${id}_${name}`), [
        "1_init",
        "2_scans",
        "3_scan_attempts",
        "4_snoozes_by_repository",
        "6_organization_admin",
        "7_admin_ops",
        "9_members_and_roles",
        "10_compliance_snapshots",
        "12_scheduled_runs",
        "13_sessions",
        "14_remediation_merges"
      ])
      assert.deepStrictEqual(result.second, [])
      assert.deepStrictEqual(result.again, result.after)
      assert.includeMembers(result.after, [
        "organizations",
        "draft_mappings",
        "deliveries",
        "image_policy_migrations",
        "scans",
        "scan_findings",
        "remediation_requests",
        "members",
        "roles"
      ])
    } finally {
      await pglite.close()
    }
  })

  it("0002 gives external phases stored before it the default poll interval (60 s) and leaves the rest alone", async () => {
    const pglite = await freshPglite()
    try {
      const orgId = Id.make("organization", new Uint8Array(16).fill(1))
      const groupId = Id.make("policyGroup", new Uint8Array(16).fill(2))
      const [internal, external] = [3, 4].map((n) => Id.make("phase", new Uint8Array(16).fill(n)))
      const source = {
        vcsConnectionId: Id.make("vcsConnection", new Uint8Array(16).fill(5)),
        repositoryFullName: "acme/policy",
        branch: "main",
        path: "service-mappings.json",
        lastSyncedAt: null,
        lastError: null,
        lastVersion: null
      }
      // the documents as the store wrote them before 0002
      const org = { id: orgId, name: "Old", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 }
      const group = {
        id: groupId,
        name: "Base",
        applyToAllRepos: false,
        notificationRouting: { kind: "inherit" },
        cooldownSeconds: null,
        phases: [
          { id: internal, name: "Curated", sourceType: "internal", position: 0 },
          { id: external, name: "Repo", sourceType: "external", position: 1, external: source }
        ]
      }
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const initOnly = Migrator.make({})({
          loader: Migrator.fromRecord({ "0001_init": Migrations.migrations["0001_init"] }),
          table: Migrations.table
        })
        yield* initOnly
        yield* sql`INSERT INTO organizations (id, doc) VALUES (${orgId}, ${JSON.stringify(org)}::jsonb)`
        yield* sql`INSERT INTO policy_groups (org_id, id, name, doc) VALUES (${orgId}, ${groupId}, 'Base', ${JSON.stringify(group)}::jsonb)`
        const ran = yield* Migrations.run
        const { policyGroups } = Context.get(yield* SqlStore.make, PolicyStore)
        return {
          ran: ran.map(([id, name]) => `${id}_${name}`),
          read: yield* policyGroups.get(orgId as Id.OrgId, groupId as Id.PolicyGroupId)
        }
      })
      const { ran, read } = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(ran, [
        "2_scans",
        "3_scan_attempts",
        "4_snoozes_by_repository",
        "6_organization_admin",
        "7_admin_ops",
        "9_members_and_roles",
        "10_compliance_snapshots",
        "12_scheduled_runs",
        "13_sessions",
        "14_remediation_merges"
      ])
      const phases: unknown = Option.getOrThrow(read).phases
      assert.deepStrictEqual(phases, [
        group.phases[0],
        { ...group.phases[1], external: { ...source, pollIntervalSeconds: 60 } }
      ])
    } finally {
      await pglite.close()
    }
  })

  it("0003 counts 0 attempts for scans stored before it; a claim then counts from there", async () => {
    const pglite = await freshPglite()
    try {
      const orgId = Id.make("organization", new Uint8Array(16).fill(1)) as Id.OrgId
      const repositoryId = Id.make("repository", new Uint8Array(16).fill(2))
      const scanId = Id.make("scan", new Uint8Array(16).fill(3))
      const org = { id: orgId, name: "Old", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 }
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrator.make({})({
          loader: Migrator.fromRecord({
            "0001_init": Migrations.migrations["0001_init"],
            "0002_scans": Migrations.migrations["0002_scans"]
          }),
          table: Migrations.table
        })
        yield* sql`INSERT INTO organizations (id, doc) VALUES (${orgId}, ${JSON.stringify(org)}::jsonb)`
        // a scan as the store wrote it before 0003
        yield* sql`INSERT INTO scans (org_id, id, repository_id, branch_name, trigger, status, queued_at)
          VALUES (${orgId}, ${scanId}, ${repositoryId}, 'main', 'onboarding', 'queued', '2026-01-01T00:00:00.000Z')`
        const ran = yield* Migrations.run
        const scans = Context.get(yield* SqlStore.make, ScanStore)
        const before = yield* scans.get(orgId, scanId as Id.ScanId)
        const claimed = yield* scans.claim({ worker: "w", now: new Date("2026-01-02T00:00:00.000Z"), leaseMs: 1000, limit: 10 })
        return { ran: ran.map(([id, name]) => `${id}_${name}`), before, claimed }
      })
      const { before, claimed, ran } = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(ran, [
        "3_scan_attempts",
        "4_snoozes_by_repository",
        "6_organization_admin",
        "7_admin_ops",
        "9_members_and_roles",
        "10_compliance_snapshots",
        "12_scheduled_runs",
        "13_sessions",
        "14_remediation_merges"
      ])
      assert.deepStrictEqual([Option.getOrThrow(before).status, Option.getOrThrow(before).attempts], ["queued", 0])
      assert.deepStrictEqual(claimed.map((c) => [c.scan.id, c.scan.attempts]), [[scanId, 1]])
    } finally {
      await pglite.close()
    }
  })

  it("0009 adds members and roles; API keys stored before it still authenticate, with no custom role", async () => {
    const pglite = await freshPglite()
    try {
      const orgId = Id.make("organization", new Uint8Array(16).fill(11))
      const keyId = Id.make("apiKey", new Uint8Array(16).fill(12))
      const org = { id: orgId, name: "Old", edition: "enterprise", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 }
      // a key document as the store wrote it before 0009
      const key = {
        id: keyId,
        serviceAccountId: Id.make("serviceAccount", new Uint8Array(16).fill(13)),
        name: "ci",
        prefix: "ipk_abcdefgh",
        secretHash: "old-hash",
        role: "Policy Automation",
        permissions: [],
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
        createdAt: "2026-01-01T00:00:00.000Z"
      }
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const before = Migrator.make({})({
          loader: Migrator.fromRecord(Object.fromEntries(Object.entries(Migrations.migrations).filter(([name]) => name < "0009"))),
          table: Migrations.table
        })
        yield* before
        yield* sql`INSERT INTO organizations (id, doc) VALUES (${orgId}, ${JSON.stringify(org)}::jsonb)`
        yield* sql`INSERT INTO api_keys (org_id, id, secret_hash, created_at, doc)
          VALUES (${orgId}, ${keyId}, 'old-hash', ${key.createdAt}, ${JSON.stringify(key)}::jsonb)`
        const ran = yield* Migrations.run
        const access = Context.get(yield* SqlStore.make, AccessStore)
        return {
          ran: ran.map(([id, name]) => `${id}_${name}`),
          match: yield* access.findBySecretHash("old-hash"),
          members: yield* access.members.list(orgId as Id.OrgId, { limit: 10 }),
          usage: yield* access.roles.usage(orgId as Id.OrgId, Id.make("role", new Uint8Array(16).fill(14)) as Id.RoleId, key.createdAt)
        }
      })
      const { match, members, ran, usage } = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(ran, [
        "9_members_and_roles",
        "10_compliance_snapshots",
        "12_scheduled_runs",
        "13_sessions",
        "14_remediation_merges"
      ])
      assert.deepStrictEqual(Option.getOrThrow(match).key as unknown, key)
      assert.isNull(Option.getOrThrow(match).customRole)
      assert.deepStrictEqual(members.items, [])
      assert.deepStrictEqual(usage, { members: 0, apiKeys: 0 })
    } finally {
      await pglite.close()
    }
  })

  it("a store migrated by the Effect 3 build is up to date: no migration runs again, and the store works", async () => {
    const pglite = await freshPglite()
    try {
      const orgId = Id.make("organization", new Uint8Array(16).fill(8)) as Id.OrgId
      const org = { id: orgId, name: "Before", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 } as const
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // the bookkeeping table exactly as @effect/sql 0.52's Migrator created it on PostgreSQL
        yield* sql`CREATE TABLE image_policy_migrations (
          migration_id integer primary key,
          created_at timestamp with time zone not null default now(),
          name text not null
        )`
        for (const [key, migration] of Object.entries(Migrations.migrations)) {
          yield* migration
          const [, id, name] = /^(\d+)_(.+)$/.exec(key)!
          yield* sql`INSERT INTO image_policy_migrations (migration_id, name) VALUES (${Number(id)}, ${name})`
        }
        const ran = yield* Migrations.run
        const { organizations } = Context.get(yield* SqlStore.make, OrganizationStore)
        yield* organizations.insert(org)
        return { ran, read: yield* organizations.get(orgId) }
      })
      const { ran, read } = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(ran, [])
      assert.deepStrictEqual(Option.getOrThrow(read), org)
    } finally {
      await pglite.close()
    }
  })

  it("0007 copies each stored snooze request's status and until into the columns the filters and the expiry worker read", async () => {
    const pglite = await freshPglite()
    try {
      const orgId = Id.make("organization", new Uint8Array(16).fill(1)) as Id.OrgId
      const org = { id: orgId, name: "Old", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 }
      const snooze = (n: number, status: string, until: string) => ({
        id: Id.make("snoozeRequest", new Uint8Array(16).fill(n)),
        repositoryId: Id.make("repository", new Uint8Array(16).fill(9)),
        fromImage: "nginx:1",
        reason: "r",
        until,
        status,
        createdAt: `2026-01-0${n}T00:00:00.000Z`,
        reviewedAt: null,
        reviewComment: null
      })
      // approved and past, approved beyond year 9999 (written with a sign), pending and past
      const rows = [
        snooze(1, "approved", "2026-02-01T00:00:00.000Z"),
        snooze(2, "approved", "+010000-01-01T00:00:00.000Z"),
        snooze(3, "pending", "2026-02-01T00:00:00.000Z")
      ]
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // the migrator runs only ids above the newest it has run: stop before 0007
        const before = Object.fromEntries(Object.entries(Migrations.migrations).filter(([key]) => Number(key.slice(0, 4)) < 7))
        yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: Migrations.table })
        yield* sql`INSERT INTO organizations (id, doc) VALUES (${orgId}, ${JSON.stringify(org)}::jsonb)`
        for (const r of rows) {
          yield* sql`INSERT INTO snooze_requests (org_id, id, created_at, doc) VALUES (${orgId}, ${r.id}, ${r.createdAt}, ${
            JSON.stringify(r)
          }::jsonb)`
        }
        const ran = yield* Migrations.run
        const snoozes = Context.get(yield* SqlStore.make, SnoozeStore)
        return {
          ran: ran.map(([id, name]) => `${id}_${name}`),
          due: yield* snoozes.dueForExpiry({ now: new Date("2030-01-01T00:00:00.000Z"), limit: 10 }),
          approved: yield* snoozes.list(orgId, { limit: 10 }, { status: "approved" })
        }
      })
      const { approved, due, ran } = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(
        ran,
        Object.keys(Migrations.migrations).filter((key) => Number(key.slice(0, 4)) >= 7).map((key) =>
          `${Number(key.slice(0, 4))}_${key.slice(5)}`
        )
      )
      assert.deepStrictEqual(due, [{ orgId, id: rows[0]!.id as Id.SnoozeRequestId }])
      assert.deepStrictEqual(approved.items.map((r) => r.id), [rows[0]!.id, rows[1]!.id])
    } finally {
      await pglite.close()
    }
  })

  it("0014 gives remediation requests stored before it no merge time, and the columns a merge and the history read", async () => {
    const pglite = await freshPglite()
    try {
      const orgId = Id.make("organization", new Uint8Array(16).fill(1)) as Id.OrgId
      const org = { id: orgId, name: "Old", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 }
      const repositoryId = Id.make("repository", new Uint8Array(16).fill(9)) as Id.RepositoryId
      // a request as the store wrote it before 0014: no mergedAt in the document
      const old = {
        id: Id.make("remediation", new Uint8Array(16).fill(2)),
        repositoryId,
        branchName: "main",
        headBranch: "image-policy/remediate/main",
        status: "open",
        failure: null,
        number: 17,
        url: "https://github.example/acme/api/pull/17",
        scanId: Id.make("scan", new Uint8Array(16).fill(3)),
        changes: [],
        createdAt: "2026-03-02T10:00:00.000Z",
        updatedAt: "2026-03-02T10:00:00.000Z"
      }
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const before = Object.fromEntries(Object.entries(Migrations.migrations).filter(([key]) => Number(key.slice(0, 4)) < 14))
        yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: Migrations.table })
        yield* sql`INSERT INTO organizations (id, doc) VALUES (${orgId}, ${JSON.stringify(org)}::jsonb)`
        yield* sql`INSERT INTO remediation_requests (org_id, id, repository_id, branch_name, status, created_at, doc)
          VALUES (${orgId}, ${old.id}, ${repositoryId}, 'main', 'open', ${old.createdAt}, ${JSON.stringify(old)}::jsonb)`
        const ran = yield* Migrations.run
        const stores = yield* SqlStore.make
        return {
          ran: ran.map(([id, name]) => `${id}_${name}`),
          found: yield* Context.get(stores, RemediationStore).findByNumber(orgId, repositoryId, 17),
          activity: yield* Context.get(stores, ReportStore).remediationActivity(orgId, "2026-03-02", "2026-03-02")
        }
      })
      const { activity, found, ran } = await Effect.runPromise(program.pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
      assert.deepStrictEqual(ran, ["14_remediation_merges"])
      assert.deepStrictEqual(Option.getOrThrow(found), { ...old, mergedAt: null } as unknown)
      assert.deepStrictEqual(activity, [{ status: "open", createdAt: old.createdAt, mergedAt: null }])
    } finally {
      await pglite.close()
    }
  })

  const dir = mkdtempSync(join(tmpdir(), "image-policy-pglite-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("a PGlite data directory survives a restart (write, close, reopen, read)", async () => {
    const spec = { _tag: "pglite", dataDir: dir } as const
    const orgId = Id.make("organization", new Uint8Array(16).fill(7)) as Id.OrgId
    const org = { id: orgId, name: "Durable", edition: "team", grants: [], defaultNotificationTeamId: null, cooldownSeconds: 0 } as const
    // each call builds the store, uses it and closes PGlite again
    const withStore = <A>(f: (store: typeof OrganizationStore.Service) => Effect.Effect<A>) =>
      Effect.runPromise(
        Effect.flatMap(OrganizationStore, f).pipe(Effect.provide(StoreConfig.layer(spec))) as Effect.Effect<A, never, never>
      )
    await withStore((store) => store.organizations.insert(org))
    const read = await withStore((store) => store.organizations.get(orgId))
    assert.deepStrictEqual(Option.getOrThrow(read), org)
  }, 180_000) // initdb on disk, then a second start: the slowest PGlite there is on a busy machine
})
