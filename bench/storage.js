// Storage benchmark (issue "Storage", Performance): our SQL store beside the naive variant, on
// PGlite and PostgreSQL, measured in the same run. Prints figures and ratios; asserts nothing.
import { PGlite } from "@electric-sql/pglite"
import { PgClient, PgliteClient, StoreConfig } from "@image-policy/adapters"
import { Id, OrganizationStore, OutboxStore, PolicyStore, Transaction } from "@image-policy/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"

const bytes = () => crypto.getRandomValues(new Uint8Array(16))
const id = (kind) => Id.make(kind, bytes())
const iso = (i) => new Date(Date.UTC(2026, 0, 1) + i).toISOString()

const time = async (f) => {
  const t0 = performance.now()
  await f()
  return performance.now() - t0
}
const fmt = (ms) => `${ms.toFixed(1)} ms`
const line = (label, ours, naive, unit = "ms") =>
  console.log(
    `  ${label.padEnd(44)} ours ${unit === "ms" ? fmt(ours) : `${ours.toFixed(0)} ${unit}`}  naive ${
      unit === "ms" ? fmt(naive) : `${naive.toFixed(0)} ${unit}`
    }  ratio ${(unit === "ms" ? naive / ours : ours / naive).toFixed(1)}x`
  )

const draft = (phaseId, i) => {
  const at = iso(i)
  return {
    id: id("mapping"),
    key: `docker.io/library/img${i}:1|`,
    fromImage: `img${i}:1`,
    toImage: `img${i}:2`,
    createdAt: at,
    updatedAt: at,
    phaseId
  }
}

const scenario = async (name, layer) => {
  console.log(`\n${name}`)
  const runtime = ManagedRuntime.make(layer)
  const run = (effect) => runtime.runPromise(effect)
  const { organizationStore, outbox, policyStore, sql, transaction } = await run(Effect.all({
    organizationStore: OrganizationStore,
    policyStore: PolicyStore,
    outbox: OutboxStore,
    transaction: Transaction,
    sql: SqlClient.SqlClient
  }))
  const store = { ...organizationStore, ...policyStore, outbox, transaction: transaction.transaction }
  const org = {
    id: id("organization"),
    name: "Bench",
    edition: "enterprise",
    grants: [],
    defaultNotificationTeamId: null,
    cooldownSeconds: 0
  }
  await run(store.organizations.insert(org))
  const phase = id("phase")
  const group = {
    id: id("policyGroup"),
    name: "Bench",
    applyToAllRepos: true,
    notificationRouting: { kind: "inherit" },
    cooldownSeconds: null,
    phases: [{ id: phase, name: "P", sourceType: "internal", position: 0 }]
  }
  await run(store.policyGroups.insert(org.id, group))

  // 1. publish of a group with 10,000 draft mappings
  const published = Array.from({ length: 10_000 }, (_, i) => ({ ...draft(phase, i), activeFrom: iso(0) }))
  const ours1 = await time(() => run(store.transaction(store.published.replace(org.id, group.id, [phase], published))))
  const naive1 = await time(() =>
    run(sql.withTransaction(Effect.gen(function*() {
      yield* sql`DELETE FROM published_mappings WHERE org_id = ${org.id} AND group_id = ${group.id}`
      for (const [position, m] of published.entries()) {
        yield* sql`INSERT INTO published_mappings (org_id, group_id, phase_id, key, position, doc)
          VALUES (${org.id}, ${group.id}, ${phase}, ${m.key}, ${position}, ${JSON.stringify(m)}::jsonb)`
      }
    })))
  )
  line("publish 10,000 mappings (one multi-row insert vs per row)", ours1, naive1)

  // 2. upsert throughput: in one transaction vs autocommit row by row
  const n = 2_000
  const drafts = Array.from({ length: n }, (_, i) => draft(phase, 200_000 + i))
  const ours2 = await time(() =>
    run(store.transaction(Effect.forEach(drafts, (d) => store.drafts.put(org.id, group.id, d), { discard: true })))
  )
  const again = drafts.map((d) => ({ ...d, toImage: `${d.toImage}-b` }))
  const naive2 = await time(() => run(Effect.forEach(again, (d) => store.drafts.put(org.id, group.id, d), { discard: true })))
  line(`upsert throughput (${n} drafts, tx vs autocommit)`, (n / ours2) * 1000, (n / naive2) * 1000, "mappings/s")

  // 3. keyset page of 100 from 100,000 rows vs OFFSET
  const phase2 = id("phase")
  await run(sql`INSERT INTO draft_mappings (org_id, group_id, phase_id, key, id, created_at, doc)
    SELECT ${org.id}, ${group.id}, ${phase2}, 'k' || g, 'map_' || lpad(g::text, 26, '0'),
      to_char(timestamp '2026-01-01' + g * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      jsonb_build_object('id', 'map_' || lpad(g::text, 26, '0'), 'key', 'k' || g, 'fromImage', 'img' || g || ':1',
        'toImage', 'img' || g || ':2', 'createdAt', to_char(timestamp '2026-01-01' + g * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'updatedAt', '2026-01-01T00:00:00.000Z', 'phaseId', ${phase2}::text)
    FROM generate_series(1, 100000) g`)
  await run(sql`ANALYZE draft_mappings`)
  const last = await run(sql`SELECT created_at, id FROM draft_mappings WHERE org_id = ${org.id} AND phase_id = ${phase2}
    ORDER BY created_at, id OFFSET 99899 LIMIT 1`)
  const { Cursor } = await import("@image-policy/core")
  const cursor = Cursor.encodeCursor({ sortKey: last[0].createdAt, id: last[0].id })
  const reps = 20
  const ours3 = (await time(async () => {
    for (let i = 0; i < reps; i++) await run(store.drafts.listByPhase(org.id, group.id, phase2, { cursor, limit: 100 }))
  })) / reps
  const naive3 = (await time(async () => {
    for (let i = 0; i < reps; i++) {
      await run(sql`SELECT doc FROM draft_mappings WHERE org_id = ${org.id} AND group_id = ${group.id} AND phase_id = ${phase2}
        ORDER BY created_at, id OFFSET 99900 LIMIT 101`)
    }
  })) / reps
  line("last page of 100 from 100,000 (keyset vs OFFSET)", ours3, naive3)

  // 4. outbox claim of 1,000 deliveries: one statement vs select-then-update per row
  const webhook = id("webhook")
  const seed = (count) =>
    run(store.outbox.append(
      org.id,
      Array.from({ length: count }, () => {
        const e = { id: id("event"), type: "service.webhook.test", subject: "webhook/x", time: iso(0), correlationId: "b", data: {} }
        return { event: e, destinations: [webhook] }
      })
    ))
  await seed(1_000)
  const now = new Date("2026-02-01T00:00:00Z")
  const ours4 = await time(() => run(store.outbox.claim({ worker: "bench", now, leaseMs: 60_000, limit: 1_000 })))
  await run(sql`UPDATE deliveries SET status = 'succeeded' WHERE org_id = ${org.id}`)
  await seed(1_000)
  const naive4 = await time(() =>
    run(Effect.gen(function*() {
      const rows = yield* sql`SELECT org_id, event_id, webhook_id FROM deliveries WHERE status = 'pending'
        AND next_attempt_at <= ${now.toISOString()}::timestamptz ORDER BY next_attempt_at LIMIT 1000`
      for (const r of rows) {
        yield* sql`UPDATE deliveries SET lease_owner = 'naive', lease_until = now() + interval '1 minute'
          WHERE org_id = ${r.orgId} AND event_id = ${r.eventId} AND webhook_id = ${r.webhookId}`
        yield* sql`SELECT doc FROM outbox_events WHERE org_id = ${r.orgId} AND id = ${r.eventId}`
      }
    }))
  )
  line("claim 1,000 deliveries (SKIP LOCKED vs per row)", ours4, naive4)
  await runtime.dispose()
}

const postgresUrl = async () => {
  const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2000 })
  try {
    await admin.connect()
  } catch {
    return undefined
  }
  const name = `ip_bench_${Date.now()}`
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  }
}

// the store and its SQL client (the same layer object, so it is built once)
const withSql = (client) => Layer.merge(StoreConfig.migrated(client), client)

export const main = async () => {
  const pglite = await PGlite.create()
  await scenario("PGlite (in memory)", withSql(PgliteClient.layerFromInstance(pglite)))
  await pglite.close()
  const db = await postgresUrl()
  if (db === undefined) {
    console.log("\nPostgreSQL: skipped (no server at DATABASE_URL or 127.0.0.1:5432)")
    return
  }
  try {
    await scenario("PostgreSQL", withSql(PgClient.layerFromUrl(db.url, { maxConnections: 4 })))
  } finally {
    await db.drop()
  }
}
