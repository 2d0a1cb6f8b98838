/**
 * Which published mapping applies to an image on a repository branch (and platform), and why.
 * The precedence is documented in docs/policy-resolution.md; this file is its only implementation.
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
 * resolution (`Resolution.resolveCompiled` over the policy that applies to the branch), never a
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
  mappingReason: Schema.optionalKey(Schema.String)
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

export interface Resolution {
  readonly image: string
  readonly resolved: {
    readonly toImage: string
    readonly policyGroupId: PolicyGroupId
    readonly phaseId: string
    readonly mapping: PublishedMapping
  } | null
  readonly considered: ReadonlyArray<Considered>
}

const kindRank: Record<MatchKind, number> = { exact: 0, repository: 1, pattern: 2 }

interface Candidate {
  readonly groupIndex: number
  readonly phasePosition: number
  readonly groupId: PolicyGroupId
  readonly mapping: PublishedMapping
  readonly kind: MatchKind
  readonly platformSpecific: boolean
  readonly specificity: number
}

const sameRepository = (a: ImageReference, b: ImageReference) => a.domain === b.domain && a.path === b.path

/** A mapping's fromImage, parsed once: an exact or tag-less reference, or a wildcard pattern. */
export type Matcher =
  | { readonly kind: "reference"; readonly ref: ImageReference }
  | { readonly kind: "pattern"; readonly pattern: ImagePattern; readonly specificity: number }

/**
 * A glob's literal ends: text without `*` must equal; text with `*` must start with what precedes
 * the first `*` and end with what follows the last one. Only a necessary condition of
 * `matchesPattern`, which stays the one definition of a match; it lets the index skip most
 * patterns without running their regular expressions.
 */
interface GlobEnds {
  readonly literal: boolean
  readonly text: string
  readonly prefix: string
  readonly suffix: string
}

const globEnds = (glob: string): GlobEnds => {
  const first = glob.indexOf("*")
  return first < 0
    ? { literal: true, text: glob, prefix: glob, suffix: "" }
    : { literal: false, text: glob, prefix: glob.slice(0, first), suffix: glob.slice(glob.lastIndexOf("*") + 1) }
}

const mayMatch = (ends: GlobEnds, value: string): boolean =>
  ends.literal
    ? value === ends.text
    : value.length >= ends.prefix.length + ends.suffix.length && value.startsWith(ends.prefix) && value.endsWith(ends.suffix)

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

const matchWith = (matcher: Matcher, ref: ImageReference): { kind: MatchKind; specificity: number } | undefined => {
  if (matcher.kind === "pattern") {
    return matchesPattern(matcher.pattern, ref) ? { kind: "pattern", specificity: matcher.specificity } : undefined
  }
  const f = matcher.ref
  if (!sameRepository(f, ref)) return undefined
  if (f.tag === undefined && f.digest === undefined) return { kind: "repository", specificity: 0 }
  const tagOk = f.tag === undefined || f.tag === ref.tag
  const digestOk = f.digest === undefined || f.digest === ref.digest
  return tagOk && digestOk ? { kind: "exact", specificity: 0 } : undefined
}

/** Candidates in precedence order: first wins. */
export const compareCandidates = (a: Candidate, b: Candidate): number =>
  kindRank[a.kind] - kindRank[b.kind] ||
  Number(b.platformSpecific) - Number(a.platformSpecific) ||
  (a.mapping.order ?? Number.MAX_SAFE_INTEGER) - (b.mapping.order ?? Number.MAX_SAFE_INTEGER) ||
  b.specificity - a.specificity ||
  a.groupIndex - b.groupIndex ||
  a.phasePosition - b.phasePosition ||
  (a.mapping.id < b.mapping.id ? -1 : a.mapping.id > b.mapping.id ? 1 : 0)

const describeWin = (c: Candidate) =>
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
  return "matched but tied; the lower mapping id takes precedence"
}

/** A published mapping with what resolution needs precomputed; `seq` is its position in the policy. */
export interface CompiledMapping {
  readonly seq: number
  readonly groupIndex: number
  readonly groupId: PolicyGroupId
  readonly phasePosition: number
  readonly mapping: PublishedMapping
  readonly matcher: Matcher
  /** Patterns: the literal ends of each path segment and of the tag (see `mayMatch`). */
  readonly ends?: { readonly segments: ReadonlyArray<GlobEnds>; readonly tag: GlobEnds | undefined }
}

/**
 * A policy indexed for many resolutions: reference mappings (exact and tag-less) bucketed by
 * normalized repository (`domain/path`); patterns bucketed by domain, segment count and their
 * rightmost path segment without a wildcard (its position and text), or `*` when every segment has
 * one. A reference looks in its repository's bucket, in one pattern bucket per path segment, and
 * in the `*` bucket. Build it once with `compile`, resolve with `resolveCompiled`. Mappings whose
 * fromImage does not parse are left out: they never match.
 */
export interface CompiledPolicy {
  readonly size: number
  readonly byRepository: ReadonlyMap<string, ReadonlyArray<CompiledMapping>>
  readonly patterns: ReadonlyMap<string, ReadonlyArray<CompiledMapping>>
}

const repositoryKey = (domain: string, path: string) => `${domain}/${path}`
const patternKey = (domain: string, segments: number, position: number | "*", literal = "") =>
  `${domain}|${segments}|${position}|${literal}`

/** Every mapping of the policy in policy order (groups as given, then published order), matcher or not. */
const eachMapping = (
  policy: ResolutionPolicy,
  f: (m: Omit<CompiledMapping, "matcher">) => void
): void => {
  let seq = 0
  policy.forEach(({ group, phases, published }, groupIndex) => {
    const positions = new Map(phases.map((p) => [p.id, p.position]))
    for (const mapping of published) {
      f({ seq: seq++, groupIndex, groupId: group.id, phasePosition: positions.get(mapping.phaseId) ?? Number.MAX_SAFE_INTEGER, mapping })
    }
  })
}

export const compile = (policy: ResolutionPolicy): CompiledPolicy => {
  const byRepository = new Map<string, Array<CompiledMapping>>()
  const patterns = new Map<string, Array<CompiledMapping>>()
  let size = 0
  const push = (index: Map<string, Array<CompiledMapping>>, key: string, entry: CompiledMapping) => {
    const bucket = index.get(key)
    if (bucket === undefined) index.set(key, [entry])
    else bucket.push(entry)
  }
  eachMapping(policy, (m) => {
    size++
    const matcher = matcherOf(m.mapping.fromImage)
    if (matcher === undefined) return
    if (matcher.kind === "reference") {
      push(byRepository, repositoryKey(matcher.ref.domain, matcher.ref.path), { ...m, matcher })
    } else {
      const { domain, segments, tag } = matcher.pattern
      const ends = { segments: segments.map(globEnds), tag: tag === undefined ? undefined : globEnds(tag) }
      let position = segments.length - 1
      while (position >= 0 && segments[position]!.includes("*")) position--
      const key = position < 0
        ? patternKey(domain, segments.length, "*")
        : patternKey(domain, segments.length, position, segments[position])
      push(patterns, key, { ...m, matcher, ends })
    }
  })
  return { size, byRepository, patterns }
}

const row = (
  m: Omit<CompiledMapping, "matcher" | "seq">,
  scope: string,
  matched: boolean,
  reason: string
): Considered => ({
  policyGroupId: m.groupId,
  phaseId: m.mapping.phaseId,
  mappingId: m.mapping.id,
  fromImage: m.mapping.fromImage,
  platformScope: scope,
  matched,
  reason
})

/** Collects the matching mappings (fed in policy order) into candidates and the `considered` list. */
const decide = (
  ref: ImageReference,
  platform: string,
  now: number,
  matches: ReadonlyArray<readonly [Omit<CompiledMapping, "matcher" | "seq">, { kind: MatchKind; specificity: number }]>
): Resolution => {
  // rows of mappings that did not apply are final; candidates get their reason once the winner is known
  const rows: Array<Considered | Candidate> = []
  let winner: Candidate | undefined
  for (const [m, match] of matches) {
    const { mapping } = m
    const scope = mapping.platformScope ?? ""
    if (scope !== "" && scope !== platform) {
      rows.push(row(m, scope, false, `platform ${scope} does not apply to ${platform || "an unspecified platform"}`))
      continue
    }
    if (Date.parse(mapping.activeFrom) > now) {
      rows.push(row(m, scope, false, `not yet active (from ${mapping.activeFrom})`))
      continue
    }
    const candidate: Candidate = {
      groupIndex: m.groupIndex,
      phasePosition: m.phasePosition,
      groupId: m.groupId,
      mapping,
      kind: match.kind,
      platformSpecific: scope !== "",
      specificity: match.specificity
    }
    // the first of equal candidates wins, as the first element of a stable sort would
    if (winner === undefined || compareCandidates(candidate, winner) < 0) winner = candidate
    rows.push(candidate)
  }
  return {
    image: formatImageReference(ref),
    resolved: winner === undefined ? null : {
      toImage: winner.mapping.toImage,
      policyGroupId: winner.groupId,
      phaseId: winner.mapping.phaseId,
      mapping: winner.mapping
    },
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

const parseInput = (input: ResolveInput): Result.Result<readonly [ImageReference, string], InvalidImageReference | InvalidPlatform> => {
  const ref = normalizeImageReference(input.image)
  if (Result.isFailure(ref)) return Result.fail(ref.failure)
  const platform = normalizePlatformScope(input.platform)
  if (Result.isFailure(platform)) return Result.fail(platform.failure)
  return Result.succeed([ref.success, platform.success] as const)
}

/**
 * Resolves one image by reading every mapping of the policy. For many images against the same
 * policy, `compile` once and use `resolveCompiled`: the answer is the same.
 */
export const resolve = (
  input: ResolveInput & { readonly policy: ResolutionPolicy }
): Result.Result<Resolution, InvalidImageReference | InvalidPlatform> =>
  Result.map(parseInput(input), ([ref, platform]) => {
    const matches: Array<readonly [Omit<CompiledMapping, "matcher">, { kind: MatchKind; specificity: number }]> = []
    eachMapping(input.policy, (m) => {
      const matcher = matcherOf(m.mapping.fromImage)
      const match = matcher === undefined ? undefined : matchWith(matcher, ref)
      // unrelated mappings are not listed: `considered` stays readable
      if (match !== undefined) matches.push([m, match])
    })
    return decide(ref, platform, input.now.getTime(), matches)
  })

const none: ReadonlyArray<CompiledMapping> = []

/** `resolve` over a compiled policy: the same winner and the same `considered` list, in the same order. */
export const resolveCompiled = (
  compiled: CompiledPolicy,
  input: ResolveInput
): Result.Result<Resolution, InvalidImageReference | InvalidPlatform> =>
  Result.map(parseInput(input), ([ref, platform]) => {
    const segments = ref.path.split("/")
    const matches: Array<readonly [CompiledMapping, { kind: MatchKind; specificity: number }]> = []
    for (const entry of compiled.byRepository.get(repositoryKey(ref.domain, ref.path)) ?? none) {
      const match = matchWith(entry.matcher, ref)
      if (match !== undefined) matches.push([entry, match])
    }
    const tryPatterns = (bucket: ReadonlyArray<CompiledMapping> | undefined) => {
      for (const entry of bucket ?? none) {
        const ends = entry.ends!
        if (ends.tag !== undefined && (ref.tag === undefined || !mayMatch(ends.tag, ref.tag))) continue
        if (!ends.segments.every((e, i) => mayMatch(e, segments[i]!))) continue
        const match = matchWith(entry.matcher, ref)
        if (match !== undefined) matches.push([entry, match])
      }
    }
    for (let position = 0; position < segments.length; position++) {
      tryPatterns(compiled.patterns.get(patternKey(ref.domain, segments.length, position, segments[position])))
    }
    tryPatterns(compiled.patterns.get(patternKey(ref.domain, segments.length, "*")))
    // each bucket is in policy order; together they must be too (`considered` and tie-breaks follow it)
    matches.sort((a, b) => a[0].seq - b[0].seq)
    return decide(ref, platform, input.now.getTime(), matches)
  })
