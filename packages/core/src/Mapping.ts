/**
 * Image mappings (spec 2 "Image mapping", rule 8; contracts 5 "Mapping POST upserts by key").
 * A mapping is identified by its normalized fromImage and its platform scope (absent == "").
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { MappingId, PhaseId, PolicyGroupId } from "./Id.js"
import { formatImagePattern, isExactReference, isPattern, normalizedText, parseImagePattern } from "./ImageReference.js"
import type * as Input from "./Input.js"
import { IsoDateTime } from "./IsoDateTime.js"
import { normalizePlatformScope, PlatformScope } from "./Platform.js"
import { isStorableText, StorableString, unstorableMessage } from "./Text.js"

// free text is storable text: a mapping from a file or an embedder's call is refused with the
// field's path, as the HTTP API refuses it, instead of failing in the store (PostgreSQL)
export const MappingInput = Schema.Struct({
  fromImage: StorableString.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  toImage: StorableString.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  reason: Schema.optionalKey(StorableString.check(Schema.isMaxLength(2000))),
  platformScope: Schema.optionalKey(PlatformScope),
  mappingContext: Schema.optionalKey(StorableString.check(Schema.isMaxLength(500))),
  applicableDateTime: Schema.optionalKey(IsoDateTime),
  bypassCooldown: Schema.optionalKey(Schema.Boolean),
  order: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })))
})
export type MappingInput = typeof MappingInput.Type

export const Mapping = Schema.Struct({
  id: MappingId,
  key: Schema.String,
  ...MappingInput.fields,
  // checked when given (MappingInput); a stored mapping reads back as it was stored, also one stored
  // before the date rule became stricter
  applicableDateTime: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type Mapping = typeof Mapping.Type

/** A mapping in a phase's draft (not live until its group is published, rule 9). */
export type DraftMapping = Mapping & { readonly phaseId: PhaseId }

/** A field and what is wrong with it (the shape of every validation error here). */
export type FieldError = Input.FieldError

export class InvalidMapping extends Schema.TaggedError<InvalidMapping>()("InvalidMapping", {
  errors: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

/** A mapping id in a path that names no draft (nor, on an external phase, published mapping) of the phase. */
export class MappingNotFound extends Schema.TaggedError<MappingNotFound>()("MappingNotFound", {
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId,
  mappingId: Schema.String
}) {
  override get message() {
    return `no mapping ${this.mappingId} in this phase`
  }
}

/** Fields that only an external mappings file may set (spec 2, "external file only"). */
export const fileOnlyFields = ["mappingContext", "applicableDateTime", "bypassCooldown", "order"] as const

/**
 * Checks a mapping beyond its schema: fromImage is a reference (or, in files, a pattern); toImage
 * is exact and never a pattern; the API refuses file-only fields. The platform scope is normalized.
 * `pathPrefix` prefixes error paths (e.g. `mappings[3].`).
 */
export const validateMappingInput = (
  input: MappingInput,
  options: { readonly source: "api" | "file"; readonly pathPrefix?: string }
): Result.Result<MappingInput, InvalidMapping> => {
  const prefix = options.pathPrefix ?? ""
  const errors: Array<FieldError> = []
  if (isPattern(input.fromImage)) {
    if (options.source === "api") {
      errors.push({ path: `${prefix}fromImage`, message: "wildcards are only allowed in external mappings files" })
    } else if (Result.isFailure(parseImagePattern(input.fromImage))) {
      errors.push({ path: `${prefix}fromImage`, message: "not a valid image reference pattern" })
    }
  } else {
    const from = normalizedText(input.fromImage)
    if (Result.isFailure(from)) errors.push({ path: `${prefix}fromImage`, message: from.failure.message })
  }
  if (!isExactReference(input.toImage)) {
    errors.push({
      path: `${prefix}toImage`,
      message: "must be an exact image reference: a valid reference with a tag or a digest and no wildcard"
    })
  }
  // an embedder's typed input has not been through MappingInput's decoder: the text rule holds anyway
  for (const field of ["reason", "mappingContext"] as const) {
    const text = input[field]
    if (text !== undefined && !isStorableText(text)) errors.push({ path: `${prefix}${field}`, message: unstorableMessage })
  }
  if (options.source === "api") {
    for (const field of fileOnlyFields) {
      if (input[field] !== undefined) {
        errors.push({ path: `${prefix}${field}`, message: "only an external mappings file may set this field" })
      }
    }
  }
  const scope = normalizePlatformScope(input.platformScope)
  if (Result.isFailure(scope)) errors.push({ path: `${prefix}platformScope`, message: scope.failure.message })
  if (errors.length > 0) return Result.fail(new InvalidMapping({ errors }))
  const { platformScope: _scope, ...rest } = input
  const canonical = Result.getOrThrow(scope)
  return Result.succeed(canonical === "" ? rest : { ...rest, platformScope: canonical })
}

/** The normalized form of a fromImage (reference or pattern); the input itself when it does not parse. */
export const normalizedFrom = (fromImage: string): string =>
  isPattern(fromImage)
    ? Result.getOrElse(Result.map(parseImagePattern(fromImage), formatImagePattern), () => fromImage)
    : Result.getOrElse(normalizedText(fromImage), () => fromImage)

/** Mapping identity: normalized fromImage + canonical platform scope (absent == ""). */
export const mappingKey = (fromImage: string, platformScope?: string): string =>
  `${normalizedFrom(fromImage)}|${Result.getOrElse(normalizePlatformScope(platformScope), () => platformScope ?? "")}`

const content = (
  m: MappingInput
) => [m.fromImage, m.toImage, m.reason, m.platformScope, m.mappingContext, m.applicableDateTime, m.bypassCooldown, m.order]

/** Whether two mappings say the same thing (ids and timestamps aside). */
export const sameContent = (a: MappingInput, b: MappingInput): boolean => {
  const x = content(a)
  const y = content(b)
  return x.every((v, i) => v === y[i])
}

/** Copies the input's fields, leaving absent optional fields absent. */
const fieldsOf = (input: MappingInput): MappingInput => {
  const out: Record<string, unknown> = { fromImage: input.fromImage, toImage: input.toImage }
  for (const k of ["reason", "platformScope", ...fileOnlyFields] as const) {
    if (input[k] !== undefined) out[k] = input[k]
  }
  return out as MappingInput
}

/**
 * Spec rule 8: a draft with the same key is updated in place (id and createdAt kept); the same
 * request applied twice equals applying it once ("unchanged", updatedAt kept).
 */
export const upsertDraft = <M extends Mapping>(
  drafts: ReadonlyArray<M>,
  input: MappingInput,
  ctx: { readonly id: MappingId; readonly now: string }
): { readonly mappings: ReadonlyArray<Mapping>; readonly mapping: Mapping; readonly outcome: "created" | "updated" | "unchanged" } => {
  const key = mappingKey(input.fromImage, input.platformScope)
  const index = drafts.findIndex((d) => d.key === key)
  const existing = index === -1 ? undefined : drafts[index]
  if (existing === undefined) {
    const mapping: Mapping = { id: ctx.id, key, ...fieldsOf(input), createdAt: ctx.now, updatedAt: ctx.now }
    return { mappings: [...drafts, mapping], mapping, outcome: "created" }
  }
  if (sameContent(existing, input)) return { mappings: drafts, mapping: existing, outcome: "unchanged" }
  const mapping: Mapping = { id: existing.id, key, ...fieldsOf(input), createdAt: existing.createdAt, updatedAt: ctx.now }
  return { mappings: drafts.map((d, i) => (i === index ? mapping : d)), mapping, outcome: "updated" }
}
