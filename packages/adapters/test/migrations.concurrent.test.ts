/**
 * Several hosts starting at once on one new PostgreSQL database (compose.yaml starts two) each run
 * the migrations. effect/sql's Migrator creates its table tolerating a concurrent create, then takes
 * `LOCK TABLE image_policy_migrations IN ACCESS EXCLUSIVE MODE` inside the migration transaction: the
 * other hosts wait for that transaction, then find the store current. This proves it with separate
 * connection pools, as separate processes would have.
 */
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import { expect, it } from "vitest"
import * as Migrations from "../src/storage/sql/Migrations.js"
import * as PgClient from "../src/storage/sql/PgClient.js"
import { pgDescribe } from "./support/postgres.js"

await pgDescribe("concurrent migrations", (url) => {
  it("four hosts migrating one new database at once: one applies every migration, the others find it current", async () => {
    const host = Effect.gen(function*() {
      const applied = yield* Migrations.run
      const sql = yield* SqlClient.SqlClient
      const recorded = yield* sql<{ migrationId: number }>`SELECT migration_id FROM image_policy_migrations ORDER BY migration_id`
      return { applied: applied.map(([id]) => id), recorded: recorded.map((r) => r.migrationId) }
    }).pipe(Effect.provide(PgClient.layerFromUrl(url)))
    const results = await Effect.runPromise(Effect.all([host, host, host, host], { concurrency: "unbounded" }))
    const all = Object.keys(Migrations.migrations).map((key) => Number(key.slice(0, 4)))
    expect(results.filter((r) => r.applied.length > 0).map((r) => r.applied)).toEqual([all])
    expect(results.filter((r) => r.applied.length === 0)).toHaveLength(3)
    for (const r of results) expect(r.recorded).toEqual(all)
  })
})
