/**
 * Which published mapping applies to an image on a repository branch (and platform), and why.
 * The precedence is documented in docs/policy-resolution.md. This file holds its rules (what
 * matches, what applies, which candidate wins, how the outcome is explained) and `resolve`, which
 * applies them to every mapping of the policy: the reference that `ResolutionIndex` must agree with.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { MappingId, PhaseId, PolicyGroupId } from "./Id.js"
import {
  formatImageReference,
  type ImagePattern,
  type ImageReference,
  type InvalidImageReference,
  isPattern,
  matchesPattern,
  normalizeImageReference,
  parseImagePattern,
  patternSpecificity
} from "./ImageReference.js"
import { type InvalidPlatform, normalizePlatformScope } from "./Platform.js"
import type { PublishedMapping } from "./PolicyGroup.js"

export type ResolutionPolicy = ReadonlyArray<{
  readonly group: { readonly id: PolicyGroupId; readonly name: string }
  readonly phases: ReadonlyArray<{ readonly id: string; readonly position: number }>
  readonly published: ReadonlyArray<PublishedMapping>
}>

/**
 * Which published mapping applies to a finding on its branch, and why: the winner of the core's
 * resolution (`ResolutionIndex.decide` over the policy that applies to the branch), never a
 * second implementation.
 */
export const FindingResolution = Schema.Struct({
  toImage: Schema.String,
  policyGroupId: PolicyGroupId,
  phaseId: PhaseId,
  mappingId: MappingId,
  fromImage: Schema.String,
  /** The winner's line of the resolution's `considered` list. */
  reason: Schema.String,
  /** The mapping's own `reason`, when it has one (e.g. "LTS pin"). */
  mappingReason: Schema.optionalKey(Schema.String),
  /** The mapping's platform scope, when it has one: with `fromImage`, the mapping's key (`Mapping.mappingKey`). */
  platformScope: Schema.optionalKey(Schema.String)
})
export type FindingResolution = typeof FindingResolution.Type

/** How a mapping's fromImage matched: exact reference, tag-less repository name, or pattern. */
export type MatchKind = "exact" | "repository" | "pattern"

export interface Considered {
  readonly policyGroupId: PolicyGroupId
  readonly phaseId: string
  readonly mappingId: string
  readonly fromImage: string
  readonly platformScope: string
  readonly matched: boolean
  readonly reason: string
}

export interface Resolved {
  readonly toImage: string
  readonly policyGroupId: PolicyGroupId
  readonly phaseId: string
  readonly mapping: PublishedMapping
}

export interface Resolution {
  readonly image: string
  readonly resolved: Resolved | null
  readonly considered: ReadonlyArray<Considered>
}

const kindRank: Record<MatchKind, number> = { exact: 0, repository: 1, pattern: 2 }

/** A published mapping where the policy puts it; `seq` is its position in policy order. */
export interface Placed {
  readonly seq: number
  readonly groupIndex: number
  readonly groupId: PolicyGroupId
  readonly phasePosition: number
  readonly mapping: PublishedMapping
}

/** A matching mapping that applies, with what precedence compares. */
export interface Candidate extends Omit<Placed, "seq"> {
  readonly kind: MatchKind
  readonly platformSpecific: boolean
  readonly specificity: number
}

/** A mapping's fromImage, parsed once: an exact or tag-less reference, or a wildcard pattern. */
export type Matcher =
  | { readonly kind: "reference"; readonly ref: ImageReference }
  | { readonly kind: "pattern"; readonly pattern: ImagePattern; readonly specificity: number }

/** The matcher of a fromImage; `undefined` when it parses as neither (such a mapping never matches). */
export const matcherOf = (fromImage: string): Matcher | undefined => {
  if (isPattern(fromImage)) {
    const pattern = parseImagePattern(fromImage)
    return Result.isSuccess(pattern)
      ? { kind: "pattern", pattern: pattern.success, specificity: patternSpecificity(pattern.success) }
      : undefined
  }
  const from = normalizeImageReference(fromImage)
  return Result.isSuccess(from) ? { kind: "reference", ref: from.success } : undefined
}

/** The kind of match a matcher makes whenever it matches: it depends on the fromImage alone. */
export const matchKind = (matcher: Matcher): MatchKind =>
  matcher.kind === "pattern"
    ? "pattern"
    : matcher.ref.tag === undefined && matcher.ref.digest === undefined
    ? "repository"
    : "exact"

/** Whether a matcher matches a normalized reference: the one definition of a match. */
export const matches = (matcher: Matcher, ref: ImageReference): boolean => {
  if (matcher.kind === "pattern") return matchesPattern(matcher.pattern, ref)
  const f = matcher.ref
  if (f.domain !== ref.domain || f.path !== ref.path) return false
  return (f.tag === undefined || f.tag === ref.tag) && (f.digest === undefined || f.digest === ref.digest)
}

/**
 * Whether a matching mapping applies to the platform at `now` (epoch ms), or why not. `activeFrom`
 * is the mapping's `Date.parse(activeFrom)`: text that does not parse never delays a mapping.
 */
export const applicability = (
  scope: string,
  activeFrom: number,
  platform: string,
  now: number
): "applies" | "other platform" | "not yet active" =>
  scope !== "" && scope !== platform ? "other platform" : activeFrom > now ? "not yet active" : "applies"

/** The candidate a matching mapping is, once it applies. */
export const candidateOf = (placed: Placed, matcher: Matcher): Candidate => ({
  groupIndex: placed.groupIndex,
  phasePosition: placed.phasePosition,
  groupId: placed.groupId,
  mapping: placed.mapping,
  kind: matchKind(matcher),
  platformSpecific: (placed.mapping.platformScope ?? "") !== "",
  specificity: matcher.kind === "pattern" ? matcher.specificity : 0
})

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Candidates in precedence order: first wins; of equal candidates, the first in policy order. Two
 * mappings of one phase can still tie (`nginx:1` and `nginx@sha256:…` both match `nginx:1@sha256:…`
 * exactly): the lower key (normalized fromImage and scope, unique in a phase) wins, never the id, so
 * the same mappings decide alike wherever they are published (a server's random ids, the
 * `map_entry_<i>` of a file read by `check --mappings`).
 */
export const compareCandidates = (a: Candidate, b: Candidate): number =>
  kindRank[a.kind] - kindRank[b.kind] ||
  Number(b.platformSpecific) - Number(a.platformSpecific) ||
  (a.mapping.order ?? Number.MAX_SAFE_INTEGER) - (b.mapping.order ?? Number.MAX_SAFE_INTEGER) ||
  b.specificity - a.specificity ||
  a.groupIndex - b.groupIndex ||
  a.phasePosition - b.phasePosition ||
  compareText(a.mapping.key, b.mapping.key) ||
  compareText(a.mapping.id, b.mapping.id)

/** The winner's line of `considered`: it depends on the winner alone. */
export const describeWin = (c: Candidate): string =>
  `selected: ${c.kind} match${c.platformSpecific ? ", platform-specific" : ""}${
    c.mapping.order !== undefined ? `, order ${c.mapping.order}` : ""
  }`

const describeLoss = (c: Candidate, winner: Candidate) => {
  if (kindRank[c.kind] > kindRank[winner.kind]) return `matched (${c.kind}) but an ${winner.kind} match takes precedence`
  if (winner.platformSpecific && !c.platformSpecific) return "matched but a platform-specific mapping takes precedence"
  if ((c.mapping.order ?? Number.MAX_SAFE_INTEGER) !== (winner.mapping.order ?? Number.MAX_SAFE_INTEGER)) {
    return "matched but a mapping with a lower order takes precedence"
  }
  if (c.specificity !== winner.specificity) return "matched but a more specific pattern takes precedence"
  if (c.groupIndex !== winner.groupIndex) return "matched but an earlier policy group takes precedence"
  if (c.phasePosition !== winner.phasePosition) return "matched but an earlier phase takes precedence"
  if (c.mapping.key !== winner.mapping.key) return "matched but tied; the lower mapping key takes precedence"
  return "matched but tied; the lower mapping id takes precedence"
}

/** The `resolved` part of a resolution won by a candidate. */
export const resolvedBy = (c: Candidate): Resolved => ({
  toImage: c.mapping.toImage,
  policyGroupId: c.groupId,
  phaseId: c.mapping.phaseId,
  mapping: c.mapping
})

/** Every mapping of the policy in policy order (groups as given, then published order), matcher or not. */
export const eachMapping = (policy: ResolutionPolicy, f: (m: Placed) => void): void => {
  let seq = 0
  policy.forEach(({ group, phases, published }, groupIndex) => {
    const positions = new Map(phases.map((p) => [p.id, p.position]))
    for (const mapping of published) {
      f({ seq: seq++, groupIndex, groupId: group.id, phasePosition: positions.get(mapping.phaseId) ?? Number.MAX_SAFE_INTEGER, mapping })
    }
  })
}

const row = (m: Omit<Placed, "seq">, scope: string, matched: boolean, reason: string): Considered => ({
  policyGroupId: m.groupId,
  phaseId: m.mapping.phaseId,
  mappingId: m.mapping.id,
  fromImage: m.mapping.fromImage,
  platformScope: scope,
  matched,
  reason
})

/**
 * The resolution, with its `considered` list, from the mappings that match the image, given in
 * policy order (the list follows it, and of equal candidates the first wins).
 */
export const explainMatches = (
  ref: ImageReference,
  platform: string,
  now: number,
  matching: ReadonlyArray<{ readonly placed: Placed; readonly matcher: Matcher }>
): Resolution => {
  // rows of mappings that did not apply are final; candidates get their reason once the winner is known
  const rows: Array<Considered | Candidate> = []
  let winner: Candidate | undefined
  for (const { matcher, placed } of matching) {
    const { mapping } = placed
    const scope = mapping.platformScope ?? ""
    const applies = applicability(scope, Date.parse(mapping.activeFrom), platform, now)
    if (applies === "other platform") {
      rows.push(row(placed, scope, false, `platform ${scope} does not apply to ${platform || "an unspecified platform"}`))
    } else if (applies === "not yet active") {
      rows.push(row(placed, scope, false, `not yet active (from ${mapping.activeFrom})`))
    } else {
      const candidate = candidateOf(placed, matcher)
      if (winner === undefined || compareCandidates(candidate, winner) < 0) winner = candidate
      rows.push(candidate)
    }
  }
  return {
    image: formatImageReference(ref),
    resolved: winner === undefined ? null : resolvedBy(winner),
    considered: rows.map((r) =>
      "matched" in r ? r : row(r, r.mapping.platformScope ?? "", true, r === winner ? describeWin(r) : describeLoss(r, winner!))
    )
  }
}

export interface ResolveInput {
  readonly image: string
  readonly platform?: string | undefined
  readonly now: Date
}

/** The image normalized and the platform in its canonical form ("" when none is given). */
export const parseInput = (
  input: ResolveInput
): Result.Result<readonly [ImageReference, string], InvalidImageReference | InvalidPlatform> => {
  const ref = normalizeImageReference(input.image)
  if (Result.isFailure(ref)) return Result.fail(ref.failure)
  const platform = normalizePlatformScope(input.platform)
  if (Result.isFailure(platform)) return Result.fail(platform.failure)
  return Result.succeed([ref.success, platform.success] as const)
}

/**
 * Resolves one image by reading every mapping of the policy. For many images against the same
 * policy, build a `ResolutionIndex` once: its answers are the same (a property test checks it).
 */
export const resolve = (
  input: ResolveInput & { readonly policy: ResolutionPolicy }
): Result.Result<Resolution, InvalidImageReference | InvalidPlatform> =>
  Result.map(parseInput(input), ([ref, platform]) => {
    const matching: Array<{ placed: Placed; matcher: Matcher }> = []
    eachMapping(input.policy, (placed) => {
      const matcher = matcherOf(placed.mapping.fromImage)
      // unrelated mappings are not listed: `considered` stays readable
      if (matcher !== undefined && matches(matcher, ref)) matching.push({ placed, matcher })
    })
    return explainMatches(ref, platform, input.now.getTime(), matching)
  })
