/**
 * Readiness of the SQL store (`StoreHealth`): one trivial query proves the database answers, and
 * the migration table must record every migration this build knows (`Migrations.migrations`), so
 * a host started against a store another build has not migrated yet says so instead of failing
 * requests. Driver errors are not passed on: they may name the server, user or database.
 */
import type { StoreHealth, StoreStatus } from "@image-policy/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Migrations from "./Migrations.js"

/** A database that takes longer than this to answer `SELECT 1` is not ready to serve requests. */
const timeout = Duration.seconds(2)

const known = Object.keys(Migrations.migrations).map((key) => ({ key, id: Number(key.split("_")[0]) }))

const unreachable: StoreStatus = { reachable: false, pendingMigrations: [] }

export const make = (sql: SqlClient.SqlClient): typeof StoreHealth.Service => ({
  check: Effect.gen(function*() {
    yield* sql`SELECT 1`
    const recorded = yield* sql<{ readonly id: number }>`SELECT migration_id AS id FROM ${sql(Migrations.table)}`.pipe(
      Effect.map((rows) => new Set(rows.map((row) => Number(row.id)))),
      // reachable, but never migrated: every migration is pending
      Effect.orElseSucceed(() => new Set<number>())
    )
    return { reachable: true, pendingMigrations: known.filter(({ id }) => !recorded.has(id)).map(({ key }) => key) }
  }).pipe(
    Effect.timeoutOption(timeout),
    Effect.map((status) => status._tag === "Some" ? status.value : unreachable),
    Effect.orElseSucceed(() => unreachable)
  )
})
