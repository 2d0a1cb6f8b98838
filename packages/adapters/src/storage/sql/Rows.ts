/**
 * What every SQL store module reads and writes rows with. SQL errors are defects (the ports'
 * contract): a database that is gone answers 500 with a correlation id, never a user error. Rows
 * are decoded with the core's schemas; a row that does not decode is a defect too.
 */
import type { Page, PageRequest } from "@image-policy/core"
import { Cursor, type Lease } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import { SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"

// documents are bound as JSON text and cast in SQL (`${json(x)}::jsonb`): the client refuses a
// plain object as a parameter
export const json = (value: unknown) => JSON.stringify(value)

/** `Lease.matches` in SQL, over the lease owner column `column`. */
export const leaseOwners = (sql: SqlClient.SqlClient, column: string, owners: Lease.Owners) =>
  "owner" in owners
    ? sql`${sql(column)} = ${owners.owner}`
    : sql`starts_with(${sql(column)}, ${`${owners.instance}/`}) AND ${sql(column)} <> ${owners.except}`

export const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString()

/** A decoder of a JSON document, whether the driver answers it parsed or as text. */
export const decoder = <A, I>(schema: Schema.Codec<A, I>) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (doc: unknown): A => decode(typeof doc === "string" ? JSON.parse(doc) : doc)
}

/** A row's `doc` column, decoded. */
export const doc = <A>(decode: (d: unknown) => A) => (row: any): A => decode(row.doc)

export const byCreated = (a: { readonly createdAt: string; readonly id: string }) => [a.createdAt, a.id] as const

/** SQL failures are defects (see the module comment). */
export const die = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.orDie(effect)

/** The first row, decoded, or None. */
export const one = <A>(rows: Effect.Effect<ReadonlyArray<any>, unknown>, decode: (row: any) => A) =>
  Effect.map(die(rows), (r) => (r.length > 0 ? Option.some(decode(r[0])) : Option.none()))

/** The position a page request's cursor names (stores only see cursors that decode: `Cursor.PageRequest`). */
export const after = (request: PageRequest) =>
  request.cursor === undefined ? undefined : Result.getOrThrowWith(Cursor.decodeCursor(request.cursor), (e) => e)

/** Keyset pagination on (`sortColumn`, `idColumn`); fetches one row more to know if more exist. */
export const page = <A>(
  rows: (after: { sortKey: string; id: string } | undefined, limit: number) => Effect.Effect<ReadonlyArray<any>, unknown>,
  decode: (row: any) => A,
  key: (a: A) => readonly [string, string],
  request: PageRequest
): Effect.Effect<Page<A>> =>
  Effect.gen(function*() {
    const position = after(request)
    const fetched = (yield* die(rows(position && { sortKey: String(position.sortKey), id: position.id }, request.limit + 1)))
      .map(decode)
    const items = fetched.slice(0, request.limit)
    const last = items[items.length - 1]
    return {
      items,
      nextCursor: fetched.length > request.limit && last !== undefined
        ? Cursor.encodeCursor({ sortKey: key(last)[0], id: key(last)[1] })
        : null
    }
  })

/** The statements over one client that several stores share. */
export const make = (sql: SqlClient.SqlClient) => {
  /**
   * One page of an org's documents from `table`, in keyset order on (`sortColumn`, id). The table
   * and column names are constants of the store modules, never user input.
   */
  const docPage = <A extends { readonly id: string }>(
    table: string,
    sortColumn: "name" | "created_at" | "external_account_name",
    orgId: string,
    request: PageRequest,
    decode: (d: unknown) => A,
    sortKey: (a: A) => string,
    filter: Statement.Fragment = sql``
  ): Effect.Effect<Page<A>> =>
    page(
      (after, limit) =>
        sql`SELECT doc FROM ${sql(table)} WHERE org_id = ${orgId} ${filter}
          ${after ? sql`AND (${sql(sortColumn)}, id) > (${after.sortKey}, ${after.id})` : sql``}
          ORDER BY ${sql(sortColumn)}, id LIMIT ${limit}`,
      doc(decode),
      (a) => [sortKey(a), a.id] as const,
      request
    )

  /** Read-modify-write of one document under its row lock; a missing row is left alone. */
  const updateDoc = <A>(table: string, orgId: string, id: string, decode: (d: unknown) => A, change: (a: A) => A) =>
    Effect.gen(function*() {
      const current = yield* one(
        sql`SELECT doc FROM ${sql(table)} WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`,
        doc(decode)
      )
      if (Option.isNone(current)) return
      yield* die(sql`UPDATE ${sql(table)} SET doc = ${json(change(current.value))}::jsonb WHERE org_id = ${orgId} AND id = ${id}`)
    })

  /** Every store's transaction: the client's, so all stores over one client share it. */
  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    // a failing BEGIN or COMMIT is a defect like every other SQL failure. COMMIT fails when a
    // statement of the transaction failed, even if the body caught that failure (PostgreSQL has
    // aborted the transaction): statements that may conflict use ON CONFLICT instead of catching
    sql.withTransaction(effect).pipe(
      Effect.catchIf((e): e is SqlError => e instanceof SqlError, (e) => Effect.die(e))
    ) as Effect.Effect<A, E, R>

  return { docPage, updateDoc, transaction }
}

export type Rows = ReturnType<typeof make>
