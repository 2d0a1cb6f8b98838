/**
 * An Effect `SqlClient` over PGlite (embedded PostgreSQL in WebAssembly): a `Connection` over the
 * PGlite instance, handed to `SqlClient.make`.
 *
 * SQL compiles with `@effect/sql-pg`'s compiler, so a statement is byte-for-byte what it would be
 * on PostgreSQL, and parameters are bound with the types `@effect/sql-pg`'s native client gives
 * them (numbers as int4/int8/float8, Date as timestamptz, `PgTypes` parameters with their oid, a
 * plain object refused): a statement that fails on PostgreSQL fails here too. Like that client,
 * every statement goes through the extended protocol (one statement per call), and COMMIT of an
 * aborted transaction fails instead of silently rolling back. Names and types are aligned with
 * `PgClient.ts` (STACK.md trap 6).
 */
import { makeCompiler } from "@effect/sql-pg/PgClient"
import * as PgTypes from "@effect/sql-pg/PgTypes"
import { PGlite } from "@electric-sql/pglite"
import type { Results } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Client from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import * as SqlErr from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import { oids, parseInt8, resolveTransforms, transforms } from "./PgClient.js"
import { type PoolStats, PoolStats as PoolStatsRef } from "./PoolStats.js"

export const TypeId: unique symbol = Symbol.for("@image-policy/adapters/PgliteClient")
export type TypeId = typeof TypeId

export interface PgliteClient extends Client.SqlClient {
  readonly [TypeId]: TypeId
  /** The underlying instance (for `dumpDataDir`, or closing it yourself with `layerFromInstance`). */
  readonly pglite: PGlite
  /** A JSON/JSONB parameter, compiled exactly like `PgClient.json` (a `PgTypes.jsonb` parameter). */
  readonly json: (value: unknown) => Statement.Fragment
  /** Who holds or waits for the one session (PoolStats.ts). */
  readonly stats: PoolStats
}

export const PgliteClient = Context.Service<PgliteClient>("@image-policy/adapters/PgliteClient")

export interface Config {
  readonly pglite: PGlite
  /** Omitted: camelCase <-> snake_case, like `PgClient.layerFromUrl`. `null`: no transform. */
  readonly transformQueryNames?: ((name: string) => string) | null
  readonly transformResultNames?: ((name: string) => string) | null
  readonly spanAttributes?: Record<string, unknown>
}

export interface LayerConfig extends Omit<Config, "pglite"> {
  /** A directory for the database files; omitted: in memory, gone on close. */
  readonly dataDir?: string
}

// Same parsing as `PgClient.pgTypes`: int8 -> number, numeric stays a string (PGlite's default).
const parsers = { [oids.int8]: parseInt8 }

const OID = PgTypes.OID

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : ""

const constraintOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "constraint" in cause && typeof cause.constraint === "string"
    ? cause.constraint
    : "unknown"

/**
 * A PGlite failure as the `SqlError` `@effect/sql-pg` would report for the same SQLSTATE, so
 * callers that look at `error.reason` (a unique violation, a connection error) see the same thing
 * on both clients.
 */
const classify = (cause: unknown, message: string, operation: string): SqlErr.SqlError => {
  const props = { cause, message, operation }
  const code = codeOf(cause)
  const reason = code.startsWith("08")
    ? new SqlErr.ConnectionError(props)
    : code.startsWith("28")
    ? new SqlErr.AuthenticationError(props)
    : code === "42501"
    ? new SqlErr.AuthorizationError(props)
    : code.startsWith("42")
    ? new SqlErr.SqlSyntaxError(props)
    : code === "23505"
    ? new SqlErr.UniqueViolation({ ...props, constraint: constraintOf(cause) })
    : code.startsWith("23")
    ? new SqlErr.ConstraintError(props)
    : code === "40P01"
    ? new SqlErr.DeadlockError(props)
    : code === "40001"
    ? new SqlErr.SerializationError(props)
    : code === "55P03"
    ? new SqlErr.LockTimeoutError(props)
    : code === "57014"
    ? new SqlErr.StatementTimeoutError(props)
    : new SqlErr.UnknownError(props)
  return new SqlErr.SqlError({ reason })
}

/** The oid `@effect/sql-pg`'s native client binds a JavaScript value with (0: the server infers it). */
const oidOf = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === "string" || Array.isArray(value)) return 0
  switch (typeof value) {
    case "boolean":
      return OID.bool
    case "bigint":
      return OID.int8
    case "number":
      return Number.isInteger(value)
        ? (value >= -2147483648 && value <= 2147483647 ? OID.int4 : Number.isSafeInteger(value) ? OID.int8 : OID.float8)
        : OID.float8
  }
  if (value instanceof Date) return OID.timestamptz
  if (value instanceof Uint8Array) return OID.bytea
  // as on PostgreSQL: a document goes in as JSON text (`JSON.stringify`) or `client.json(value)`
  throw new Error(`Cannot infer a PostgreSQL type for ${Object.prototype.toString.call(value)}`)
}

const bind = (params: ReadonlyArray<unknown>): { values: Array<unknown>; paramTypes: Array<number> } => {
  const values: Array<unknown> = []
  const paramTypes: Array<number> = []
  for (const p of params) {
    if (PgTypes.isParameter(p)) {
      const json = p.oid === OID.json || p.oid === OID.jsonb
      values.push(json && p.value !== null ? JSON.stringify(p.value) : p.value)
      paramTypes.push(p.oid)
    } else {
      values.push(p)
      paramTypes.push(oidOf(p))
    }
  }
  return { values, paramTypes }
}

// PGlite cannot cancel a running statement: let it finish, so the session lock below is never
// released (and the next statement sent) while PGlite is still busy with this one.
const run = <A>(operation: string, f: () => Promise<A>): Effect.Effect<A, SqlErr.SqlError> =>
  Effect.uninterruptible(
    Effect.tryPromise({ try: f, catch: (cause) => classify(cause, "Failed to execute statement", operation) })
  )

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

const makeConnection = (pglite: PGlite): Connection => {
  const query = <T>(operation: string, sql: string, params: ReadonlyArray<unknown>, rowMode?: "array") =>
    Effect.flatMap(
      Effect.try({ try: () => bind(params), catch: (cause) => classify(cause, "Failed to encode query", operation) }),
      ({ paramTypes, values }) =>
        run(operation, () => pglite.query<T>(sql, values, { parsers, paramTypes, ...(rowMode ? { rowMode } : {}) }))
    )
  const rows = (operation: string, sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
    Effect.map(query<object>(operation, sql, params), (r) => (transformRows ? transformRows(r.rows) : r.rows))
  const values = (operation: string, sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(query<Array<unknown>>(operation, sql, params, "array"), (r) => r.rows)
  return {
    execute: (sql, params, transformRows) => rows("execute", sql, params, transformRows),
    executeUnprepared: (sql, params, transformRows) => rows("executeUnprepared", sql, params, transformRows),
    executeRaw: (sql, params) => query<object>("executeRaw", sql, params),
    executeValues: (sql, params) => values("executeValues", sql, params),
    executeValuesUnprepared: (sql, params) => values("executeValuesUnprepared", sql, params),
    // PGlite has no cursors over its API; results are in memory already, so stream the collected rows.
    executeStream: (sql, params, transformRows) => Stream.fromArrayEffect(rows("executeStream", sql, params, transformRows))
  }
}

// PostgreSQL answers COMMIT of an aborted transaction with "ROLLBACK"; fail as `@effect/sql-pg` does.
const commit = (conn: Connection): Effect.Effect<void, SqlErr.SqlError> =>
  Effect.flatMap(conn.executeRaw("COMMIT", []), (raw) =>
    (raw as Results).command === "ROLLBACK"
      ? Effect.fail(
        classify(
          new Error("COMMIT rolled back an aborted transaction"),
          "PgliteClient: COMMIT rolled back an aborted transaction",
          "commit"
        )
      )
      : Effect.void)

/**
 * The one session of an instance: its lock, and who holds or waits for it (for `PoolStats`).
 * One per instance, not per client: two clients over the same instance share one session.
 */
interface Session {
  readonly lock: Semaphore.Semaphore
  holders: number
  waiting: number
}

const sessions = new WeakMap<PGlite, Session>()
const sessionOf = (pglite: PGlite): Session => {
  let session = sessions.get(pglite)
  if (session === undefined) {
    session = { lock: Semaphore.makeUnsafe(1), holders: 0, waiting: 0 }
    sessions.set(pglite, session)
  }
  return session
}

/** Runs `use` holding the session, counted as a waiter until then (also when interrupted while waiting). */
const withSession = <A, E, R>(session: Session, use: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    session.waiting++
    let waiting = true
    return session.lock.withPermit(Effect.suspend(() => {
      session.waiting--
      waiting = false
      session.holders++
      return use
    })).pipe(Effect.ensuring(Effect.sync(() => waiting ? session.waiting-- : session.holders--)))
  })

/** The session until the caller's scope closes (a transaction, a stream), counted like `withSession`. */
const leaseSession = (session: Session): Effect.Effect<void, never, Scope.Scope> =>
  Effect.suspend(() => {
    session.waiting++
    return Effect.ensuring(session.lock.takeScoped(1), Effect.sync(() => session.waiting--))
  }).pipe(Effect.andThen(Effect.acquireRelease(
    Effect.sync(() => session.holders++),
    () => Effect.sync(() => session.holders--)
  )))

const statsOf = (session: Session): PoolStats => ({
  read: Effect.sync(() => ({ max: 1, idle: 1 - session.holders, used: session.holders, waiting: session.waiting }))
})

/**
 * A client over an existing PGlite instance; it does not close the instance.
 *
 * PGlite is ONE database session. Every way in takes the only permit of a semaphore: a plain
 * statement holds it while it runs (`borrower`), a transaction (`sql.withTransaction`),
 * `sql.reserve` or a `.stream` for its whole lease (`acquirer`, `transactionAcquirer`). Statements
 * of other fibers wait instead of running inside someone else's open transaction (and being rolled
 * back with it). Statements inside the transaction reuse its connection without taking the permit
 * again (that is how `effect/sql` routes them), and nested `withTransaction` calls become
 * savepoints.
 */
export const make = (config: Config): Effect.Effect<PgliteClient, never, Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const { transformQueryNames, transformResultNames } = resolveTransforms(config)
    const compiler = makeCompiler(transformQueryNames, transforms.transformJson)
    const transformRows = transformResultNames
      ? Statement.defaultTransforms(transformResultNames, transforms.transformJson).array
      : undefined

    const session = sessionOf(config.pglite)
    const connection = makeConnection(config.pglite)
    // The permit is released by the caller's scope: at the end of the stream, or at commit/rollback.
    const lease: Effect.Effect<Connection, never, Scope.Scope> = Effect.as(leaseSession(session), connection)

    const client = yield* Client.make({
      driver: "pglite",
      acquirer: lease,
      transactionAcquirer: lease,
      borrower: (f) => withSession(session, f(connection)),
      compiler,
      commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [
        ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
        ["db.system.name", "postgresql"],
        ["db.namespace", "pglite"]
      ],
      transformRows
    })

    return Object.assign(client, {
      [TypeId]: TypeId,
      pglite: config.pglite,
      stats: statsOf(session),
      json: (value: unknown) => Statement.fragment([PgJson(value, undefined, undefined)])
    }) as PgliteClient
  })

// Same custom kind as `@effect/sql-pg`'s `PgJson`, so its compiler binds it as one jsonb parameter.
interface PgJson extends Statement.Custom<"PgJson", unknown> {}
const PgJson = Statement.custom<PgJson>("PgJson")

const toContext = (client: PgliteClient) =>
  Context.make(PgliteClient, client).pipe(Context.add(Client.SqlClient, client), Context.add(PoolStatsRef, client.stats))

/** A client over an instance the caller owns (tests share one instance per file: creating one costs seconds). */
export const layerFromInstance = (
  pglite: PGlite,
  options: Omit<Config, "pglite"> = {}
): Layer.Layer<PgliteClient | Client.SqlClient> =>
  Layer.effectContext(Effect.map(make({ ...options, pglite }), toContext)).pipe(Layer.provide(Reactivity.layer))

/** Opens PGlite (in memory, or on `dataDir`) and closes it when the layer is released. */
export const layer = (config: LayerConfig = {}): Layer.Layer<PgliteClient | Client.SqlClient, SqlErr.SqlError> => {
  const { dataDir, ...options } = config
  return Layer.effectContext(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(dataDir),
        catch: (cause) => classify(cause, `PgliteClient: failed to open ${dataDir ?? "in-memory database"}`, "connect")
      }),
      (pglite) => Effect.ignore(Effect.tryPromise(() => pglite.close()))
    ).pipe(Effect.flatMap((pglite) => Effect.map(make({ ...options, pglite }), toContext)))
  ).pipe(Layer.provide(Reactivity.layer))
}
