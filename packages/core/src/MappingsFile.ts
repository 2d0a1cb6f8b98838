/**
 * External mappings files (`service-mappings.json`, spec 2 "External mappings file"): decoding, the
 * sync diff and activation times. The file is the complete source of its phase: a mapping absent
 * from a later version is removed.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { MappingId, PhaseId, PolicyGroupId, type VcsConnectionId } from "./Id.js"
import { fieldErrors } from "./Input.js"
import { type FieldError, MappingInput, mappingKey, sameContent, validateMappingInput } from "./Mapping.js"
import { externalPhases, type ExternalSource, type PolicyGroup, type PublishedMapping } from "./PolicyGroup.js"
import type { ResolutionPolicy } from "./Resolution.js"
import { storableText } from "./Text.js"

export const maxEntries = 10_000

export class InvalidMappingsFile extends Schema.TaggedError<InvalidMappingsFile>()("InvalidMappingsFile", {
  errors: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  override get message() {
    return this.errors.slice(0, 5).map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}

const FileSchema = Schema.Struct({ mappings: Schema.Array(MappingInput).check(Schema.isMaxLength(maxEntries)) })
const decodeFile = Schema.decodeUnknownResult(FileSchema, { errors: "all", onExcessProperty: "error" })

/** `mappings[3].fromimage` style paths from a parse error (the file's values are not repeated). */
const issuesToErrors = (error: Schema.SchemaError): Array<FieldError> => fieldErrors(error, "(root)")

/**
 * Decodes a file whole: unknown fields, bad references and duplicate keys are all reported with their
 * paths. A leading byte-order mark (editors that save "UTF-8 with BOM") is not part of the JSON.
 */
export const decodeMappingsFile = (text: string): Result.Result<ReadonlyArray<MappingInput>, InvalidMappingsFile> => {
  let json: unknown
  try {
    json = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text)
  } catch {
    return Result.fail(new InvalidMappingsFile({ errors: [{ path: "(root)", message: "not valid JSON" }] }))
  }
  const decoded = decodeFile(json)
  if (Result.isFailure(decoded)) return Result.fail(new InvalidMappingsFile({ errors: issuesToErrors(decoded.failure) }))
  const errors: Array<FieldError> = []
  const valid: Array<MappingInput> = []
  const seen = new Map<string, number>()
  decoded.success.mappings.forEach((entry, i) => {
    const checked = validateMappingInput(entry, { source: "file", pathPrefix: `mappings[${i}].` })
    if (Result.isFailure(checked)) {
      errors.push(...checked.failure.errors)
      return
    }
    const key = mappingKey(checked.success.fromImage, checked.success.platformScope)
    const first = seen.get(key)
    if (first !== undefined) {
      errors.push({ path: `mappings[${i}]`, message: `duplicates mappings[${first}] (same fromImage and platformScope)` })
      return
    }
    seen.set(key, i)
    valid.push(checked.success)
  })
  return errors.length > 0 ? Result.fail(new InvalidMappingsFile({ errors })) : Result.succeed(valid)
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

// A file read on its own (`image-policy check --mappings`) ----------------------------------------

/** The one policy group and phase a file read on its own stands for. */
export const fileGroupId = Schema.decodeSync(PolicyGroupId)("pg_mappings_file")
export const filePhaseId = Schema.decodeSync(PhaseId)("ph_mappings_file")

/** The id of `mappings[index]` of a file read on its own: the same file gives the same ids, and an id names its entry. */
export const fileMappingId = (index: number): MappingId => Schema.decodeSync(MappingId)(`map_entry_${index}`)

/**
 * A decoded file as a policy of its own, for deciding without a server (`check --mappings`): one
 * group with one phase whose published mappings are the file's entries, in file order, each active
 * as a sync at `now` would make it with no cooldown (the organization's cooldown is a server
 * setting; the file's own `applicableDateTime` still holds: `activationTime`).
 */
export const filePolicy = (file: ReadonlyArray<MappingInput>, now: Date): ResolutionPolicy => {
  const { published } = applySync({
    phaseId: filePhaseId,
    current: [],
    file,
    now,
    cooldownSeconds: 0,
    ids: file.map((_, i) => fileMappingId(i))
  })
  return [{ group: { id: fileGroupId, name: "mappings file" }, phases: [{ id: filePhaseId, position: 0 }], published }]
}

// Syncing a phase from its file (spec 3 "external phase" row) -----------------------------------

/** Why a phase's file could not be read, when the reason is the phase's own configuration. */
export type SourceProblem = "repository-or-branch-not-found" | "connection-inactive" | "connection-missing"

/** What reading the phase's file at the head of its branch found. */
export type SourceRead =
  | { readonly _tag: "Found"; readonly content: string; readonly version: string }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Unreachable"; readonly problem: SourceProblem }

/**
 * What a sync does with what it read:
 * - `Unchanged`: the phase already reflects this read (the same file version, or the same problem
 *   again): nothing is written and nothing is emitted;
 * - `Rejected`: the published mappings stay as they are; the phase records `lastError` and the
 *   version that was refused (`null` when there was no file to refuse);
 * - `Accepted`: the file is valid and becomes the phase's complete set of mappings.
 */
export type SyncDecision =
  | { readonly _tag: "Unchanged"; readonly version: string | null }
  | { readonly _tag: "Rejected"; readonly version: string | null; readonly lastError: string }
  | { readonly _tag: "Accepted"; readonly version: string; readonly mappings: ReadonlyArray<MappingInput> }

/** `lastError` texts are short and name at most the phase's own file name (never a directory, a provider message or a token). */
export const maxErrorLength = 500

/** The last segment of the phase's path: the only part of a path an error text names. */
export const fileNameOf = (path: string): string => path.split("/").filter((s) => s !== "").pop() ?? path

// storable as well: a file's keys may hold any text, and a cut may split a surrogate pair
const clip = (text: string) => storableText(text.length <= maxErrorLength ? text : `${text.slice(0, maxErrorLength - 1)}…`)

/** The `lastError` of a file that failed validation: its first problems with their JSON paths. */
export const invalidFileError = (path: string, error: InvalidMappingsFile): string => {
  const shown = error.errors.slice(0, 3).map((e) => `${e.path}: ${e.message}`).join("; ")
  const more = error.errors.length > 3 ? ` (and ${error.errors.length - 3} more)` : ""
  return clip(`${fileNameOf(path)} is not valid and was not applied: ${shown}${more}`)
}

/** The `lastError` of a file that could not be read for a reason of the phase's own configuration. */
export const sourceProblemError = (path: string, problem: SourceProblem | "missing"): string => {
  switch (problem) {
    case "missing":
      return clip(`${fileNameOf(path)} was not found on the branch; the published mappings were kept`)
    case "repository-or-branch-not-found":
      return "the provider does not know the repository or the branch of this phase; the published mappings were kept"
    case "connection-inactive":
      return "the VCS connection of this phase is inactive; the published mappings were kept"
    case "connection-missing":
      return "the VCS connection of this phase no longer exists; the published mappings were kept"
  }
}

/**
 * Decides what a sync does. `lastVersion` is the version the phase last processed, applied or
 * refused, so the same version is never processed twice; a problem without a file (missing file,
 * unknown branch) records no version, so the file's return is always processed, even with the
 * content it had before.
 */
export const decideSync = (
  source: Pick<ExternalSource, "path" | "lastVersion" | "lastError">,
  read: SourceRead
): SyncDecision => {
  if (read._tag === "Found") {
    if (read.version === source.lastVersion) return { _tag: "Unchanged", version: read.version }
    const decoded = decodeMappingsFile(read.content)
    return Result.isFailure(decoded)
      ? { _tag: "Rejected", version: read.version, lastError: invalidFileError(source.path, decoded.failure) }
      : { _tag: "Accepted", version: read.version, mappings: decoded.success }
  }
  const lastError = sourceProblemError(source.path, read._tag === "Missing" ? "missing" : read.problem)
  return source.lastVersion === null && source.lastError === lastError
    ? { _tag: "Unchanged", version: null }
    : { _tag: "Rejected", version: null, lastError }
}

// Provider pushes -----------------------------------------------------------------------------

/**
 * A push that says when it happened (GitHub does) is refused past this age: a delivery captured and
 * replayed later is not a fresh change. Pushes without a time are judged by their delivery id only.
 */
export const maxPushAgeMs = 5 * 60_000

/** Whether a push that happened at `pushedAt` (epoch ms, when the provider says) is too old at `now`. */
export const isStalePush = (pushedAt: number | undefined, now: number): boolean => pushedAt !== undefined && now - pushedAt > maxPushAgeMs

/** A push reported by a provider's webhook, reduced to what decides which phases it concerns. */
export interface Push {
  readonly repositoryFullName: string
  /** The pushed ref as both providers send it, e.g. `refs/heads/main`. */
  readonly ref: string
  /**
   * Every path the pushed commits added, modified or removed, or `null` when the provider's list
   * may be incomplete (too many commits, a force push, a new branch): then any push to the branch
   * concerns the phase, and the sync's version check keeps it cheap.
   */
  readonly changedPaths: ReadonlyArray<string> | null
}

/** `refs/heads/main` -> `main`; tags and other refs are no branch. */
export const branchOfRef = (ref: string): string | undefined =>
  ref.startsWith("refs/heads/") && ref.length > "refs/heads/".length ? ref.slice("refs/heads/".length) : undefined

/** A repository-relative path without leading `/` or `./`. */
export const normalizePath = (path: string): string => path.replace(/^(?:\.?\/)+/, "")

/**
 * Whether a push concerns a phase's file: the same repository (provider names are
 * case-insensitive), the phase's branch exactly, and the file among the changed paths when the
 * provider listed them all. A push to another branch or touching other files does nothing.
 */
export const pushTouches = (
  source: Pick<ExternalSource, "repositoryFullName" | "branch" | "path">,
  push: Push
): boolean =>
  push.repositoryFullName.toLowerCase() === source.repositoryFullName.toLowerCase() &&
  branchOfRef(push.ref) === source.branch &&
  (push.changedPaths === null || push.changedPaths.some((p) => normalizePath(p) === normalizePath(source.path)))

/** The external phases of a connection that a push concerns, across the organization's groups. */
export const phasesTouchedByPush = (
  groups: ReadonlyArray<PolicyGroup>,
  vcsConnectionId: VcsConnectionId,
  push: Push
): ReadonlyArray<{ readonly policyGroupId: PolicyGroupId; readonly phaseId: PhaseId }> =>
  groups.flatMap((group) =>
    externalPhases(group)
      .filter((phase) => phase.external.vcsConnectionId === vcsConnectionId && pushTouches(phase.external, push))
      .map((phase) => ({ policyGroupId: group.id, phaseId: phase.id }))
  )
