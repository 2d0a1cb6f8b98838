/**
 * PostgreSQL through `@effect/sql-pg`, configured so it behaves exactly like the PGlite client
 * (`PgliteClient.ts`): the same name transforms and the same type parsing. Stores are written
 * once against `SqlClient.SqlClient` and run on either.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Str from "effect/String"
import * as Pg from "pg"

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

/** PostgreSQL type oids whose parsing we align between `pg` and PGlite. */
export const oids = { int8: 20, numeric: 1700 } as const

/**
 * int8 (`bigint`, `count(*)`, `bigserial`) is parsed to a JavaScript number on both clients.
 * `pg` returns a string by default and PGlite a number (or a bigint above 2^53); our int8 values
 * are counts and epoch milliseconds, far below 2^53, so a number is exact and convenient. Values
 * beyond `Number.MAX_SAFE_INTEGER` would lose precision: store such values as `numeric`.
 *
 * numeric is left as a string on both clients (the default of both drivers): it is exact, and the
 * caller decides how to interpret it.
 */
export const parseInt8 = (value: string): number => Number(value)

/** `pg` type parsers: the driver's defaults, except int8 (see `parseInt8`). */
export const pgTypes: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === oids.int8 && format !== "binary"
      ? parseInt8
      : Pg.types.getTypeParser(oid, format as any)) as Pg.CustomTypesConfig["getTypeParser"]
}

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

/**
 * A PostgreSQL client for a `postgres://` URL (the `--store` value or `DATABASE_URL`). The URL is
 * kept `Redacted` so a password never reaches logs or error messages.
 */
export const layerFromUrl = (
  url: string | Redacted.Redacted<string>,
  options: Options = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  PgClient.layer({
    url: Redacted.isRedacted(url) ? url : Redacted.make(url),
    ...resolveTransforms(options),
    transformJson: transforms.transformJson,
    types: pgTypes,
    applicationName: options.applicationName ?? "image-policy",
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {})
  })
