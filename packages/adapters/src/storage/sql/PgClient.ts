/**
 * PostgreSQL through `@effect/sql-pg` (its native wire-protocol client), configured so it behaves
 * exactly like the PGlite client (`PgliteClient.ts`): the same name transforms and the same type
 * parsing. Stores are written once against `SqlClient.SqlClient` and run on either.
 *
 * The client connects lazily: building the layer never fails; an unreachable server fails the
 * first statement (`SqlError` with reason `ConnectionError`, the socket error in its cause chain).
 * `StoreConfig.migrated` runs the migrations while the store layer is built, so a store that cannot
 * be opened still fails there.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgTypes from "@effect/sql-pg/PgTypes"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Str from "effect/String"
import { PoolStats, type Reading } from "./PoolStats.js"

/**
 * Name transforms shared by both clients: camelCase in TypeScript, snake_case in SQL
 * (CONVENTIONS.md, "SQL").
 *
 * `transformJson: false`: JSON/JSONB documents (mapping payloads, webhook bodies, external files)
 * come back exactly as stored. With `true`, @effect/sql would rewrite every nested object key,
 * so a user's `"base_image"` key inside a document would silently become `"baseImage"`.
 */
export const transforms = {
  transformQueryNames: Str.camelToSnake,
  transformResultNames: Str.snakeToCamel,
  transformJson: false
} as const

/** PostgreSQL type oids whose parsing we align between `@effect/sql-pg` and PGlite. */
export const oids = { int8: PgTypes.OID.int8, numeric: PgTypes.OID.numeric } as const

/**
 * int8 (`bigint`, `count(*)`, `bigserial`) is parsed to a JavaScript number on both clients.
 * `@effect/sql-pg` decodes it to a `bigint` by default and PGlite to a number (or a bigint above
 * 2^53); our int8 values are counts and epoch milliseconds, far below 2^53, so a number is exact
 * and convenient. Values beyond `Number.MAX_SAFE_INTEGER` would lose precision: store such values
 * as `numeric`.
 *
 * numeric is left as a string on both clients (the default of both drivers): it is exact, and the
 * caller decides how to interpret it.
 */
export const parseInt8 = (value: string): number => Number(value)

/** `@effect/sql-pg` codecs: the driver's defaults, except int8 (see `parseInt8`). */
export const pgTypes: PgTypes.Registry = (() => {
  const registry = PgTypes.makeRegistry()
  registry.register<number | bigint>(oids.int8, {
    encode: (value) => PgTypes.encode(typeof value === "bigint" ? value : BigInt(value), oids.int8),
    decode: (bytes) => Result.map(PgTypes.decode(bytes, oids.int8, 1), Number)
  }, { arrayOid: PgTypes.OID.int8Array })
  return registry
})()

export interface Options {
  /** Omitted: camelCase <-> snake_case (`transforms`). `null`: no name transform. */
  readonly transformQueryNames?: ((name: string) => string) | null
  readonly transformResultNames?: ((name: string) => string) | null
  readonly maxConnections?: number
  readonly applicationName?: string
}

/** Resolves the transform options the same way for both clients. */
export const resolveTransforms = (options: {
  readonly transformQueryNames?: ((name: string) => string) | null
  readonly transformResultNames?: ((name: string) => string) | null
}): {
  readonly transformQueryNames: ((name: string) => string) | undefined
  readonly transformResultNames: ((name: string) => string) | undefined
} => ({
  transformQueryNames: options.transformQueryNames === null
    ? undefined
    : options.transformQueryNames ?? transforms.transformQueryNames,
  transformResultNames: options.transformResultNames === null
    ? undefined
    : options.transformResultNames ?? transforms.transformResultNames
})

/** `@effect/sql-pg`'s pool size when none is given. */
export const defaultMaxConnections = 10

/**
 * This pool's sessions as the server sees them (PoolStats.ts): the client's `application_name` is
 * unique per pool, so other processes' sessions are not counted. The reading's own session is
 * busy only while it reads, so it counts as idle.
 */
const poolStats = (applicationName: string, max: number) =>
  Layer.effectContext(Effect.map(SqlClient.SqlClient, (sql) =>
    Context.make(PoolStats, {
      read: sql<{ readonly open: number; readonly idle: number }>`
        SELECT count(*) AS open, count(*) FILTER (WHERE state = 'idle' OR pid = pg_backend_pid()) AS idle
        FROM pg_stat_activity WHERE application_name = ${applicationName}`.pipe(
        Effect.map(([row]): Reading | undefined =>
          row === undefined ? undefined : { max, idle: Number(row.idle), used: Number(row.open) - Number(row.idle), waiting: undefined }
        ),
        Effect.timeoutOption(Duration.seconds(2)),
        Effect.map((reading) => reading._tag === "Some" ? reading.value : undefined),
        Effect.orElseSucceed(() => undefined)
      )
    })))

/**
 * A PostgreSQL client for a `postgres://` URL (the `--store` value or `DATABASE_URL`). The URL is
 * kept `Redacted` so a password never reaches logs or error messages. Its sessions are named
 * `image-policy/<8 hex digits>` (or `<applicationName>/…`), one name per pool, which is how
 * `PoolStats` finds them in `pg_stat_activity`.
 */
export const layerFromUrl = (
  url: string | Redacted.Redacted<string>,
  options: Options = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> => {
  const applicationName = `${options.applicationName ?? "image-policy"}/${globalThis.crypto.randomUUID().slice(0, 8)}`
  const maxConnections = options.maxConnections ?? defaultMaxConnections
  return poolStats(applicationName, maxConnections).pipe(
    Layer.provideMerge(PgClient.layer({
      url: Redacted.isRedacted(url) ? url : Redacted.make(url),
      ...resolveTransforms(options),
      transformJson: transforms.transformJson,
      types: pgTypes,
      applicationName,
      maxConnections
    }))
  )
}
