/**
 * Container image references, following the grammar of github.com/distribution/reference (the Go
 * implementation Docker and registries use), its familiar-name normalization, and our wildcard
 * patterns for external mappings files. Every function returns a value or a typed error; none throws.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

export const ImageReference = Schema.Struct({
  /** Registry host[:port]; "" when a strict parse found none. */
  domain: Schema.String,
  /** Repository path, e.g. `library/nginx`. */
  path: Schema.String,
  tag: Schema.optionalKey(Schema.String),
  digest: Schema.optionalKey(Schema.String)
})
export type ImageReference = typeof ImageReference.Type

export type InvalidReason =
  | "empty"
  | "invalid-format"
  | "uppercase"
  | "name-too-long"
  | "digest-invalid-length"
  | "digest-unsupported"
  | "hex-name"
  | "wildcard"

export class InvalidImageReference extends Schema.TaggedError<InvalidImageReference>()("InvalidImageReference", {
  input: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return messages[this.reason as InvalidReason] ?? `invalid image reference (${this.reason})`
  }
}

const messages: Record<InvalidReason, string> = {
  "empty": "image reference is empty",
  "invalid-format": "not a valid image reference (expected [registry/]repository[:tag][@digest])",
  "uppercase": "repository name must be lowercase",
  "name-too-long": "repository name must not be more than 255 characters",
  "digest-invalid-length": "digest has the wrong length for its algorithm",
  "digest-unsupported": "unsupported digest algorithm (only sha256)",
  "hex-name": "a 64-character hex string is an image id, not a repository name",
  "wildcard": "wildcards are not allowed here"
}

// Grammar of distribution/reference (regexp.go), written out once.
const alnum = "[a-z0-9]+"
const separator = "(?:[._]|__|[-]+)"
const pathComponent = `${alnum}(?:${separator}${alnum})*`
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
const domainName = `${domainComponent}(?:\\.${domainComponent})*`
const ipv6 = "\\[(?:[a-fA-F0-9:]+)\\]"
const domainAndPort = `(?:${domainName}|${ipv6})(?::[0-9]+)?`
const tagPattern = "[\\w][\\w.-]{0,127}"
const digestPattern = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
const remainder = `${pathComponent}(?:/${pathComponent})*`

const referenceRegex = new RegExp(`^(?:(${domainAndPort})/)?(${remainder})(?::(${tagPattern}))?(?:@(${digestPattern}))?$`)
const hexIdRegex = /^[a-f0-9]{64}$/
const sha256Regex = /^[a-f0-9]{64}$/

const MAX_PATH = 255
/** Inputs longer than this are refused before any regular expression runs. */
const MAX_INPUT = 4096

const fail = (input: string, reason: InvalidReason) => Result.fail(new InvalidImageReference({ input: input.slice(0, 300), reason }))

const checkDigest = (input: string, digest: string): Result.Result<string, InvalidImageReference> => {
  const [algorithm, encoded] = digest.split(":") as [string, string]
  if (algorithm !== "sha256") return fail(input, "digest-unsupported")
  return sha256Regex.test(encoded) ? Result.succeed(digest) : fail(input, "digest-invalid-length")
}

// one object literal per case, not spreads: a resolution parses every image it is asked about
const build = (domain: string, path: string, tag: string | undefined, digest: string | undefined): ImageReference =>
  tag === undefined
    ? digest === undefined ? { domain, path } : { domain, path, digest }
    : digest === undefined
    ? { domain, path, tag }
    : { domain, path, tag, digest }

/** Strict parse of a reference as written (distribution/reference `Parse`). */
export const parseImageReference = (text: string): Result.Result<ImageReference, InvalidImageReference> => {
  if (text.length === 0) return fail(text, "empty")
  if (text.length > MAX_INPUT) return fail(text, "name-too-long")
  const match = referenceRegex.exec(text)
  if (match === null) {
    return referenceRegex.test(text.toLowerCase()) ? fail(text, "uppercase") : fail(text, "invalid-format")
  }
  const [, domain = "", path = "", tag, digest] = match
  if (path.length > MAX_PATH) return fail(text, "name-too-long")
  if (digest !== undefined) {
    const checked = checkDigest(text, digest)
    if (Result.isFailure(checked)) return Result.fail(checked.failure)
  }
  return Result.succeed(build(domain, path, tag, digest))
}

/** distribution/reference `splitDockerDomain`: where the familiar form's registry ends. */
const splitDockerDomain = (name: string): readonly [string, string] => {
  const i = name.indexOf("/")
  let domain: string
  let rest: string
  const first = i === -1 ? "" : name.slice(0, i)
  if (i === -1 || (!/[.:]/.test(first) && first !== "localhost" && first.toLowerCase() === first)) {
    domain = "docker.io"
    rest = name
  } else {
    domain = first
    rest = name.slice(i + 1)
  }
  if (domain === "index.docker.io") domain = "docker.io"
  if (domain === "docker.io" && !rest.includes("/")) rest = `library/${rest}`
  return [domain, rest]
}

/**
 * Familiar-name normalization (distribution/reference `ParseNormalizedNamed`): `nginx:1` is
 * `docker.io/library/nginx:1`, `index.docker.io/x` is `docker.io/x`. No default tag is added.
 */
export const normalizeImageReference = (text: string): Result.Result<ImageReference, InvalidImageReference> => {
  if (text.length === 0) return fail(text, "empty")
  if (text.length > MAX_INPUT) return fail(text, "name-too-long")
  if (text.length === 64 && hexIdRegex.test(text)) return fail(text, "hex-name")
  const [domain, rest] = splitDockerDomain(text)
  const tagAt = rest.indexOf(":")
  const remoteName = tagAt === -1 ? rest : rest.slice(0, tagAt)
  if (remoteName.toLowerCase() !== remoteName) return fail(text, "uppercase")
  const parsed = parseImageReference(`${domain}/${rest}`)
  if (Result.isFailure(parsed)) return Result.fail(new InvalidImageReference({ input: text.slice(0, 300), reason: parsed.failure.reason }))
  return parsed
}

/** distribution/reference `ParseDockerRef`: normalized, tag `latest` by default, a digest wins over a tag. */
export const toDockerRef = (text: string): Result.Result<ImageReference, InvalidImageReference> =>
  Result.map(
    normalizeImageReference(text),
    (ref) =>
      ref.digest !== undefined
        ? build(ref.domain, ref.path, undefined, ref.digest)
        : build(ref.domain, ref.path, ref.tag ?? "latest", undefined)
  )

export const formatImageReference = (ref: ImageReference): string =>
  `${ref.domain === "" ? "" : `${ref.domain}/`}${ref.path}${ref.tag !== undefined ? `:${ref.tag}` : ""}${
    ref.digest !== undefined ? `@${ref.digest}` : ""
  }`

/** The normalized text of a reference, e.g. `docker.io/library/nginx:1` for `nginx:1`. */
export const normalizedText = (text: string): Result.Result<string, InvalidImageReference> =>
  Result.map(normalizeImageReference(text), formatImageReference)

/** An exact reference names one image: valid, with a tag or a digest, and no wildcard (contracts 5). */
export const isExactReference = (text: string): boolean => {
  if (text.includes("*")) return false
  const ref = normalizeImageReference(text)
  return Result.isSuccess(ref) && (ref.success.tag !== undefined || ref.success.digest !== undefined)
}

// Wildcard patterns -------------------------------------------------------------------------------

/**
 * A pattern for external mappings files: `*` matches any run of characters inside ONE path segment
 * or inside the tag, never a `/`, never in the registry. `redis:*`, `ghcr.io/acme/*:1.2`,
 * `node:20-*`. A pattern without a tag matches every tag of the repositories it matches.
 */
export interface ImagePattern {
  readonly domain: string
  readonly segments: ReadonlyArray<string>
  readonly tag?: string
}

export const isPattern = (text: string): boolean => text.includes("*")

const STAR_STANDIN = "x"

export const parseImagePattern = (text: string): Result.Result<ImagePattern, InvalidImageReference> => {
  if (text.length === 0) return fail(text, "empty")
  if (text.length > MAX_INPUT) return fail(text, "name-too-long")
  if (text.includes("@")) return fail(text, "wildcard") // a digest names one image: it has no pattern form
  const [domain, rest] = splitDockerDomain(text)
  if (domain.includes("*")) return fail(text, "wildcard")
  // validate the grammar with every `*` replaced by a legal character, then keep the stars
  const probe = normalizeImageReference(`${domain}/${rest}`.replace(/\*+/g, STAR_STANDIN))
  if (Result.isFailure(probe)) return Result.fail(new InvalidImageReference({ input: text.slice(0, 300), reason: probe.failure.reason }))
  const tagAt = rest.indexOf(":")
  const path = tagAt === -1 ? rest : rest.slice(0, tagAt)
  const tag = tagAt === -1 ? undefined : rest.slice(tagAt + 1).replace(/\*+/g, "*")
  return Result.succeed({
    domain: probe.success.domain,
    segments: path.replace(/\*+/g, "*").split("/"),
    ...(tag !== undefined ? { tag } : {})
  })
}

const globCache = new Map<string, RegExp>()
const glob = (pattern: string): RegExp => {
  let re = globCache.get(pattern)
  if (re === undefined) {
    re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`)
    if (globCache.size > 10_000) globCache.clear()
    globCache.set(pattern, re)
  }
  return re
}

/** Whether a normalized reference is matched by a pattern. */
export const matchesPattern = (pattern: ImagePattern, ref: ImageReference): boolean => {
  if (pattern.domain !== ref.domain) return false
  const segments = ref.path.split("/")
  if (segments.length !== pattern.segments.length) return false
  for (let i = 0; i < segments.length; i++) {
    if (!glob(pattern.segments[i]!).test(segments[i]!)) return false
  }
  if (pattern.tag === undefined) return true
  return ref.tag !== undefined && glob(pattern.tag).test(ref.tag)
}

/** More literal characters = more specific; breaks ties between matching patterns. */
export const patternSpecificity = (pattern: ImagePattern): number =>
  pattern.segments.join("/").replace(/\*/g, "").length + (pattern.tag ?? "").replace(/\*/g, "").length +
  (pattern.tag !== undefined ? 1 : 0)

export const formatImagePattern = (pattern: ImagePattern): string =>
  `${pattern.domain}/${pattern.segments.join("/")}${pattern.tag !== undefined ? `:${pattern.tag}` : ""}`
