/**
 * Requests as the workflows take them. The HTTP API decodes every body before a workflow runs; an
 * embedder calls the workflows with typed values that were never decoded, so the workflows that
 * store what they are given check it against the same schema first (`validate`): a value the schema
 * refuses is an `InvalidInput` naming each field, as the API answers it, never a store's defect.
 *
 * `fieldErrors` is the one formatter of schema refusals in this project (problem bodies, seed files,
 * mappings files): every list of field errors a user reads comes from it.
 */
import * as Effect from "effect/Effect"
import { format } from "effect/Formatter"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"

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

/** A path segment as schema issues report it (Standard Schema allows `{ key }` segments). */
export type PathSegment = PropertyKey | { readonly key: PropertyKey }

/** A schema issue's path as every error of this project names fields: `mappings[3].fromImage`; `root` when empty. */
export const formatPath = (path: ReadonlyArray<PathSegment>, root = "(body)"): string =>
  path.reduce<string>((acc, segment) => {
    const s = typeof segment === "object" ? segment.key : segment
    return typeof s === "number" ? `${acc}[${s}]` : acc === "" ? String(s) : `${acc}.${String(s)}`
  }, "") || root

export interface FieldErrorsOptions {
  /**
   * Append the refused value (`Expected "enterprise", actual "gold"`) where the issue carries it,
   * that is when the value was decoded with `reportInput: true`. Only for files the user wrote
   * (a seed file): request bodies may hold secrets pasted into the wrong field.
   */
  readonly withValues?: boolean
}

// Effect 3's wording, which users, docs and tests know: `is missing`, `is unexpected, expected: "a" | "b"`.
const missingKey = "is missing"
const unexpectedKey = (ast: SchemaAST.AST): string =>
  SchemaAST.isObjects(ast) && ast.propertySignatures.length > 0
    ? `is unexpected, expected: ${ast.propertySignatures.map((p) => format(String(p.name))).join(" | ")}`
    : "is unexpected"

const stringAt = (annotations: { readonly [key: string]: unknown } | undefined, key: string): string | undefined => {
  const value = annotations?.[key]
  return typeof value === "string" ? value : undefined
}

/** A message the schema's author gave the node (`message`, `messageMissingKey`, `messageUnexpectedKey`). */
const ownMessage = (issue: SchemaIssue.Issue): string | undefined => {
  switch (issue._tag) {
    case "Pointer":
    case "Composite":
      return undefined // their ast describes the whole schema, not the failure
    case "Encoding":
      return ownMessage(issue.issue)
    case "Filter":
      return stringAt(issue.filter.annotations, "message")
    case "MissingKey":
      return stringAt(issue.annotations, "messageMissingKey")
    case "UnexpectedKey":
      return stringAt(issue.ast.annotations, "messageUnexpectedKey")
    case "InvalidValue":
    case "Forbidden":
      return stringAt(issue.annotations, "message")
    default:
      return stringAt(issue.ast.annotations, "message")
  }
}

// the refused value, in Effect 3's form (`, actual "gold"`), when asked for and reported by the parser
const actual = (issue: SchemaIssue.Issue, withValues: boolean): string =>
  withValues && SchemaIssue.hasInput(issue) ? `, actual ${format(issue.input)}` : ""

const effectFormatter = SchemaIssue.makeFormatterDefault()

// Effect 4's "Expected ..." text of a node, computed on a copy that carries no input: the value never leaks
const expectedOf = (issue: SchemaIssue.InvalidType | SchemaIssue.AnyOf): string =>
  issue._tag === "AnyOf"
    ? effectFormatter(new SchemaIssue.AnyOf(issue.ast, []))
    : SchemaIssue.defaultLeafHook(new SchemaIssue.InvalidType(issue.ast))

const expectedOfCheck = (check: SchemaAST.Check<unknown>): string => {
  const expected = check.annotations?.expected
  if (typeof expected === "string") return expected
  return check._tag === "FilterGroup" ? check.checks.map(expectedOfCheck).join(" & ") : "a valid value"
}

const leafMessage = (issue: SchemaIssue.Leaf | SchemaIssue.AnyOf, withValues: boolean): string => {
  const own = ownMessage(issue)
  if (own !== undefined) return own
  switch (issue._tag) {
    case "MissingKey":
      return missingKey
    case "UnexpectedKey":
      return unexpectedKey(issue.ast)
    case "InvalidType":
    case "AnyOf":
      return `${expectedOf(issue)}${actual(issue, withValues)}`
    case "InvalidValue":
      return `Expected ${stringAt(issue.annotations, "expected") ?? "a valid value"}${actual(issue, withValues)}`
    case "Forbidden":
      return "is forbidden"
    case "OneOf":
      return `Expected exactly one member to match${actual(issue, withValues)}`
  }
}

// a failed check speaks for its value; a check that points into the value lets the inner issue speak
const filterMessage = (issue: SchemaIssue.Filter, withValues: boolean): string | undefined => {
  const own = ownMessage(issue) ?? ownMessage(issue.issue)
  if (own !== undefined || issue.issue._tag !== "InvalidValue") return own
  const expected = stringAt(issue.issue.annotations, "expected") ?? expectedOfCheck(issue.filter)
  return `Expected ${expected}${actual(issue.issue, withValues)}`
}

interface Complaint extends FieldError {
  /**
   * Which member of the unions around it the complaint came from (`.0.1`: the second member of a
   * union inside the first member of another), or `undefined` outside any union
   */
  readonly member: string | undefined
}

const walk = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  root: string,
  withValues: boolean,
  member: string | undefined,
  message?: string
): Array<Complaint> => {
  switch (issue._tag) {
    case "Filter":
      return walk(issue.issue, path, root, withValues, member, message ?? filterMessage(issue, withValues))
    case "Encoding":
      return walk(issue.issue, path, root, withValues, member, message)
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path], root, withValues, member, message)
    case "Composite":
      return issue.issues.flatMap((inner) => walk(inner, path, root, withValues, member, message))
    case "AnyOf":
      if (issue.issues.length > 0) {
        return issue.issues.flatMap((inner, i) => walk(inner, path, root, withValues, `${member ?? ""}.${i}`, message))
      }
  }
  return [{ path: formatPath(path, root), message: message ?? leafMessage(issue, withValues), member }]
}

/**
 * One message per path, as Effect 3 reported them: the members of a union that each expected
 * something else (`Expected "inherit"`, `Expected "none"`) become `Expected "inherit" | "none"`;
 * otherwise the first complaint wins (with `errors: "all"` Effect 4 reports every failing check of
 * one value, Effect 3 stopped at the first). Two checks one member failed are never joined: either
 * alone refuses the value.
 */
const onePerPath = (complaints: ReadonlyArray<Complaint>): Array<FieldError> => {
  const byPath = new Map<string, Array<Complaint>>()
  for (const complaint of complaints) {
    const list = byPath.get(complaint.path) ?? []
    if (!list.some((c) => c.message === complaint.message)) list.push(complaint)
    byPath.set(complaint.path, list)
  }
  return Array.from(byPath, ([path, list]) => {
    // each member's first complaint
    const members = new Map<string | undefined, Complaint>()
    for (const c of list) if (!members.has(c.member)) members.set(c.member, c)
    const alternatives = Array.from(members.values())
    const expected = alternatives.every((c) =>
      c.member !== undefined && c.message.startsWith("Expected ") && !/,\s*actual\b/.test(c.message)
    )
    return {
      path,
      message: expected && alternatives.length > 1
        ? `Expected ${alternatives.map((c) => c.message.slice("Expected ".length)).join(" | ")}`
        : list[0]!.message
    }
  })
}

/**
 * The field errors of a schema's refusal, one per path; `root` names the whole value. Without
 * `withValues` no refused value is repeated.
 */
export const fieldErrors = (
  error: Schema.SchemaError | SchemaIssue.Issue,
  root = "(body)",
  options?: FieldErrorsOptions
): Array<FieldError> => {
  const issue = Schema.isSchemaError(error) ? error.issue : error
  return onePerPath(walk(issue, [], root, options?.withValues === true, undefined))
}

/** `input` as it is when `schema` accepts it as a value of its type; `InvalidInput` otherwise. */
export const validate = <A, I>(schema: Schema.Codec<A, I>, input: A): Effect.Effect<A, InvalidInput> =>
  Effect.mapError(
    Schema.decodeUnknownEffect(Schema.toType(schema))(input, { errors: "all" }),
    (error) => new InvalidInput({ errors: fieldErrors(error) })
  )
