import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import * as ImageReference from "../src/ImageReference.js"
import { prop } from "./support/fcProp.js"

// Docker's own vectors (shared/conformance), loaded at run time, never copied.
const vectors = JSON.parse(
  readFileSync(new URL("../../../../shared/conformance/docker-reference.json", import.meta.url), "utf8")
) as {
  parse: Array<
    { input: string; valid: boolean; name?: string; domain?: string; tag?: string | null; digest?: string | null; error?: string }
  >
  normalizedNames: { valid: Array<string>; invalid: Array<string> }
  dockerRef: Array<{ input: string; normalized: string }>
}

const reasonOf: Record<string, string> = {
  ErrNameEmpty: "empty",
  ErrReferenceInvalidFormat: "invalid-format",
  ErrNameContainsUppercase: "uppercase",
  ErrNameTooLong: "name-too-long",
  "digest.ErrDigestInvalidLength": "digest-invalid-length",
  "digest.ErrDigestUnsupported": "digest-unsupported"
}

describe("ImageReference conformance (distribution/reference vectors)", () => {
  it("has vectors", () => {
    assert.isAbove(vectors.parse.length, 40)
    assert.isAbove(vectors.normalizedNames.valid.length + vectors.normalizedNames.invalid.length, 30)
    assert.isAbove(vectors.dockerRef.length, 5)
  })

  for (const v of vectors.parse) {
    it(`parse ${v.input.length > 60 ? `${v.input.slice(0, 40)}…(${v.input.length})` : JSON.stringify(v.input)}`, () => {
      const result = ImageReference.parseImageReference(v.input)
      if (v.valid) {
        assert.isTrue(Result.isSuccess(result), `expected valid: ${Result.isFailure(result) ? result.failure.reason : ""}`)
        const ref = Result.getOrThrow(result)
        assert.strictEqual(ref.domain, v.domain)
        assert.strictEqual(ref.domain === "" ? ref.path : `${ref.domain}/${ref.path}`, v.name)
        assert.strictEqual(ref.tag ?? null, v.tag ?? null)
        assert.strictEqual(ref.digest ?? null, v.digest ?? null)
      } else {
        assert.isTrue(Result.isFailure(result), "expected invalid")
        if (Result.isFailure(result)) assert.strictEqual(result.failure.reason, reasonOf[v.error!])
      }
    })
  }

  for (const name of vectors.normalizedNames.valid) {
    it(`normalizes valid name ${name.slice(0, 60)}`, () => {
      assert.isTrue(Result.isSuccess(ImageReference.normalizeImageReference(name)))
    })
  }
  for (const name of vectors.normalizedNames.invalid) {
    it(`rejects invalid name ${name.slice(0, 60)}`, () => {
      assert.isTrue(Result.isFailure(ImageReference.normalizeImageReference(name)))
    })
  }
  for (const v of vectors.dockerRef) {
    it(`docker ref ${v.input.slice(0, 60)}`, () => {
      const ref = Result.getOrThrow(ImageReference.toDockerRef(v.input))
      assert.strictEqual(ImageReference.formatImageReference(ref), v.normalized)
    })
  }
})

const component = fc.stringMatching(/^[a-z0-9]+(?:[._-][a-z0-9]+)?$/).filter((s) => s.length <= 30)
const reference = fc.record({
  domain: fc.constantFrom("docker.io", "ghcr.io", "registry.example.com:5000", "[::1]:5000", "localhost"),
  path: fc.array(component, { minLength: 1, maxLength: 4 }).map((a) => a.join("/")),
  tag: fc.option(fc.stringMatching(/^[\w][\w.-]{0,20}$/), { nil: undefined }),
  digest: fc.option(
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }).map((h) => `sha256:${h.toLowerCase()}`),
    { nil: undefined }
  )
}).map(({ digest, domain, path, tag }) =>
  ({
    domain,
    path,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {})
  }) as ImageReference.ImageReference
)

describe("ImageReference properties", () => {
  prop("parse(format(r)) equals r", [reference], ([r]) => {
    assert.deepStrictEqual(Result.getOrThrow(ImageReference.parseImageReference(ImageReference.formatImageReference(r))), r)
  })

  prop("normalization is idempotent", [reference], ([r]) => {
    const once = Result.getOrThrow(ImageReference.normalizedText(ImageReference.formatImageReference(r)))
    assert.strictEqual(Result.getOrThrow(ImageReference.normalizedText(once)), once)
  })

  prop("random strings never throw: every function answers a value or a typed error", [fc.string({ maxLength: 300 })], ([s]) => {
    const parsers: Array<(s: string) => Result.Result<unknown, ImageReference.InvalidImageReference>> = [
      ImageReference.parseImageReference,
      ImageReference.normalizeImageReference,
      ImageReference.toDockerRef,
      ImageReference.parseImagePattern
    ]
    for (const f of parsers) {
      const result = f(s)
      if (Result.isFailure(result)) assert.strictEqual(result.failure._tag, "InvalidImageReference")
    }
    assert.isBoolean(ImageReference.isExactReference(s))
  })

  prop("a pattern is never exact", [reference], ([r]) => {
    const text = ImageReference.formatImageReference({ ...r, path: `${r.path}*` })
    assert.isFalse(ImageReference.isExactReference(text))
  })

  it("familiar names are one reference", () => {
    const forms = ["nginx:1", "docker.io/library/nginx:1", "index.docker.io/library/nginx:1", "docker.io/nginx:1"]
    const normalized = forms.map((f) => Result.getOrThrow(ImageReference.normalizedText(f)))
    assert.deepStrictEqual(new Set(normalized), new Set(["docker.io/library/nginx:1"]))
  })

  it("exact means a valid reference with a tag or a digest", () => {
    assert.isTrue(ImageReference.isExactReference("nginx:1.27"))
    assert.isTrue(ImageReference.isExactReference(`ghcr.io/acme/api@sha256:${"a".repeat(64)}`))
    assert.isFalse(ImageReference.isExactReference("nginx"), "a bare name is not exact")
    assert.isFalse(ImageReference.isExactReference("nginx:*"))
    assert.isFalse(ImageReference.isExactReference("Nginx:1"))
  })
})

describe("wildcard patterns", () => {
  const matches = (pattern: string, image: string) =>
    ImageReference.matchesPattern(
      Result.getOrThrow(ImageReference.parseImagePattern(pattern)),
      Result.getOrThrow(ImageReference.normalizeImageReference(image))
    )

  it("`*` matches within one path segment or the tag, never across `/`", () => {
    assert.isTrue(matches("redis:*", "redis:7.2"))
    assert.isTrue(matches("redis:*", "docker.io/library/redis:6"))
    assert.isFalse(matches("redis:*", "redis"), "a tag pattern needs a tag")
    assert.isTrue(matches("ghcr.io/acme/*:1.2", "ghcr.io/acme/api:1.2"))
    assert.isFalse(matches("ghcr.io/acme/*:1.2", "ghcr.io/acme/team/api:1.2"))
    assert.isFalse(matches("ghcr.io/acme/*:1.2", "ghcr.io/acme/api:1.3"))
    assert.isTrue(matches("node:20-*", "node:20-alpine"))
    assert.isFalse(matches("node:20-*", "node:21-alpine"))
    assert.isTrue(matches("ghcr.io/acme/*", "ghcr.io/acme/web:latest"), "no tag in the pattern = any tag")
    assert.isFalse(matches("ghcr.io/acme/*", "quay.io/acme/web:latest"))
  })

  it("wildcards are refused in the registry and with digests", () => {
    assert.isTrue(Result.isFailure(ImageReference.parseImagePattern("*.gcr.io/app:1")))
    assert.isTrue(Result.isFailure(ImageReference.parseImagePattern(`nginx@sha256:${"a".repeat(64)}`)))
    assert.isTrue(Result.isFailure(ImageReference.parseImagePattern("Nginx:*")))
  })

  it("more literal characters are more specific", () => {
    const spec = (p: string) => ImageReference.patternSpecificity(Result.getOrThrow(ImageReference.parseImagePattern(p)))
    assert.isAbove(spec("node:20-*"), spec("node:*"))
    assert.isAbove(spec("node:*"), spec("node"))
  })
})
