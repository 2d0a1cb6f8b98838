/**
 * A policy indexed for many resolutions (a branch scan's findings, a report, a remediation plan).
 * It answers what `Resolution.resolve` answers, applying the same rules (`Resolution.matches`,
 * `applicability`, `compareCandidates`): the index only decides which mappings are worth asking.
 *
 * - Precedence depends on the mapping alone (its match kind follows from its fromImage), so `build`
 *   ranks every mapping once with `compareCandidates`; the winner is then the applying match of the
 *   lowest rank, and every bucket below is kept in rank order so a search stops at its first
 *   applying match, and skips buckets whose best rank cannot win any more.
 * - Exact and tag-less fromImages are found by hash: the registry and the repository path, then
 *   the tag or the digest. Such a bucket holds only mappings that match every image looked up in it
 *   (a fromImage with both a tag and a digest, filed by digest, is still asked for its tag).
 * - Patterns sit in a prefix tree: the registry, then one level per path segment, a literal segment
 *   by hash and a segment with `*` as a branch tried when its literal ends fit; a pattern ends at
 *   the level of its last segment, so the depth is the segment count.
 *
 * `decide` gives the winner and its reason; `explain` gives the whole `Resolution` with its
 * `considered` list, only when asked (the REST resolve's answer, an explanation of a finding).
 */
import * as Result from "effect/Result"
import type { ImageReference, InvalidImageReference } from "./ImageReference.js"
import type { InvalidPlatform } from "./Platform.js"
import {
  applicability,
  candidateOf,
  compareCandidates,
  describeWin,
  eachMapping,
  explainMatches,
  type FindingResolution,
  type Matcher,
  matcherOf,
  matches,
  matchKind,
  parseInput,
  type Placed,
  type Resolution,
  type ResolutionPolicy,
  type Resolved,
  resolvedBy,
  type ResolveInput
} from "./Resolution.js"

/** The outcome of `decide` when a mapping applies: `Resolution.resolved` and the winner's reason. */
export interface Decision {
  readonly resolved: Resolved
  /** The winner's line of the `considered` list `explain` would give. */
  readonly reason: string
}

/** A decision as the API shows it: the winner's ids, images and reasons (a finding's `resolution`). */
export const toFindingResolution = ({ reason, resolved }: Decision): FindingResolution => {
  // built field by field, not by spreading: objects made by spreads serialize at half the speed,
  // and the decision API writes one per reference
  const resolution: { -readonly [K in keyof FindingResolution]: FindingResolution[K] } = {
    toImage: resolved.toImage,
    policyGroupId: resolved.policyGroupId,
    phaseId: resolved.mapping.phaseId,
    mappingId: resolved.mapping.id,
    fromImage: resolved.mapping.fromImage,
    reason
  }
  if (resolved.mapping.reason !== undefined && resolved.mapping.reason !== "") resolution.mappingReason = resolved.mapping.reason
  if (resolved.mapping.platformScope !== undefined && resolved.mapping.platformScope !== "") {
    resolution.platformScope = resolved.mapping.platformScope
  }
  return resolution
}

/**
 * A glob's literal ends: text without `*` must equal; text with `*` must start with what precedes
 * the first `*` and end with what follows the last one. A necessary condition of a match only: a
 * mapping is still asked `Resolution.matches` before it counts.
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

/** A mapping whose fromImage parses, with what deciding needs computed once. */
interface Entry {
  readonly placed: Placed
  readonly matcher: Matcher
  /** Position in precedence order (compareCandidates, then policy order). */
  readonly rank: number
  readonly scope: string
  readonly activeFrom: number
  readonly decision: Decision
  /** Whether its bucket leaves `Resolution.matches` to ask: a pattern, or a tag and a digest. */
  readonly verify: boolean
  /** Patterns with a tag: its literal ends. */
  readonly tag: GlobEnds | undefined
}

/** Entries in rank order, and the best (lowest) rank among them and below them. */
interface Bucket {
  readonly entries: Array<Entry>
  minRank: number
}

interface RepositoryNode {
  /** Tag-less fromImages. */
  readonly repository: Bucket
  /** FromImages with a tag and no digest, by tag. */
  readonly byTag: Map<string, Bucket>
  /** FromImages with a digest (and maybe a tag), by digest. */
  readonly byDigest: Map<string, Bucket>
}

interface PatternNode extends Bucket {
  readonly literal: Map<string, PatternNode>
  readonly globs: Array<{ readonly ends: GlobEnds; readonly node: PatternNode }>
}

export interface ResolutionIndex {
  /** Every mapping of the policy, also those whose fromImage does not parse (they never match). */
  readonly size: number
  /** By registry, then repository path. */
  readonly references: ReadonlyMap<string, ReadonlyMap<string, RepositoryNode>>
  readonly patterns: ReadonlyMap<string, PatternNode>
  /** Every mapping's activation time (epoch ms), ascending, without repeats. */
  readonly activations: ReadonlyArray<number>
}

const bucket = (): Bucket => ({ entries: [], minRank: Number.MAX_SAFE_INTEGER })
const patternNode = (): PatternNode => ({ ...bucket(), literal: new Map(), globs: [] })

const getOr = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  let value = map.get(key)
  if (value === undefined) map.set(key, value = make())
  return value
}

const add = (into: Bucket, entry: Entry) => {
  into.entries.push(entry)
  into.minRank = Math.min(into.minRank, entry.rank)
}

/** The pattern tree's node where a pattern ends, made as needed; each node on the way keeps its subtree's best rank. */
const patternLeaf = (root: PatternNode, segments: ReadonlyArray<string>, rank: number): PatternNode => {
  let node = root
  node.minRank = Math.min(node.minRank, rank)
  for (const segment of segments) {
    if (segment.includes("*")) {
      let branch = node.globs.find((g) => g.ends.text === segment)
      if (branch === undefined) node.globs.push(branch = { ends: globEnds(segment), node: patternNode() })
      node = branch.node
    } else {
      node = getOr(node.literal, segment, patternNode)
    }
    node.minRank = Math.min(node.minRank, rank)
  }
  return node
}

/** Indexes a policy (groups in the order they apply, as `Resolution.resolve` takes it). */
export const build = (policy: ResolutionPolicy): ResolutionIndex => {
  let size = 0
  const parsed: Array<{ placed: Placed; matcher: Matcher }> = []
  eachMapping(policy, (placed) => {
    size++
    const matcher = matcherOf(placed.mapping.fromImage)
    if (matcher !== undefined) parsed.push({ placed, matcher })
  })
  const candidates = parsed.map((p) => candidateOf(p.placed, p.matcher))
  // `parsed` is in policy order: of equal candidates the first in policy order ranks first
  const byPrecedence = parsed.map((_, i) => i).sort((a, b) => compareCandidates(candidates[a]!, candidates[b]!) || a - b)

  const references = new Map<string, Map<string, RepositoryNode>>()
  const patterns = new Map<string, PatternNode>()
  // in rank order: every bucket fills in rank order
  byPrecedence.forEach((i, rank) => {
    const { matcher, placed } = parsed[i]!
    const entry: Entry = {
      placed,
      matcher,
      rank,
      scope: placed.mapping.platformScope ?? "",
      activeFrom: Date.parse(placed.mapping.activeFrom),
      decision: { resolved: resolvedBy(candidates[i]!), reason: describeWin(candidates[i]!) },
      verify: matcher.kind === "pattern" || (matcher.ref.tag !== undefined && matcher.ref.digest !== undefined),
      tag: matcher.kind === "pattern" && matcher.pattern.tag !== undefined ? globEnds(matcher.pattern.tag) : undefined
    }
    if (matcher.kind === "pattern") {
      const root = getOr(patterns, matcher.pattern.domain, patternNode)
      add(patternLeaf(root, matcher.pattern.segments, rank), entry)
      return
    }
    const node = getOr(getOr(references, matcher.ref.domain, () => new Map()), matcher.ref.path, () => ({
      repository: bucket(),
      byTag: new Map<string, Bucket>(),
      byDigest: new Map<string, Bucket>()
    }))
    const { digest, tag } = matcher.ref
    if (matchKind(matcher) === "repository") add(node.repository, entry)
    else if (digest !== undefined) add(getOr(node.byDigest, digest, bucket), entry)
    else add(getOr(node.byTag, tag!, bucket), entry)
  })
  // a time that does not parse never holds a mapping back (`applicability`): no epoch of its own
  const activations = [...new Set(parsed.map(({ placed }) => Date.parse(placed.mapping.activeFrom)))]
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b)
  return { size, references, patterns, activations }
}

/**
 * How many of the index's activation times have passed at `now`. Time enters a decision only by
 * which mappings are active, so two instants of the same epoch get the same decision for every
 * reference: a decision can be remembered while the epoch lasts.
 */
export const epochAt = (index: ResolutionIndex, now: Date): number => {
  const at = now.getTime()
  const { activations } = index
  let low = 0
  let high = activations.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (activations[middle]! <= at) low = middle + 1
    else high = middle
  }
  return low
}

/** Mutable state of one search: the best entry so far. */
interface Search {
  readonly ref: ImageReference
  readonly platform: string
  readonly now: number
  best: Entry | undefined
  bestRank: number
  /** When set, every match is collected and nothing is skipped (explain). */
  readonly all: Array<Entry> | undefined
}

const isMatch = (entry: Entry, ref: ImageReference) =>
  !entry.verify || ((entry.tag === undefined || (ref.tag !== undefined && mayMatch(entry.tag, ref.tag))) && matches(entry.matcher, ref))

const scan = (search: Search, from: Bucket | undefined): void => {
  if (from === undefined) return
  if (search.all !== undefined) {
    for (const entry of from.entries) if (isMatch(entry, search.ref)) search.all.push(entry)
    return
  }
  if (from.minRank >= search.bestRank) return
  for (const entry of from.entries) {
    if (entry.rank >= search.bestRank) return
    if (!isMatch(entry, search.ref)) continue
    if (applicability(entry.scope, entry.activeFrom, search.platform, search.now) !== "applies") continue
    search.best = entry
    search.bestRank = entry.rank
    return
  }
}

const walk = (search: Search, node: PatternNode, segments: ReadonlyArray<string>, depth: number): void => {
  if (search.all === undefined && node.minRank >= search.bestRank) return
  if (depth === segments.length) return scan(search, node)
  const segment = segments[depth]!
  const next = node.literal.get(segment)
  if (next !== undefined) walk(search, next, segments, depth + 1)
  for (const glob of node.globs) if (mayMatch(glob.ends, segment)) walk(search, glob.node, segments, depth + 1)
}

const search = (index: ResolutionIndex, ref: ImageReference, platform: string, now: number, all?: Array<Entry>): Search => {
  const s: Search = { ref, platform, now, best: undefined, bestRank: Number.MAX_SAFE_INTEGER, all }
  const node = index.references.get(ref.domain)?.get(ref.path)
  if (node !== undefined) {
    if (ref.tag !== undefined) scan(s, node.byTag.get(ref.tag))
    if (ref.digest !== undefined) scan(s, node.byDigest.get(ref.digest))
    scan(s, node.repository)
  }
  const root = index.patterns.get(ref.domain)
  // most images are decided before the patterns: the path is split only when they are walked
  if (root !== undefined && (all !== undefined || root.minRank < s.bestRank)) walk(s, root, ref.path.split("/"), 0)
  return s
}

/**
 * The mapping that applies to an image, and its reason; null when none applies. The same winner as
 * `Resolution.resolve` over the policy, without building the `considered` list.
 */
export const decide = (
  index: ResolutionIndex,
  input: ResolveInput
): Result.Result<Decision | null, InvalidImageReference | InvalidPlatform> => {
  const parsed = parseInput(input)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const [ref, platform] = parsed.success
  return Result.succeed(decideParsed(index, ref, platform, input.now))
}

/** `decide` for a reference and canonical platform already parsed (`Resolution.parseInput`), for callers that need them too. */
export const decideParsed = (index: ResolutionIndex, ref: ImageReference, platform: string, now: Date): Decision | null =>
  search(index, ref, platform, now.getTime()).best?.decision ?? null

/** The whole resolution with its `considered` list: exactly what `Resolution.resolve` over the policy answers. */
export const explain = (
  index: ResolutionIndex,
  input: ResolveInput
): Result.Result<Resolution, InvalidImageReference | InvalidPlatform> =>
  Result.map(parseInput(input), ([ref, platform]) => {
    const all: Array<Entry> = []
    search(index, ref, platform, input.now.getTime(), all)
    // the buckets are in rank order; `considered` and ties follow policy order
    all.sort((a, b) => a.placed.seq - b.placed.seq)
    return explainMatches(ref, platform, input.now.getTime(), all)
  })
