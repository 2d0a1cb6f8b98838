/**
 * Remediation pull/merge requests (spec section 3: publish opens none at once; section 6: the
 * remediation family). On its routine's schedule, a tracked branch whose findings have an active
 * published mapping gets one request that rewrites those references; an open request of the branch
 * is updated, never duplicated.
 */
import * as Schema from "effect/Schema"
import { activeSnoozes, decide, type Decision, isOutOfPolicy, requestOf } from "./Decision.js"
import { MappingId, PhaseId, PolicyGroupId, RemediationId, RepositoryId, ScanId } from "./Id.js"
import type { FindingResolution } from "./Resolution.js"
import type { ResolutionIndex } from "./ResolutionIndex.js"
import type { Finding } from "./Scanner.js"
import type { SnoozeRequest } from "./SnoozeRequest.js"
import type { VcsProviderError, VcsWriteRejected } from "./Vcs.js"

/** Machine-readable failure codes, the same as the `failure_kind` of the `.failed` event. */
export const RemediationFailure = Schema.Literals(["provider-unavailable", "permission-denied", "conflict", "rate-limited"])
export type RemediationFailure = typeof RemediationFailure.Type

/** One rewritten reference: where it is, what it was, what it becomes, and which mapping says so. */
export const RemediationChange = Schema.Struct({
  file: Schema.String,
  line: Schema.Int,
  column: Schema.Int,
  /** The text as written in the file before the change. */
  from: Schema.String,
  /** The mapping's exact `toImage`, written in its place. */
  to: Schema.String,
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId,
  mappingId: MappingId,
  /** The mapping's own reason, if any, and why it won (the resolution's reason), listed in the request body. */
  reason: Schema.String
})
export type RemediationChange = typeof RemediationChange.Type

/**
 * `open`: the provider holds an open request for the branch (`number`, `url`). `failed`: the last
 * attempt failed (`failure`); `superseded`: a later request replaced it (the provider's request was
 * merged or closed, so a new one was opened). `closed`: the service stopped following it because its
 * branch or repository is no longer tracked (the provider's request itself is left to its owners).
 * `merged`: the provider told (its webhook) that it merged the request (`mergedAt`); final.
 */
export const RemediationStatus = Schema.Literals(["open", "failed", "superseded", "closed", "merged"])
export type RemediationStatus = typeof RemediationStatus.Type

export const RemediationRequest = Schema.Struct({
  id: RemediationId,
  repositoryId: RepositoryId,
  /** The tracked branch the request targets (its base). */
  branchName: Schema.String,
  /** The branch holding the changes, derived from `branchName` only (no secret in it). */
  headBranch: Schema.String,
  status: RemediationStatus,
  failure: Schema.NullOr(RemediationFailure),
  /** The provider's pull/merge request number and web URL (null when opening failed). */
  number: Schema.NullOr(Schema.Int),
  url: Schema.NullOr(Schema.String),
  /** The scan whose findings the changes come from. */
  scanId: ScanId,
  changes: Schema.Array(RemediationChange),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  /** When the provider merged the request (ISO 8601, UTC), for status `merged`; otherwise null. */
  mergedAt: Schema.NullOr(Schema.String)
})
export type RemediationRequest = typeof RemediationRequest.Type

/**
 * The request once the provider merged its pull/merge request `number` at `mergedAt` (the
 * provider's time, else the receipt's; `at` = now): only a request the service opened under that
 * number, whether still `open` or already `superseded` or `closed` (the webhook can arrive after a
 * later run or an untracking), and not a failed attempt. Undefined when the merge does not concern
 * it or it is `merged` already (a second delivery changes nothing).
 */
export const merge = (
  request: RemediationRequest,
  number: number,
  mergedAt: string,
  at: string
): RemediationRequest | undefined =>
  request.number !== number || request.status === "failed" || request.status === "merged"
    ? undefined
    : { ...request, status: "merged", mergedAt, updatedAt: at }

// Planning -----------------------------------------------------------------------------------------

export interface PlanInput {
  /** The branch's current findings (`scans.allFindings`). */
  readonly findings: ReadonlyArray<Finding>
  /** The branch's policy (the groups that apply to it), indexed. */
  readonly policy: ResolutionIndex
  /** The repository's snooze requests, whatever their status; only active ones suppress. */
  readonly snoozes: ReadonlyArray<SnoozeRequest>
  readonly now: Date
}

/** A finding with the decision on what it asks (`Decision.requestOf`); undefined when its image is not known. */
export interface DecidedFinding {
  readonly finding: Finding
  readonly decision: Decision | undefined
}

/**
 * The change one finding asks for, given the decision on its image (decided here or by a server),
 * or undefined. Only a reference written as the literal image can be rewritten: not one built from
 * ARGs, variables or templates, nor a YAML string whose escapes make its text differ from its
 * value; and only when the decision is out of policy (a mapping applies, asks for another image,
 * and no snooze suppresses it).
 */
export const changeOf = (finding: Finding, decision: Decision | undefined): RemediationChange | undefined => {
  if (decision === undefined || finding.image === undefined || finding.reference !== finding.image) return undefined
  // a decision on another text is not this finding's
  if (decision.image !== finding.image || !isOutOfPolicy(decision) || decision.resolution === null) return undefined
  const winner = decision.resolution
  return {
    file: finding.file,
    line: finding.line,
    column: finding.column,
    from: finding.reference,
    to: winner.toImage,
    policyGroupId: winner.policyGroupId,
    phaseId: winner.phaseId,
    mappingId: winner.mappingId,
    reason: reasonOf(winner)
  }
}

/** Why a mapping asks for its image, as a change lists it: the mapping's own reason, if any, and why it won. */
export const reasonOf = (resolution: FindingResolution): string =>
  resolution.mappingReason === undefined ? resolution.reason : `${resolution.mappingReason} (${resolution.reason})`

const byPlace = (a: { file: string; line: number; column: number }, b: typeof a) =>
  (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column

/**
 * The references to rewrite, by (file, line, column): each finding's `changeOf`. One place in a
 * file can be read for several platforms (YAML anchors): it changes only when every reading asks
 * for the same new image.
 */
export const changesOf = (decided: Iterable<DecidedFinding>): ReadonlyArray<RemediationChange> => {
  const byKey = new Map<string, { change: RemediationChange | undefined; agreed: boolean }>()
  for (const { decision, finding } of decided) {
    const key = `${finding.line}:${finding.column}:${finding.file}`
    const change = changeOf(finding, decision)
    const seen = byKey.get(key)
    if (seen === undefined) byKey.set(key, { change, agreed: change !== undefined })
    else if (seen.change === undefined || change === undefined || seen.change.to !== change.to) seen.agreed = false
  }
  const out: Array<RemediationChange> = []
  for (const { agreed, change } of byKey.values()) if (agreed && change !== undefined) out.push(change)
  return out.sort(byPlace)
}

/**
 * The references a remediation request rewrites (`changesOf`), each finding decided at `now`
 * (`Decision.decide`): a change when its image is known and written literally, a published mapping
 * that is active at `now` applies to it (resolution leaves out mappings still in cooldown), that
 * mapping's `toImage` is another image, and no approved, unexpired snooze request names the
 * finding's image or the mapping's `fromImage`.
 */
export const plan = (input: PlanInput): ReadonlyArray<RemediationChange> => {
  const active = activeSnoozes(input.snoozes, input.now)
  return changesOf(input.findings.map((finding) => {
    const request = requestOf(finding)
    return { finding, decision: request === undefined ? undefined : decide(input.policy, active, request, input.now) }
  }))
}

// Rewriting ----------------------------------------------------------------------------------------

export interface Rewrite {
  /** The new content: the old one with each applied change's `from` replaced by its `to`. */
  readonly content: string
  readonly applied: ReadonlyArray<RemediationChange>
  /** Changes whose text at line:column is not `from` (the file moved since the scan) or that overlap an applied one. */
  readonly skipped: ReadonlyArray<RemediationChange>
}

/** Start and end (exclusive, before the line break) of every line; `\r\n`, `\r` and `\n` end a line, as in the scanner. */
const lineBounds = (content: string) => {
  const starts = [0]
  const ends: Array<number> = []
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i)
    if (c !== 10 && c !== 13) continue
    ends.push(i)
    if (c === 13 && content.charCodeAt(i + 1) === 10) i++
    starts.push(i + 1)
  }
  ends.push(content.length)
  return { starts, ends }
}

/**
 * Replaces each change's `from` at its line:column (1-based; columns in UTF-16 code units, a
 * byte-order mark counting as one, as the scanner reports them) with its `to`, and keeps every
 * other character: line endings, comments, quotes, indentation, the byte-order mark. The `file` of
 * the changes is not looked at: pass the changes of one file.
 */
export const rewrite = (content: string, changes: ReadonlyArray<RemediationChange>): Rewrite => {
  const { ends, starts } = lineBounds(content)
  const located = changes.map((change) => {
    const start = starts[change.line - 1]
    const offset = start === undefined || change.column < 1 ? -1 : start + change.column - 1
    const fits = offset >= 0 && change.from.length > 0 && offset + change.from.length <= ends[change.line - 1]! &&
      content.startsWith(change.from, offset)
    return { change, offset: fits ? offset : -1 }
  }).sort((a, b) => a.offset - b.offset)
  const applied: Array<RemediationChange> = []
  const skipped: Array<RemediationChange> = []
  let out = ""
  let at = 0
  for (const { change, offset } of located) {
    if (offset < at) {
      skipped.push(change)
      continue
    }
    out += content.slice(at, offset) + change.to
    at = offset + change.from.length
    applied.push(change)
  }
  return { content: out + content.slice(at), applied, skipped }
}

// The request ---------------------------------------------------------------------------------------

const headPrefix = "image-policy/remediate/"
const maxHeadNameLength = 100

/** cyrb53 (a small public-domain string hash): 53 bits, enough to tell branch names apart. */
const hash53 = (text: string): string => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)
}

/**
 * One path component made safe for every git ref rule (`git check-ref-format`) and every provider:
 * only `[A-Za-z0-9._-]`, no leading or doubled dot, no `.lock` ending.
 */
const safeComponent = (component: string) =>
  component.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/\.{2,}/g, ".").replace(/^\.+/, "").replace(/\.lock$/i, "-lock")

/** No trailing `/`, `.` or `.lock` (what a cut at the length limit can leave). */
const trimTail = (name: string) => {
  let out = name
  for (;;) {
    const next = out.replace(/\/+$/, "").replace(/\.+$/, "").replace(/\.lock$/i, "-lock")
    if (next === out) return out
    out = next
  }
}

/**
 * The branch holding a request's changes: `image-policy/remediate/<base branch>`, derived from the
 * base branch name alone (no secret can reach it) and the same on every run, so a later run updates
 * the same request. A name that had to be changed to be a valid, portable ref (spaces, `~^:?*[\`,
 * `@`, control or non-ASCII characters, `..`, `.lock`, over 100 characters) gets a hash of the
 * original name appended, so two base branches do not share a head branch.
 */
export const headBranchFor = (branchName: string): string => {
  const cleaned = branchName.split("/").map(safeComponent).filter((c) => c !== "").join("/")
  const name = trimTail(cleaned.slice(0, maxHeadNameLength))
  if (name === branchName && name !== "") return headPrefix + name
  const suffix = hash53(branchName)
  return headPrefix + (name === "" ? suffix : `${name}-${suffix}`)
}

/** The request's title (no secret: the base branch name only). */
export const title = (branchName: string): string => `Update container images on ${branchName}`

/** A Markdown code span that shows `text` as it is, whatever backticks it holds. */
const code = (text: string) => {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = "`".repeat(longest + 1)
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : ""
  return `${fence}${pad}${text.replace(/[\r\n]+/g, " ")}${pad}${fence}`
}

/** Markdown text outside code spans: characters that would format, link or embed HTML are escaped. */
const plain = (text: string) => text.replace(/[\r\n]+/g, " ").replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`)

/** GitHub refuses bodies over 65,536 characters; the list stops in time and says how many are left out. */
const maxBodyLength = 60_000

/**
 * The request's body: what it does, then every change (`file:line`, `from` -> `to`, and the
 * policy group, phase and mapping that ask for it, with the resolution's reason), in Markdown.
 */
export const body = (branchName: string, changes: ReadonlyArray<RemediationChange>): string => {
  const head = [
    `This request updates ${changes.length === 1 ? "1 container image reference" : `${changes.length} container image references`} on ${
      code(branchName)
    } to the images the published image policy maps them to.`,
    "",
    "Each change names the policy group, phase and mapping that apply and why that mapping won. Other text in the files is unchanged.",
    "",
    "## Changes",
    ""
  ].join("\n")
  const lines: Array<string> = []
  let length = head.length
  for (const [i, c] of changes.entries()) {
    const line = `- ${code(`${c.file}:${c.line}`)}: ${code(c.from)} -> ${code(c.to)} (group ${code(c.policyGroupId)}, phase ${
      code(c.phaseId)
    }, mapping ${code(c.mappingId)}): ${plain(c.reason)}`
    if (length + line.length + 1 > maxBodyLength) {
      lines.push(`- ... and ${changes.length - i} more (see the diff)`)
      break
    }
    lines.push(line)
    length += line.length + 1
  }
  return `${head}${lines.join("\n")}\n`
}

/** The `failure_kind` of a failed attempt to open or update the request (the `.failed` event). */
export const failureKind = (error: VcsProviderError | VcsWriteRejected): RemediationFailure => {
  if (error._tag === "VcsWriteRejected") {
    return error.reason === "conflict" ? "conflict" : error.reason === "forbidden" ? "permission-denied" : "provider-unavailable"
  }
  return error.reason === "rate-limited" ? "rate-limited" : error.reason === "unauthorized" ? "permission-denied" : "provider-unavailable"
}
