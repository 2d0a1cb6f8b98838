/** Shapes shared by the API groups: organization paths, pages and their query parameters. */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Cursor, Text } from "@image-policy/core"
import * as Schema from "effect/Schema"

/**
 * Ids in paths are plain strings: a malformed id names nothing in the organization, so it is a 404
 * like any other unknown id (contracts 4), never a 400. Characters no id can hold (NUL, lone
 * surrogates) become U+FFFD, so such an id reaches the store as an ordinary unknown id (404)
 * instead of failing the query (500).
 */
export const PathId = Schema.transform(Schema.String.pipe(Schema.maxLength(200)), Schema.String, {
  strict: true,
  decode: Text.storableText,
  encode: (id) => id
})

export const OrgPath = Schema.Struct({ orgId: PathId })

/** `items` and, when more rows exist, the opaque `nextCursor` to pass back as `cursor`. */
export const Page = <A, I>(item: Schema.Schema<A, I, never>) =>
  Schema.Struct({
    items: Schema.Array(item),
    nextCursor: Schema.optional(Schema.String)
  })

export const PageParams = Cursor.PageRequest

export const toPage = <A>(page: { readonly items: ReadonlyArray<A>; readonly nextCursor: string | null }) =>
  page.nextCursor === null ? { items: page.items } : { items: page.items, nextCursor: page.nextCursor }

export const Created = <A, I>(schema: Schema.Schema<A, I, never>): Schema.Schema<A, I, never> =>
  schema.annotations(HttpApiSchema.annotations({ status: 201 }))


/**
 * Request bodies are checked whole and strictly: every offending field is named at once, and a
 * field the route does not know is an error (the OpenAPI document says `additionalProperties:
 * false`), so a misspelt optional field never passes silently.
 */
export const strictPayload = <A, I>(schema: Schema.Schema<A, I, never>): Schema.Schema<A, I, never> =>
  schema.annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
