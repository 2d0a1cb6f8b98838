/** Shapes shared by the API groups: organization paths, pages and their query parameters. */
import { Cursor, Text } from "@image-policy/core"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"

/**
 * Ids in paths are plain strings: a malformed id names nothing in the organization, so it is a 404
 * like any other unknown id (contracts 4), never a 400. Characters no id can hold (NUL, lone
 * surrogates) become U+FFFD, so such an id reaches the store as an ordinary unknown id (404)
 * instead of failing the query (500).
 */
export const PathId = Schema.String.check(Schema.isMaxLength(200)).pipe(
  Schema.decodeTo(Schema.String, SchemaTransformation.transform({ decode: Text.storableText, encode: (id: string) => id }))
)

/**
 * A path id typed as the core's id of that kind (same brand), checked only as `PathId` is: the
 * store answers an id of the wrong shape as unknown (404).
 */
export const pathId = <B extends string>(brand: B) =>
  // generic B cannot prove EnsureSingleBrandKey<B>; each call passes one literal brand
  PathId.pipe(Schema.brand<B>(brand as B & never))

export const OrgPath = { orgId: pathId("OrgId") }

/** `items` and, when more rows exist, the opaque `nextCursor` to pass back as `cursor`. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    items: Schema.Array(item),
    nextCursor: Schema.optionalKey(Schema.String)
  })

export const PageParams = Cursor.PageRequest

/**
 * A yes/no query parameter: `true`/`1` or `false`/`0` (anything else is a 400 naming it),
 * decoded to a boolean so no handler compares strings.
 */
export const QueryFlag = Schema.Literals(["1", "0", "true", "false"]).pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({
      decode: (s: "1" | "0" | "true" | "false") => s === "1" || s === "true",
      encode: (b: boolean): "1" | "0" | "true" | "false" => (b ? "true" : "false")
    })
  )
)

/** A store page as the API answers it: `nextCursor` only when more rows exist (other fields kept). */
export const toPage = <P extends { readonly nextCursor: string | null }>(
  { nextCursor, ...rest }: P
): Omit<P, "nextCursor"> & { readonly nextCursor?: string } => nextCursor === null ? rest : { ...rest, nextCursor }
