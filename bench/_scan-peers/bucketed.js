// The resolver before the index of issue 18 (packages/core/src/Resolution.ts at 6ff2ca2, `compile` and
// `resolveCompiled`, types stripped by esbuild), frozen here as a peer of `npm run bench -- scan`: it
// buckets mappings by repository and patterns by one literal segment, runs every candidate's regular
// expressions and builds the whole `considered` list on every call. Not used by the packages.
import { ImageReference, Platform } from "@image-policy/core"
import * as Result from "effect/Result"

const { formatImageReference, isPattern, matchesPattern, normalizeImageReference, parseImagePattern, patternSpecificity } = ImageReference
const { normalizePlatformScope } = Platform

const kindRank = { exact: 0, repository: 1, pattern: 2 }
const sameRepository = (a, b) => a.domain === b.domain && a.path === b.path
const globEnds = (glob) => {
  const first = glob.indexOf("*")
  return first < 0
    ? { literal: true, text: glob, prefix: glob, suffix: "" }
    : { literal: false, text: glob, prefix: glob.slice(0, first), suffix: glob.slice(glob.lastIndexOf("*") + 1) }
}
const mayMatch = (ends, value) =>
  ends.literal
    ? value === ends.text
    : value.length >= ends.prefix.length + ends.suffix.length && value.startsWith(ends.prefix) && value.endsWith(ends.suffix)
const matcherOf = (fromImage) => {
  if (isPattern(fromImage)) {
    const pattern = parseImagePattern(fromImage)
    return Result.isSuccess(pattern)
      ? { kind: "pattern", pattern: pattern.success, specificity: patternSpecificity(pattern.success) }
      : void 0
  }
  const from = normalizeImageReference(fromImage)
  return Result.isSuccess(from) ? { kind: "reference", ref: from.success } : void 0
}
const matchWith = (matcher, ref) => {
  if (matcher.kind === "pattern") {
    return matchesPattern(matcher.pattern, ref) ? { kind: "pattern", specificity: matcher.specificity } : void 0
  }
  const f = matcher.ref
  if (!sameRepository(f, ref)) return void 0
  if (f.tag === void 0 && f.digest === void 0) return { kind: "repository", specificity: 0 }
  const tagOk = f.tag === void 0 || f.tag === ref.tag
  const digestOk = f.digest === void 0 || f.digest === ref.digest
  return tagOk && digestOk ? { kind: "exact", specificity: 0 } : void 0
}
const compareCandidates = (a, b) =>
  kindRank[a.kind] - kindRank[b.kind] || Number(b.platformSpecific) - Number(a.platformSpecific) ||
  (a.mapping.order ?? Number.MAX_SAFE_INTEGER) - (b.mapping.order ?? Number.MAX_SAFE_INTEGER) || b.specificity - a.specificity ||
  a.groupIndex - b.groupIndex || a.phasePosition - b.phasePosition ||
  (a.mapping.id < b.mapping.id ? -1 : a.mapping.id > b.mapping.id ? 1 : 0)
const describeWin = (c) =>
  `selected: ${c.kind} match${c.platformSpecific ? ", platform-specific" : ""}${
    c.mapping.order !== void 0 ? `, order ${c.mapping.order}` : ""
  }`
const describeLoss = (c, winner) => {
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
const repositoryKey = (domain, path) => `${domain}/${path}`
const patternKey = (domain, segments, position, literal = "") => `${domain}|${segments}|${position}|${literal}`
const eachMapping = (policy, f) => {
  let seq = 0
  policy.forEach(({ group, phases, published }, groupIndex) => {
    const positions = new Map(phases.map((p) => [p.id, p.position]))
    for (const mapping of published) {
      f({ seq: seq++, groupIndex, groupId: group.id, phasePosition: positions.get(mapping.phaseId) ?? Number.MAX_SAFE_INTEGER, mapping })
    }
  })
}
const compile = (policy) => {
  const byRepository = /* @__PURE__ */ new Map()
  const patterns = /* @__PURE__ */ new Map()
  let size = 0
  const push = (index, key, entry) => {
    const bucket = index.get(key)
    if (bucket === void 0) index.set(key, [entry])
    else bucket.push(entry)
  }
  eachMapping(policy, (m) => {
    size++
    const matcher = matcherOf(m.mapping.fromImage)
    if (matcher === void 0) return
    if (matcher.kind === "reference") {
      push(byRepository, repositoryKey(matcher.ref.domain, matcher.ref.path), { ...m, matcher })
    } else {
      const { domain, segments, tag } = matcher.pattern
      const ends = { segments: segments.map(globEnds), tag: tag === void 0 ? void 0 : globEnds(tag) }
      let position = segments.length - 1
      while (position >= 0 && segments[position].includes("*")) position--
      const key = position < 0
        ? patternKey(domain, segments.length, "*")
        : patternKey(domain, segments.length, position, segments[position])
      push(patterns, key, { ...m, matcher, ends })
    }
  })
  return { size, byRepository, patterns }
}
const row = (m, scope, matched, reason) => ({
  policyGroupId: m.groupId,
  phaseId: m.mapping.phaseId,
  mappingId: m.mapping.id,
  fromImage: m.mapping.fromImage,
  platformScope: scope,
  matched,
  reason
})
const decide = (ref, platform, now, matches) => {
  const rows = []
  let winner
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
    const candidate = {
      groupIndex: m.groupIndex,
      phasePosition: m.phasePosition,
      groupId: m.groupId,
      mapping,
      kind: match.kind,
      platformSpecific: scope !== "",
      specificity: match.specificity
    }
    if (winner === void 0 || compareCandidates(candidate, winner) < 0) winner = candidate
    rows.push(candidate)
  }
  return {
    image: formatImageReference(ref),
    resolved: winner === void 0 ? null : {
      toImage: winner.mapping.toImage,
      policyGroupId: winner.groupId,
      phaseId: winner.mapping.phaseId,
      mapping: winner.mapping
    },
    considered: rows.map(
      (r) => "matched" in r ? r : row(r, r.mapping.platformScope ?? "", true, r === winner ? describeWin(r) : describeLoss(r, winner))
    )
  }
}
const parseInput = (input) => {
  const ref = normalizeImageReference(input.image)
  if (Result.isFailure(ref)) return Result.fail(ref.failure)
  const platform = normalizePlatformScope(input.platform)
  if (Result.isFailure(platform)) return Result.fail(platform.failure)
  return Result.succeed([ref.success, platform.success])
}
const resolve = (input) =>
  Result.map(parseInput(input), ([ref, platform]) => {
    const matches = []
    eachMapping(input.policy, (m) => {
      const matcher = matcherOf(m.mapping.fromImage)
      const match = matcher === void 0 ? void 0 : matchWith(matcher, ref)
      if (match !== void 0) matches.push([m, match])
    })
    return decide(ref, platform, input.now.getTime(), matches)
  })
const none = []
const resolveCompiled = (compiled, input) =>
  Result.map(parseInput(input), ([ref, platform]) => {
    const segments = ref.path.split("/")
    const matches = []
    for (const entry of compiled.byRepository.get(repositoryKey(ref.domain, ref.path)) ?? none) {
      const match = matchWith(entry.matcher, ref)
      if (match !== void 0) matches.push([entry, match])
    }
    const tryPatterns = (bucket) => {
      for (const entry of bucket ?? none) {
        const ends = entry.ends
        if (ends.tag !== void 0 && (ref.tag === void 0 || !mayMatch(ends.tag, ref.tag))) continue
        if (!ends.segments.every((e, i) => mayMatch(e, segments[i]))) continue
        const match = matchWith(entry.matcher, ref)
        if (match !== void 0) matches.push([entry, match])
      }
    }
    for (let position = 0; position < segments.length; position++) {
      tryPatterns(compiled.patterns.get(patternKey(ref.domain, segments.length, position, segments[position])))
    }
    tryPatterns(compiled.patterns.get(patternKey(ref.domain, segments.length, "*")))
    matches.sort((a, b) => a[0].seq - b[0].seq)
    return decide(ref, platform, input.now.getTime(), matches)
  })
export { compile, resolve, resolveCompiled }
