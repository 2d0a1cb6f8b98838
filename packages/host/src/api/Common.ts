/** Shapes shared by the API groups: organization paths, pages and their query parameters. */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Cursor } from "@image-policy/core"
import * as Schema from "effect/Schema"

const unpairedSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * Whether a string can be stored and looked up as text: no NUL and no unpaired UTF-16 surrogate
 * (JSON and percent-encoding can spell both; PostgreSQL refuses them outright).
 */
export const isStorableText = (text: string): boolean => !text.includes("\u0000") && text.search(unpairedSurrogate) === -1

/** The same text with every character no store can hold replaced by U+FFFD. */
const storable = (text: string): string => text.replaceAll("\u0000", "\uFFFD").replace(unpairedSurrogate, "\uFFFD")

/**
 * Ids in paths are plain strings: a malformed id names nothing in the organization, so it is a 404
 * like any other unknown id (contracts 4), never a 400. Characters no id can hold (NUL, lone
 * surrogates) become U+FFFD, so such an id reaches the store as an ordinary unknown id (404)
 * instead of failing the query (500).
 */
export const PathId = Schema.transform(Schema.String.pipe(Schema.maxLength(200)), Schema.String, {
  strict: true,
  decode: storable,
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
