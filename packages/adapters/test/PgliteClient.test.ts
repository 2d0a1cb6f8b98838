import { assert, describe, it, layer } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as Migrations from "../src/storage/sql/Migrations.js"
import * as PgClient from "../src/storage/sql/PgClient.js"
import * as PgliteClient from "../src/storage/sql/PgliteClient.js"
import { freshPglite } from "./support/pglite.js"
import { pgDescribe } from "./support/postgres.js"

// A document whose keys must survive exactly as written (no camelCase rewrite inside JSON).
const payload = { base_image: "node:20", tags: ["lts", "slim"], nested: { max_age_days: 30 }, ok: true }

/** The behaviour stores rely on, written once and run against PGlite and PostgreSQL. */
const sqlSuite = (it: Vitest.MethodsNonLive<SqlClient.SqlClient>) => {
  it.effect("inserts and selects with camelCase in TypeScript and snake_case in SQL", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE widgets (
        id serial PRIMARY KEY, org_id text NOT NULL, display_name text NOT NULL,
        payload jsonb NOT NULL, big_count bigint NOT NULL, price numeric(10, 2) NOT NULL)`
      yield* sql`INSERT INTO widgets ${
        sql.insert({
          orgId: "org_a",
          displayName: "First",
          payload: JSON.stringify(payload),
          bigCount: 9_007_199_254_740_991,
          price: "12.50"
        })
      }`
      yield* sql`INSERT INTO widgets ${sql.insert({ orgId: "org_b", displayName: "Other org", payload: "{}", bigCount: 1, price: "1" })}`
      const rows = yield* sql<{
        orgId: string
        displayName: string
        payload: unknown
        bigCount: unknown
        price: unknown
      }>`SELECT org_id, display_name, payload, big_count, price FROM widgets WHERE ${sql("orgId")} = ${"org_a"}`
      assert.deepStrictEqual(rows, [{
        orgId: "org_a",
        displayName: "First",
        payload,
        bigCount: 9_007_199_254_740_991,
        price: "12.50"
      }])
    }))

  it.effect("parses int8 aggregates to numbers", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ total: unknown; big: unknown }>`SELECT count(*) AS total, ${"42"}::int8 AS big`
      assert.deepStrictEqual(row, { total: 1, big: 42 })
    }))

  it.effect("round-trips JSONB parameters sent as JSON text, objects and arrays alike", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ doc: unknown; list: unknown }>`SELECT ${JSON.stringify(payload)}::jsonb AS doc, ${
        JSON.stringify([1, { a_b: 2 }])
      }::jsonb AS list`
      assert.deepStrictEqual(row, { doc: payload, list: [1, { a_b: 2 }] })
    }))

  it.effect("refuses a plain object as a parameter (send JSON text)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const error = yield* Effect.flip(sql`SELECT ${payload}::jsonb AS doc`)
      assert.isTrue(SqlError.isSqlError(error))
    }))

  it.effect("binds a JavaScript number as a number: comparing it to a text column fails", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const error = yield* Effect.flip(sql`SELECT 1 WHERE 'a'::text = ${42}`)
      assert.strictEqual(error.reason._tag, "SqlSyntaxError")
    }))

  it.effect("returns values and streams; runs one statement per call, so migrations split theirs", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // both clients use the extended protocol: several statements in one call are refused
      const multi = yield* Effect.flip(sql.unsafe("CREATE TABLE refused (body text); SELECT 1"))
      assert.strictEqual(multi.reason._tag, "SqlSyntaxError")
      yield* Migrations.statements(sql, "CREATE TABLE notes (body text);\n INSERT INTO notes VALUES ('one'), ('two');")
      const values = yield* sql`SELECT body, length(body) AS len FROM notes ORDER BY body`.values
      assert.deepStrictEqual(values, [["one", 3], ["two", 3]])
      const streamed = yield* Stream.runCollect(sql<{ body: string }>`SELECT body FROM notes ORDER BY body`.stream)
      assert.deepStrictEqual(streamed, [{ body: "one" }, { body: "two" }])
      // a statement without parameters parses int8 the same way
      assert.deepStrictEqual(yield* sql`SELECT count(*) AS note_count FROM notes`, [{ noteCount: 2 }])
      assert.deepStrictEqual(yield* sql.unsafe("SELECT count(*) AS note_count FROM notes"), [{ noteCount: 2 }])
    }))

  it.effect("commits a transaction", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE committed (name text)`
      yield* sql.withTransaction(Effect.all([
        sql`INSERT INTO committed VALUES ('a')`,
        sql`INSERT INTO committed VALUES ('b')`
      ]))
      const rows = yield* sql<{ name: string }>`SELECT name FROM committed ORDER BY name`
      assert.deepStrictEqual(rows.map((r) => r.name), ["a", "b"])
    }))

  it.effect("rolls back a failed transaction: its rows are absent afterwards", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE rolled_back (name text)`
      const error = yield* sql.withTransaction(
        Effect.andThen(sql`INSERT INTO rolled_back VALUES ('lost')`, Effect.fail("boom" as const))
      ).pipe(Effect.flip)
      assert.strictEqual(error, "boom")
      const rows = yield* sql`SELECT * FROM rolled_back`
      assert.deepStrictEqual(rows, [])
    }))

  it.effect("a failed nested transaction rolls back to its savepoint only", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE nested (name text)`
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO nested VALUES ('outer')`
        const inner = yield* sql.withTransaction(
          Effect.andThen(sql`INSERT INTO nested VALUES ('inner')`, Effect.fail("inner failed" as const))
        ).pipe(Effect.flip)
        assert.strictEqual(inner, "inner failed")
        yield* sql`INSERT INTO nested VALUES ('after')`
      }))
      const rows = yield* sql<{ name: string }>`SELECT name FROM nested ORDER BY name`
      assert.deepStrictEqual(rows.map((r) => r.name), ["after", "outer"])
    }))

  it.effect("a COMMIT after a failed statement fails, and nothing of the transaction is kept", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE aborted (name text PRIMARY KEY)`
      yield* sql`INSERT INTO aborted VALUES ('taken')`
      // the body catches the statement's error, but PostgreSQL has aborted the transaction
      const error = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO aborted VALUES ('lost')`
        yield* Effect.ignore(sql`INSERT INTO aborted VALUES ('taken')`)
      })).pipe(Effect.flip)
      assert.isTrue(SqlError.isSqlError(error))
      const rows = yield* sql<{ name: string }>`SELECT name FROM aborted`
      assert.deepStrictEqual(rows.map((r) => r.name), ["taken"])
    }))

  it.effect("reports SQL errors as SqlError, classified like @effect/sql-pg does", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const error = yield* Effect.flip(sql`SELECT * FROM no_such_table`)
      assert.strictEqual(error._tag, "SqlError")
      assert.strictEqual(error.reason._tag, "SqlSyntaxError")
      yield* sql`CREATE TABLE unique_names (name text PRIMARY KEY)`
      yield* sql`INSERT INTO unique_names VALUES ('a')`
      const duplicate = yield* Effect.flip(sql`INSERT INTO unique_names VALUES ('a')`)
      assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
      assert.strictEqual((duplicate.reason as SqlError.UniqueViolation).constraint, "unique_names_pkey")
    }))
}

// One in-memory instance for the file: even restored from a dump (support/pglite.ts), opening one costs seconds.
const pglite = await freshPglite()
afterAll(() => pglite.close())

layer(PgliteClient.layerFromInstance(pglite), { excludeTestServices: true })("PgliteClient", (it) => {
  sqlSuite(it)

  it.effect("a transaction holds the session: another fiber's insert waits and survives the rollback", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE session_lock (name text)`
      const aInTransaction = yield* Deferred.make<void>()
      const bDone = yield* Ref.make(false)
      const bDoneWhileAOpen = yield* Ref.make<boolean | undefined>(undefined)

      const a = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO session_lock VALUES ('a')`
        yield* Deferred.succeed(aInTransaction, undefined)
        // give B every chance to run inside A's transaction if the session were not guarded
        yield* Effect.sleep("100 millis")
        yield* Ref.set(bDoneWhileAOpen, yield* Ref.get(bDone))
        return yield* Effect.fail("A failed" as const)
      })).pipe(Effect.flip, Effect.forkChild)

      yield* Deferred.await(aInTransaction)
      const b = yield* sql`INSERT INTO session_lock VALUES ('b')`.pipe(
        Effect.andThen(Ref.set(bDone, true)),
        Effect.forkChild
      )

      assert.strictEqual(yield* Fiber.join(a), "A failed")
      yield* Fiber.join(b)
      assert.strictEqual(yield* Ref.get(bDoneWhileAOpen), false)
      const rows = yield* sql<{ name: string }>`SELECT name FROM session_lock`
      assert.deepStrictEqual(rows.map((r) => r.name), ["b"])
    }))

  it.effect("exposes a PgliteClient whose json() binds one JSONB parameter", () =>
    Effect.gen(function*() {
      const client = yield* PgliteClient.PgliteClient
      const [row] = yield* client<{ doc: unknown }>`SELECT ${client.json(payload)}::jsonb AS doc`
      assert.deepStrictEqual(row, { doc: payload })
    }))
})

describe("PgliteClient.layer", () => {
  it.live("a data directory survives close and reopen", () =>
    Effect.gen(function*() {
      const dataDir = mkdtempSync(join(tmpdir(), "ip-pglite-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE kept (note_text text)`
        yield* sql`INSERT INTO kept ${sql.insert({ noteText: "survives" })}`
      }).pipe(Effect.provide(PgliteClient.layer({ dataDir })))
      const rows = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ noteText: string }>`SELECT note_text FROM kept`
      }).pipe(Effect.provide(PgliteClient.layer({ dataDir })))
      assert.deepStrictEqual(rows, [{ noteText: "survives" }])
    }).pipe(Effect.scoped), 180_000) // initdb on disk, then a second start: the slowest PGlite there is on a busy machine
})

await pgDescribe("sql_client", (url) => {
  layer(PgClient.layerFromUrl(url), { excludeTestServices: true })("PgClient.layerFromUrl", sqlSuite)
})
