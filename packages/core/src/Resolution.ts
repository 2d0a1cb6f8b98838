/**
 * Which published mapping applies to an image on a repository branch (and platform), and why.
 * The precedence is documented in docs/policy-resolution.md; this file is its only implementation.
 */
import * as Either from "effect/Either"
import type { PolicyGroupId } from "./Id.js"
import {
  formatImageReference,
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

const matchOf = (fromImage: string, ref: ImageReference): { kind: MatchKind; specificity: number } | undefined => {
  if (isPattern(fromImage)) {
    const pattern = parseImagePattern(fromImage)
    return Either.isRight(pattern) && matchesPattern(pattern.right, ref)
      ? { kind: "pattern", specificity: patternSpecificity(pattern.right) }
      : undefined
  }
  const from = normalizeImageReference(fromImage)
  if (Either.isLeft(from) || !sameRepository(from.right, ref)) return undefined
  const f = from.right
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
  `selected: ${c.kind} match${c.platformSpecific ? ", platform-specific" : ""}${c.mapping.order !== undefined ? `, order ${c.mapping.order}` : ""}`

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

export const resolve = (input: {
  readonly policy: ResolutionPolicy
  readonly image: string
  readonly platform?: string | undefined
  readonly now: Date
}): Either.Either<Resolution, InvalidImageReference | InvalidPlatform> => {
  const ref = normalizeImageReference(input.image)
  if (Either.isLeft(ref)) return Either.left(ref.left)
  const platform = normalizePlatformScope(input.platform)
  if (Either.isLeft(platform)) return Either.left(platform.left)
  const now = input.now.getTime()
  const candidates: Array<Candidate> = []
  const considered: Array<Considered & { candidate?: Candidate }> = []
  input.policy.forEach(({ group, phases, published }, groupIndex) => {
    const positions = new Map(phases.map((p) => [p.id, p.position]))
    for (const mapping of published) {
      const scope = mapping.platformScope ?? ""
      const base = {
        policyGroupId: group.id,
        phaseId: mapping.phaseId,
        mappingId: mapping.id,
        fromImage: mapping.fromImage,
        platformScope: scope
      }
      const match = matchOf(mapping.fromImage, ref.right)
      if (match === undefined) continue // unrelated mappings are not listed: `considered` stays readable
      if (scope !== "" && scope !== platform.right) {
        considered.push({ ...base, matched: false, reason: `platform ${scope} does not apply to ${platform.right || "an unspecified platform"}` })
        continue
      }
      if (Date.parse(mapping.activeFrom) > now) {
        considered.push({ ...base, matched: false, reason: `not yet active (from ${mapping.activeFrom})` })
        continue
      }
      const candidate: Candidate = {
        groupIndex,
        phasePosition: positions.get(mapping.phaseId) ?? Number.MAX_SAFE_INTEGER,
        groupId: group.id,
        mapping,
        kind: match.kind,
        platformSpecific: scope !== "",
        specificity: match.specificity
      }
      candidates.push(candidate)
      considered.push({ ...base, matched: true, reason: "", candidate })
    }
  })
  const winner = [...candidates].sort(compareCandidates)[0]
  return Either.right({
    image: formatImageReference(ref.right),
    resolved: winner === undefined ? null : {
      toImage: winner.mapping.toImage,
      policyGroupId: winner.groupId,
      phaseId: winner.mapping.phaseId,
      mapping: winner.mapping
    },
    considered: considered.map(({ candidate, ...c }) =>
      candidate === undefined ? c : { ...c, reason: candidate === winner ? describeWin(candidate) : describeLoss(candidate, winner!) }
    )
  })
}
