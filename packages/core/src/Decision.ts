/**
 * One image reference decided against a policy: the answer of the decision API (RPC `Resolve`) and
 * of the `check` command, online and offline, so a reference is never judged by two rules. The
 * winner comes from `ResolutionIndex.decide` (as a finding's, `Scan.resolveFinding`); an approved,
 * unexpired snooze request naming the image or the winner's fromImage suppresses it, as it
 * suppresses remediation (`Remediation.plan`).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { RepositoryId, SnoozeRequestId } from "./Id.js"
import { formatImageReference, normalizedText } from "./ImageReference.js"
import { normalizedFrom } from "./Mapping.js"
import { FindingResolution, parseInput } from "./Resolution.js"
import * as ResolutionIndex from "./ResolutionIndex.js"
import type { Finding } from "./Scanner.js"
import { isActive, type SnoozeRequest } from "./SnoozeRequest.js"

/** What is asked: an image as written or normalized, and where it is used. */
export const DecisionRequest = Schema.Struct({
  image: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  platform: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(100))),
  /** The repository whose assignments apply; without it, only the groups that apply to every repository. */
  repositoryId: Schema.optionalKey(RepositoryId),
  /** A tracked branch of that repository (default: its default branch). */
  branch: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)))
})
export type DecisionRequest = typeof DecisionRequest.Type

/** The approved snooze request that suppresses a decision. */
export const Snoozed = Schema.Struct({
  snoozeRequestId: SnoozeRequestId,
  /** ISO 8601: when the snooze ends. */
  until: Schema.String
})
export type Snoozed = typeof Snoozed.Type

export const Decision = Schema.Struct({
  /** The image as asked. */
  image: Schema.String,
  /** Its canonical form, when it is a valid reference. */
  normalized: Schema.optionalKey(Schema.String),
  /** The canonical platform, when one was given. */
  platform: Schema.optionalKey(Schema.String),
  /** The published mapping that applies, and why; null: no mapping applies. */
  resolution: Schema.NullOr(FindingResolution),
  /** Set when an active snooze request suppresses the replacement (never when the mapping asks for this very image). */
  snoozed: Schema.optionalKey(Snoozed),
  /** Set when the reference cannot be decided: which field is wrong and why (then `resolution` is null). */
  invalid: Schema.optionalKey(Schema.Struct({ field: Schema.Literals(["image", "platform"]), message: Schema.String }))
})
export type Decision = typeof Decision.Type

/** Approved snooze requests not past `until`, by the normalized image they name. */
export type ActiveSnoozes = ReadonlyMap<string, SnoozeRequest>

export const activeSnoozes = (snoozes: ReadonlyArray<SnoozeRequest>, now: Date): ActiveSnoozes => {
  const active = new Map<string, SnoozeRequest>()
  for (const s of snoozes) if (isActive(s, now)) active.set(normalizedFrom(s.fromImage), s)
  return active
}

/** The snooze request that suppresses replacing `normalizedImage` by the mapping from `fromImage`, if any. */
export const snoozeFor = (active: ActiveSnoozes, normalizedImage: string, fromImage: string): SnoozeRequest | undefined =>
  // most repositories have no snooze: nothing to parse then
  active.size === 0 ? undefined : active.get(normalizedImage) ?? active.get(normalizedFrom(fromImage))

/** Whether two image texts name the same image (as written, or once normalized). */
export const sameImage = (a: string, b: string): boolean =>
  a === b || Result.getOrElse(normalizedText(a), () => a) === Result.getOrElse(normalizedText(b), () => b)

/** Decides one reference at `now` against an indexed policy and the active snoozes of its repository. */
export const decide = (
  index: ResolutionIndex.ResolutionIndex,
  active: ActiveSnoozes,
  request: { readonly image: string; readonly platform?: string | undefined },
  now: Date
): Decision => withSnoozes(active, decideUnsnoozed(index, request, now))

/**
 * The decision on one reference before any snooze: the same for every repository the policy applies
 * to, and for every instant of one of the index's epochs (`ResolutionIndex.epochAt`).
 */
export const decideUnsnoozed = (
  index: ResolutionIndex.ResolutionIndex,
  request: { readonly image: string; readonly platform?: string | undefined },
  now: Date
): Decision => {
  // parsed once: the index searches with the reference, the answer shows its canonical forms
  const parsed = parseInput({ image: request.image, platform: request.platform, now })
  if (Result.isFailure(parsed)) {
    const field = parsed.failure._tag === "InvalidPlatform" ? "platform" : "image"
    return { image: request.image, resolution: null, invalid: { field, message: parsed.failure.message } }
  }
  const [ref, platform] = parsed.success
  // built field by field, not by spreading: objects made by spreads serialize at half the speed,
  // and the decision API writes one per reference
  const normalized = formatImageReference(ref)
  const decision: { -readonly [K in keyof Decision]: Decision[K] } = platform === ""
    ? { image: request.image, normalized, resolution: null }
    : { image: request.image, normalized, platform, resolution: null }
  const winner = ResolutionIndex.decideParsed(index, ref, platform, now)
  if (winner !== null) decision.resolution = ResolutionIndex.toFindingResolution(winner)
  return decision
}

/**
 * A decision with the repository's snooze that suppresses its replacement, if any. A snooze
 * suppresses a replacement: an image its mapping already asks for has none (in policy, not snoozed).
 */
export const withSnoozes = (active: ActiveSnoozes, decision: Decision): Decision => {
  const { resolution } = decision
  if (resolution === null || decision.normalized === undefined) return decision
  const snooze = snoozeFor(active, decision.normalized, resolution.fromImage)
  if (snooze === undefined || sameImage(resolution.toImage, decision.image)) return decision
  return { ...decision, snoozed: { snoozeRequestId: snooze.id, until: snooze.until } }
}

/**
 * What a finding asks: its image as the file states it, for its platform; undefined when the image
 * is not known (built from variables or templates the scanner does not evaluate), which no decision
 * can judge. Every reader of findings (remediation, `check`, the decision API's callers) asks this.
 */
export const requestOf = (
  finding: Pick<Finding, "image" | "platform">
): { readonly image: string; readonly platform?: string } | undefined =>
  finding.image === undefined
    ? undefined
    : finding.platform === undefined
    ? { image: finding.image }
    : { image: finding.image, platform: finding.platform }

/** Out of policy: a mapping applies, asks for another image, and no snooze suppresses it. */
export const isOutOfPolicy = (decision: Decision): boolean =>
  decision.resolution !== null && decision.snoozed === undefined && !sameImage(decision.resolution.toImage, decision.image)
