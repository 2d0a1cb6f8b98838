/**
 * An Effect 3 `SqlClient` over PGlite (embedded PostgreSQL in WebAssembly). No Effect 3 package
 * exists for it (`@effect/sql-pglite` is Effect 4), so this is a small client in the manner of
 * `@effect/sql-d1`: a `Connection` over the PGlite instance, handed to `SqlClient.make`.
 *
 * SQL compiles with `@effect/sql-pg`'s compiler, so a statement is byte-for-byte what it would be
 * on PostgreSQL; names and types are aligned with `PgClient.ts` (STACK.md trap 6).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PGlite } from "@electric-sql/pglite"
import type { Results } from "@electric-sql/pglite"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { oids, parseInt8, resolveTransforms, transforms } from "./PgClient.js"

export const TypeId: unique symbol = Symbol.for("@image-policy/adapters/PgliteClient")
export type TypeId = typeof TypeId

export interface PgliteClient extends Client.SqlClient {
  readonly [TypeId]: TypeId
  /** The underlying instance (for `dumpDataDir`, or closing it yourself with `layerFromInstance`). */
  readonly pglite: PGlite
  /** A JSON/JSONB parameter, compiled exactly like `PgClient.json`. */
  readonly json: (value: unknown) => Statement.Fragment
}

export const PgliteClient = Context.GenericTag<PgliteClient>("@image-policy/adapters/PgliteClient")

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

type Rows = ReadonlyArray<any>
type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

const fail = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

// PGlite cannot cancel a running statement: let it finish, so the session lock below is never
// released (and the next statement sent) while PGlite is still busy with this one.
const run = <A>(f: () => Promise<A>): Effect.Effect<A, SqlError> =>
  Effect.uninterruptible(Effect.tryPromise({ try: f, catch: fail }))

// Like `pg`, a statement without parameters goes through the simple protocol, so several
// statements separated by `;` (migrations) work; one result gives its rows, several an array of
// row arrays.
const runRows = (pglite: PGlite, sql: string, params: ReadonlyArray<unknown>): Effect.Effect<Rows, SqlError> =>
  params.length === 0
    ? Effect.map(run(() => pglite.exec(sql, { parsers })), (results) =>
      results.length === 1 ? results[0]!.rows : results.map((r) => r.rows))
    : Effect.map(run(() => pglite.query(sql, params as Array<unknown>, { parsers })), (r) => r.rows)

const makeConnection = (pglite: PGlite): Connection => {
  const execute = (sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
    transformRows ? Effect.map(runRows(pglite, sql, params), transformRows) : runRows(pglite, sql, params)
  return {
    execute,
    executeRaw: (sql, params): Effect.Effect<Results | Array<Results>, SqlError> =>
      params.length === 0
        ? Effect.map(run(() => pglite.exec(sql, { parsers })), (rs) => rs.length === 1 ? rs[0]! : rs)
        : run(() => pglite.query(sql, params as Array<unknown>, { parsers })),
    executeValues: (sql, params) =>
      Effect.map(
        run(() => pglite.query<Array<unknown>>(sql, params as Array<unknown>, { parsers, rowMode: "array" })),
        (r) => r.rows
      ),
    executeUnprepared: execute,
    // PGlite has no cursors over its API; results are in memory already, so stream the collected rows.
    executeStream: (sql, params, transformRows) =>
      Stream.flatMap(Stream.fromEffect(execute(sql, params, transformRows)), Stream.fromIterable)
  }
}

// One lock per instance, not per client: two clients over the same instance share one session.
const sessions = new WeakMap<PGlite, Effect.Semaphore>()
const sessionOf = (pglite: PGlite): Effect.Semaphore => {
  let session = sessions.get(pglite)
  if (session === undefined) {
    session = Effect.unsafeMakeSemaphore(1)
    sessions.set(pglite, session)
  }
  return session
}

/**
 * A client over an existing PGlite instance; it does not close the instance.
 *
 * PGlite is ONE database session. Both acquirers take the only permit of a semaphore: a plain
 * statement holds it while it runs, a transaction (`sql.withTransaction`, `sql.reserve`) for its
 * whole duration. Statements of other fibers wait instead of running inside someone else's open
 * transaction (and being rolled back with it). Statements inside the transaction reuse its
 * connection without taking the permit again (that is how `@effect/sql` routes them), and nested
 * `withTransaction` calls become savepoints.
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
    // The permit is released by the caller's scope: after the statement, or at commit/rollback.
    const acquirer: Effect.Effect<Connection, never, Scope.Scope> = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        restore(session.take(1)),
        Effect.as(Effect.addFinalizer(() => session.release(1)), connection)
      )
    )

    const client = yield* Client.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler,
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
      json: (value: unknown) => PgJson(value)
    }) as PgliteClient
  })

// Same custom kind as `@effect/sql-pg`'s `PgJson`, so its compiler binds it as one parameter.
interface PgJson extends Statement.Custom<"PgJson", unknown> {}
const PgJson = Statement.custom<PgJson>("PgJson")

const toContext = (client: PgliteClient) =>
  Context.make(PgliteClient, client).pipe(Context.add(Client.SqlClient, client))

/** A client over an instance the caller owns (tests share one instance per file: creating one costs seconds). */
export const layerFromInstance = (
  pglite: PGlite,
  options: Omit<Config, "pglite"> = {}
): Layer.Layer<PgliteClient | Client.SqlClient> =>
  Layer.effectContext(Effect.map(make({ ...options, pglite }), toContext)).pipe(Layer.provide(Reactivity.layer))

/** Opens PGlite (in memory, or on `dataDir`) and closes it when the layer is released. */
export const layer = (config: LayerConfig = {}): Layer.Layer<PgliteClient | Client.SqlClient, SqlError> => {
  const { dataDir, ...options } = config
  return Layer.scopedContext(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(dataDir),
        catch: (cause) => new SqlError({ cause, message: `PgliteClient: failed to open ${dataDir ?? "in-memory database"}` })
      }),
      (pglite) => Effect.ignore(Effect.tryPromise(() => pglite.close()))
    ).pipe(Effect.flatMap((pglite) => Effect.map(make({ ...options, pglite }), toContext)))
  ).pipe(Layer.provide(Reactivity.layer))
}
