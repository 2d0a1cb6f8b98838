/**
 * Chooses a store from its textual form (contracts section 1): `memory`, `pglite:DIR` (the
 * embedded default, a data directory and no server) or a `postgres://` / `postgresql://` URL.
 * SQL stores are migrated when the layer is built.
 */
import type { Stores } from "@image-policy/core"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type * as SqlClient from "effect/sql/SqlClient"
import * as MemoryStore from "./memory/MemoryStore.js"
import * as Migrations from "./sql/Migrations.js"
import * as PgClient from "./sql/PgClient.js"
import * as PgliteClient from "./sql/PgliteClient.js"
import * as SqlStore from "./sql/SqlStore.js"

export const defaultStore = "pglite:.image-policy/data"

export type StoreSpec =
  | { readonly _tag: "memory" }
  | { readonly _tag: "pglite"; readonly dataDir: string }
  | { readonly _tag: "postgres"; readonly url: string }

export class InvalidStoreSpec extends Data.TaggedError("InvalidStoreSpec")<{ readonly input: string }> {
  override get message() {
    return "store must be `memory`, `pglite:DIR` or a postgres:// URL"
  }
}

export const parse = (input: string): Result.Result<StoreSpec, InvalidStoreSpec> => {
  const text = input.trim()
  if (text === "memory") return Result.succeed({ _tag: "memory" })
  if (text.startsWith("pglite:") && text.length > "pglite:".length) {
    return Result.succeed({ _tag: "pglite", dataDir: text.slice("pglite:".length) })
  }
  if (/^postgres(ql)?:\/\//.test(text)) return Result.succeed({ _tag: "postgres", url: text })
  // never echo the input: a mistyped URL may hold a password
  return Result.fail(new InvalidStoreSpec({ input: text.startsWith("postgres") ? "postgres…" : text.slice(0, 40) }))
}

/**
 * The SQL store over a client, migrated before anyone can use it. The migrations are the store's
 * first statements: a PostgreSQL server that cannot be reached fails here, while the layer is
 * built (the client itself connects lazily), with the connection error in the defect's cause.
 */
export const migrated = <E>(client: Layer.Layer<SqlClient.SqlClient, E>): Layer.Layer<Stores, E> =>
  Layer.effectContext(Effect.andThen(Effect.orDie(Migrations.run), SqlStore.make)).pipe(Layer.provide(client))

/** The stores of a spec (every store port and their `Transaction`); SQL stores run their migrations first. */
export const layer = (spec: StoreSpec): Layer.Layer<Stores, unknown> => {
  switch (spec._tag) {
    case "memory":
      return MemoryStore.layer
    case "pglite":
      return migrated(PgliteClient.layer({ dataDir: spec.dataDir }))
    case "postgres":
      return migrated(PgClient.layerFromUrl(spec.url))
  }
}
