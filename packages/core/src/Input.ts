/**
 * Requests as the workflows take them. The HTTP API decodes every body before a workflow runs; an
 * embedder calls the workflows with typed values that were never decoded, so the workflows that
 * store what they are given check it against the same schema first (`validate`): a value the schema
 * refuses is an `InvalidInput` naming each field, as the API answers it, never a store's defect.
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export interface FieldError {
  readonly path: string
  readonly message: string
}

/** 400 validation-error: the fields a request schema refuses, each with its path. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  errors: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

/** A schema issue's path as every error of this project names fields: `mappings[3].fromImage`; `root` when empty. */
export const formatPath = (path: ReadonlyArray<PropertyKey>, root = "(body)"): string =>
  path.reduce<string>((acc, s) => typeof s === "number" ? `${acc}[${s}]` : acc === "" ? String(s) : `${acc}.${String(s)}`, "") ||
  root

/** A schema message without the refused value: the parser quotes it ("..., actual \"<value>\""), and it may be anything. */
export const withoutValue = (message: string): string => message.replace(/,\s*actual\b[\s\S]*$/, "")

/** The field errors of a schema's refusal, without the refused values; `root` names the whole value. */
export const fieldErrors = (error: ParseResult.ParseError, root = "(body)"): Array<FieldError> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({ path: formatPath(i.path, root), message: withoutValue(i.message) }))

/** `input` as it is when `schema` accepts it as a value of its type; `InvalidInput` otherwise. */
export const validate = <A, I>(schema: Schema.Schema<A, I, never>, input: A): Effect.Effect<A, InvalidInput> =>
  Effect.mapError(Schema.validate(schema, { errors: "all" })(input), (error) => new InvalidInput({ errors: fieldErrors(error) }))
