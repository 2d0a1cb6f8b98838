/**
 * The store connection readings behind `image_policy_db_pool_*` (PoolStats.ts): PGlite counts who
 * holds and who waits for its one session; PostgreSQL reads this pool's sessions from
 * `pg_stat_activity` (a transaction in progress holds a connection; other processes' sessions are
 * not counted); the SQL store passes the client's readings on; the memory store has none.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { afterAll } from "vitest"
import * as MemoryStore from "../src/storage/memory/MemoryStore.js"
import * as PgClient from "../src/storage/sql/PgClient.js"
import * as PgliteClient from "../src/storage/sql/PgliteClient.js"
import { PoolStats, type Reading } from "../src/storage/sql/PoolStats.js"
import * as StoreConfig from "../src/storage/StoreConfig.js"
import { freshPglite } from "./support/pglite.js"
import { pgDescribe } from "./support/postgres.js"

const read = Effect.flatMap(
  PoolStats,
  (stats): Effect.Effect<Reading | undefined> => stats === undefined ? Effect.succeed(undefined) : stats.read
)

/** Polls the reading until `ok` holds (a waiter is counted once its fiber has run up to the lock). */
const readingWhere = (ok: (reading: Reading) => boolean) =>
  Effect.gen(function*() {
    for (;;) {
      const reading = yield* read
      if (reading !== undefined && ok(reading)) return reading
      yield* Effect.yieldNow
    }
  })

const pglite = await freshPglite()
afterAll(() => pglite.close())

describe("PoolStats: PGlite", () => {
  it.effect("counts the holder of the one session and the statements waiting for it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* read, { max: 1, idle: 1, used: 0, waiting: 0 })
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT 1`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(inside)
      assert.deepStrictEqual(yield* read, { max: 1, idle: 0, used: 1, waiting: 0 })
      // another fiber's statement waits for the session instead of running inside the transaction
      const waiter = yield* Effect.forkChild(sql`SELECT 2 AS two`)
      assert.deepStrictEqual(yield* readingWhere((r) => r.waiting === 1), { max: 1, idle: 0, used: 1, waiting: 1 })
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(transaction)
      assert.deepStrictEqual(yield* Fiber.join(waiter), [{ two: 2 }])
      assert.deepStrictEqual(yield* read, { max: 1, idle: 1, used: 0, waiting: 0 })
    }).pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))

  it.effect("a waiter interrupted before it got the session is no longer counted", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* Effect.forkChild(
        sql.withTransaction(Effect.andThen(Deferred.succeed(inside, undefined), Deferred.await(release)))
      )
      yield* Deferred.await(inside)
      const waiter = yield* Effect.forkChild(sql`SELECT 1`)
      yield* readingWhere((r) => r.waiting === 1)
      yield* Fiber.interrupt(waiter)
      assert.strictEqual((yield* read)?.waiting, 0)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(transaction)
      assert.deepStrictEqual(yield* read, { max: 1, idle: 1, used: 0, waiting: 0 })
    }).pipe(Effect.provide(PgliteClient.layerFromInstance(pglite))))
})

describe("PoolStats: stores", () => {
  it.effect("the SQL store passes its client's readings on; the memory store has none", () =>
    Effect.gen(function*() {
      const sqlStore = yield* Layer.build(StoreConfig.migrated(PgliteClient.layerFromInstance(pglite)))
      const reading = yield* Effect.provideContext(read, sqlStore as Context.Context<never>)
      assert.deepStrictEqual(reading, { max: 1, idle: 1, used: 0, waiting: 0 })
      const memory = yield* Layer.build(MemoryStore.layer)
      assert.strictEqual(yield* Effect.provideContext(read, memory as Context.Context<never>), undefined)
    }))
})

await pgDescribe("pool stats", (url) => {
  it.effect("reads this pool's open, idle and used connections from pg_stat_activity", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // another pool on the same database: its sessions are not this pool's
      const other = yield* Layer.build(PgClient.layerFromUrl(url, { maxConnections: 2 }))
      yield* Effect.provideContext(Effect.flatMap(SqlClient.SqlClient, (s) => s`SELECT 1`), other)
      const first = yield* read
      assert.isDefined(first)
      assert.strictEqual(first!.max, 3)
      assert.strictEqual(first!.used, 0)
      assert.strictEqual(first!.waiting, undefined)
      assert.isAtLeast(first!.idle, 1)
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT 1`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(inside)
      // the open transaction holds a connection ('idle in transaction'); the reading's own is idle
      const during = yield* read
      assert.strictEqual(during!.used, 1)
      assert.isAtLeast(during!.idle, 1)
      assert.isAtMost(during!.idle + during!.used, 3)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(transaction)
      assert.strictEqual((yield* read)!.used, 0)
    }).pipe(Effect.provide(PgClient.layerFromUrl(url, { maxConnections: 3 })), Effect.scoped))
})
