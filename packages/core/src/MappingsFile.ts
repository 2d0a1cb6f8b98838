/**
 * External mappings files (`service-mappings.json`, spec 2 "External mappings file"): decoding, the
 * sync diff and activation times. The file is the complete source of its phase: a mapping absent
 * from a later version is removed.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { MappingId, PhaseId } from "./Id.js"
import { type FieldError, mappingKey, MappingInput, sameContent, validateMappingInput } from "./Mapping.js"
import type { PublishedMapping } from "./PolicyGroup.js"

export const maxEntries = 10_000

export class InvalidMappingsFile extends Schema.TaggedError<InvalidMappingsFile>()("InvalidMappingsFile", {
  errors: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  override get message() {
    return this.errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

const FileSchema = Schema.Struct({ mappings: Schema.Array(MappingInput).pipe(Schema.maxItems(maxEntries)) })
const decodeFile = Schema.decodeUnknownEither(FileSchema, { errors: "all", onExcessProperty: "error" })

/** `mappings[3].fromimage` style paths from a parse error. */
const issuesToErrors = (error: ParseResult.ParseError): Array<FieldError> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: issue.path.reduce<string>(
      (acc, segment) => typeof segment === "number" ? `${acc}[${segment}]` : acc === "" ? String(segment) : `${acc}.${String(segment)}`,
      ""
    ) || "(root)",
    message: issue.message
  }))

/** Decodes a file whole: unknown fields, bad references and duplicate keys are all reported with their paths. */
export const decodeMappingsFile = (text: string): Either.Either<ReadonlyArray<MappingInput>, InvalidMappingsFile> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Either.left(new InvalidMappingsFile({ errors: [{ path: "(root)", message: "not valid JSON" }] }))
  }
  const decoded = decodeFile(json)
  if (Either.isLeft(decoded)) return Either.left(new InvalidMappingsFile({ errors: issuesToErrors(decoded.left) }))
  const errors: Array<FieldError> = []
  const valid: Array<MappingInput> = []
  const seen = new Map<string, number>()
  decoded.right.mappings.forEach((entry, i) => {
    const checked = validateMappingInput(entry, { source: "file", pathPrefix: `mappings[${i}].` })
    if (Either.isLeft(checked)) {
      errors.push(...checked.left.errors)
      return
    }
    const key = mappingKey(checked.right.fromImage, checked.right.platformScope)
    const first = seen.get(key)
    if (first !== undefined) {
      errors.push({ path: `mappings[${i}]`, message: `duplicates mappings[${first}] (same fromImage and platformScope)` })
      return
    }
    seen.set(key, i)
    valid.push(checked.right)
  })
  return errors.length > 0 ? Either.left(new InvalidMappingsFile({ errors })) : Either.right(valid)
}

export const encodeMappingsFile = (mappings: ReadonlyArray<MappingInput>): string => JSON.stringify({ mappings }, null, 2)

export interface MappingsDiff {
  readonly added: ReadonlyArray<MappingInput>
  readonly changed: ReadonlyArray<{ readonly before: PublishedMapping; readonly after: MappingInput }>
  readonly removed: ReadonlyArray<PublishedMapping>
  readonly unchanged: ReadonlyArray<PublishedMapping>
}

export const diffMappings = (current: ReadonlyArray<PublishedMapping>, next: ReadonlyArray<MappingInput>): MappingsDiff => {
  const byKey = new Map(current.map((m) => [m.key, m]))
  const added: Array<MappingInput> = []
  const changed: Array<{ before: PublishedMapping; after: MappingInput }> = []
  const unchanged: Array<PublishedMapping> = []
  for (const entry of next) {
    const key = mappingKey(entry.fromImage, entry.platformScope)
    const before = byKey.get(key)
    byKey.delete(key)
    if (before === undefined) added.push(entry)
    else if (sameContent(before, entry)) unchanged.push(before)
    else changed.push({ before, after: entry })
  }
  return { added, changed, removed: [...byKey.values()], unchanged }
}

/**
 * When a file change takes effect. Normally `now + cooldown`, never before `applicableDateTime`;
 * `bypassCooldown` skips the cooldown but still honours `applicableDateTime`, because that date is
 * the author's explicit intent while the cooldown is the organization's safety default.
 */
export const activationTime = (input: {
  readonly now: Date
  readonly cooldownSeconds: number
  readonly applicableDateTime?: string | undefined
  readonly bypassCooldown?: boolean | undefined
}): string => {
  const earliest = input.now.getTime() + (input.bypassCooldown === true ? 0 : input.cooldownSeconds * 1000)
  const applicable = input.applicableDateTime === undefined ? Number.NEGATIVE_INFINITY : Date.parse(input.applicableDateTime)
  return new Date(Math.max(earliest, applicable)).toISOString()
}

/**
 * Applies a decoded file to its phase's published mappings. Unchanged mappings keep id, createdAt
 * and activeFrom, so applying the same file twice changes nothing; changed ones keep id and createdAt.
 */
export const applySync = (input: {
  readonly phaseId: PhaseId
  readonly current: ReadonlyArray<PublishedMapping>
  readonly file: ReadonlyArray<MappingInput>
  readonly now: Date
  readonly cooldownSeconds: number
  /** Fresh ids for added mappings, at least as many as the file has entries. */
  readonly ids: ReadonlyArray<MappingId>
}): { readonly published: ReadonlyArray<PublishedMapping>; readonly diff: MappingsDiff } => {
  const diff = diffMappings(input.current, input.file)
  const nowText = input.now.toISOString()
  const activeFrom = (m: MappingInput) =>
    activationTime({
      now: input.now,
      cooldownSeconds: input.cooldownSeconds,
      applicableDateTime: m.applicableDateTime,
      bypassCooldown: m.bypassCooldown
    })
  const live = (m: MappingInput, id: MappingId, createdAt: string): PublishedMapping => ({
    ...m,
    id,
    key: mappingKey(m.fromImage, m.platformScope),
    phaseId: input.phaseId,
    createdAt,
    updatedAt: nowText,
    activeFrom: activeFrom(m)
  })
  const changed = new Map(diff.changed.map((c) => [c.before.key, c]))
  const unchanged = new Map(diff.unchanged.map((m) => [m.key, m]))
  let nextId = 0
  const published = input.file.map((m) => {
    const key = mappingKey(m.fromImage, m.platformScope)
    const kept = unchanged.get(key)
    if (kept) return kept
    const change = changed.get(key)
    if (change) return live(change.after, change.before.id, change.before.createdAt)
    const id = input.ids[nextId++]
    if (id === undefined) throw new Error("applySync: not enough ids for the added mappings")
    return live(m, id, nowText)
  })
  return { published, diff }
}
