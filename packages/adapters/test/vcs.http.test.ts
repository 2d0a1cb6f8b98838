/**
 * Laws of the shared provider plumbing (ProviderHttp.ts) that every answer relies on: contents
 * round-trip through base64, `Link` parsing finds `rel="next"` wherever it is, a rate-limit wait is
 * always a sane number of seconds, an error carries only its reason, a repository or file
 * path can never climb out of the resource it names nor hold text no store can hold, and what an
 * answer may hold (git object ids, listing entries) is decided when decoding it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Text, VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { prop } from "../../core/test/support/fcProp.js"
import * as ProviderHttp from "../src/vcs/ProviderHttp.js"
import { codeUnitText, unicodeText } from "./arbitraries.js"

const answer = (status: number, headers: Record<string, string> = {}, body?: unknown): ProviderHttp.Answer => ({
  status,
  headers: new Headers(headers),
  body
})

const segment = unicodeText({ minLength: 1, maxLength: 12 })

describe("contents", () => {
  prop("decode(encode(text)) == text for any text", [unicodeText({ maxLength: 300 })], ([text]) => {
    assert.strictEqual(ProviderHttp.decodeBase64Text(ProviderHttp.encodeBase64Text(text)), text)
  })

  prop(
    "line breaks in base64 (as GitHub sends it) do not matter",
    [unicodeText({ maxLength: 300 }), fc.integer({ min: 1, max: 80 })],
    ([text, width]) => {
      const wrapped = ProviderHttp.encodeBase64Text(text).replace(new RegExp(`(.{${width}})`, "g"), "$1\n")
      assert.strictEqual(ProviderHttp.decodeBase64Text(wrapped), text)
    }
  )

  it("a leading byte-order mark survives the round trip (a rewritten file keeps its bytes)", () => {
    for (const text of ["\uFEFFFROM node:20\r\n", "\uFEFF", "\uFEFF\uFEFFx"]) {
      assert.strictEqual(ProviderHttp.decodeBase64Text(ProviderHttp.encodeBase64Text(text)), text)
    }
    // the bytes GitHub and GitLab send for a file saved with a BOM
    assert.strictEqual(ProviderHttp.decodeBase64Text(btoa("\xEF\xBB\xBFFROM x")), "\uFEFFFROM x")
  })

  it("a large text encodes without exhausting the stack", () => {
    const text = "é".repeat(300_000)
    assert.strictEqual(ProviderHttp.decodeBase64Text(ProviderHttp.encodeBase64Text(text)), text)
    assert.isUndefined(ProviderHttp.decodeBase64Text("not base64 !"))
  })
})

describe("Link header", () => {
  const url = fc.webUrl({ withQueryParameters: true }).filter((u) => !/[<>,;"\s]/.test(u))
  prop(
    "finds rel=next among any other links, in any order and spacing",
    [url, fc.array(fc.tuple(url, fc.constantFrom("prev", "first", "last")), { maxLength: 3 }), fc.nat(), fc.constantFrom("", " ", "  ")],
    ([next, others, at, space]) => {
      const parts = others.map(([u, rel]) => `<${u}>;${space}rel="${rel}"`)
      parts.splice(at % (parts.length + 1), 0, `<${next}>;${space}rel="next"`)
      assert.strictEqual(ProviderHttp.nextLink(parts.join(`,${space}`)), next)
      assert.isUndefined(ProviderHttp.nextLink(others.map(([u, rel]) => `<${u}>; rel="${rel}"`).join(", ")))
    }
  )

  it("reads GitHub's own example", () => {
    const link = "<https://api.github.com/repositories/1300192/issues?page=2>; rel=\"prev\", " +
      "<https://api.github.com/repositories/1300192/issues?page=4>; rel=\"next\", " +
      "<https://api.github.com/repositories/1300192/issues?page=515>; rel=\"last\", " +
      "<https://api.github.com/repositories/1300192/issues?page=1>; rel=\"first\""
    assert.strictEqual(ProviderHttp.nextLink(link), "https://api.github.com/repositories/1300192/issues?page=4")
    assert.isUndefined(ProviderHttp.nextLink(null))
    assert.isUndefined(ProviderHttp.nextLink("garbage"))
  })
})

describe("classification", () => {
  const now = Date.parse("2030-06-01T12:00:00Z")

  prop(
    "a rate limit always waits a whole number of seconds between 1 and 3600, whatever the reset header says",
    [
      fc.constantFrom("github" as const, "gitlab" as const),
      fc.constantFrom(403, 429),
      fc.oneof(fc.nat(), fc.integer({ min: 0, max: 4_000_000_000 })),
      fc.option(fc.string(), { nil: null })
    ],
    ([provider, status, reset, retryAfter]) => {
      const prefix = provider === "github" ? "x-ratelimit-" : "ratelimit-"
      const headers: Record<string, string> = { [`${prefix}remaining`]: "0", [`${prefix}reset`]: String(reset) }
      if (retryAfter !== null) headers["retry-after"] = retryAfter.replace(/[\r\n]/g, "")
      const error = ProviderHttp.classify(provider, answer(status, headers), now)
      assert.strictEqual(error.reason, "rate-limited")
      assert.isTrue(Number.isInteger(error.retryAfterSeconds))
      assert.isAtLeast(error.retryAfterSeconds!, 1)
      assert.isAtMost(error.retryAfterSeconds!, 3600)
    }
  )

  prop(
    "an error carries its reason and nothing of the answer",
    [fc.constantFrom("github" as const, "gitlab" as const), fc.integer({ min: 300, max: 599 }), fc.string({ minLength: 8 })],
    ([provider, status, text]) => {
      const error = ProviderHttp.classify(provider, answer(status, { "x-echo": encodeURIComponent(text) }, { message: text }), now)
      assert.instanceOf(error, VcsProviderError)
      assert.includeMembers(["_tag", "reason", "retryAfterSeconds"], Object.keys(JSON.parse(JSON.stringify(error))))
      if (status >= 500) assert.strictEqual(error.reason, "unavailable")
    }
  )

  it("reads retry-after as seconds or an HTTP date", () => {
    assert.strictEqual(ProviderHttp.parseRetryAfter("120", now), 120)
    assert.strictEqual(ProviderHttp.parseRetryAfter(new Date(now + 30_000).toUTCString(), now), 30)
    assert.strictEqual(ProviderHttp.parseRetryAfter(new Date(now - 30_000).toUTCString(), now), 1)
    assert.isUndefined(ProviderHttp.parseRetryAfter("soon", now))
    assert.isUndefined(ProviderHttp.parseRetryAfter(null, now))
  })
})

describe("paths", () => {
  prop(
    "a GitHub contents path that is accepted stays under /contents/ and decodes back to itself",
    [fc.array(fc.oneof(segment, fc.constantFrom(".", "..", "", "%2e%2e", "a?b", "#")), { minLength: 1, maxLength: 5 })],
    ([segments]) => {
      const path = segments.join("/")
      const accepted = ProviderHttp.safeSegments(path)
      if (accepted === undefined) {
        assert.isTrue(
          segments.some((s) => s === "" || s === "." || s === "..") || path.split("/").some((s) => s === "" || s === "." || s === "..")
        )
        return
      }
      const prefix = "/api/v3/repos/acme/api/contents/"
      const url = new URL(`https://ghe.example${prefix}${ProviderHttp.encodeSegments(accepted)}?ref=main`)
      assert.isTrue(url.pathname.startsWith(prefix))
      assert.strictEqual(url.search, "?ref=main")
      assert.strictEqual(url.pathname.slice(prefix.length).split("/").map(decodeURIComponent).join("/"), path)
    }
  )

  prop(
    "a GitLab project or file path is exactly one URL segment that decodes back to itself",
    [fc.array(segment, { minLength: 1, maxLength: 5 })],
    ([segments]) => {
      const path = segments.join("/")
      const url = new URL(`https://gitlab.example/api/v4/projects/${ProviderHttp.encodeWhole(path)}/repository`)
      const parts = url.pathname.split("/")
      assert.strictEqual(parts.length, 6)
      assert.strictEqual(decodeURIComponent(parts[4]!), path)
    }
  )
})

describe("text no store can hold", () => {
  // any UTF-16 code unit, lone surrogates and NUL included
  const anyText = codeUnitText({ maxLength: 20 })

  it("a segment holding NUL or a lone surrogate is refused (encodeURIComponent throws on a lone surrogate)", () => {
    for (const path of ["a\ud800", "\udc00", "acme/a\ud800b", "a\u0000b", "ok/\u0000", "\udc00\ud800"]) {
      assert.isUndefined(ProviderHttp.safeSegments(path), JSON.stringify(path))
    }
    assert.deepStrictEqual(ProviderHttp.safeSegments("acme/🚀 ü"), ["acme", "🚀 ü"])
  })

  prop("whatever the path, it is refused or its segments are storable and encode without throwing", [
    fc.array(anyText, { minLength: 1, maxLength: 4 })
  ], ([segments]) => {
    const path = segments.join("/")
    const accepted = ProviderHttp.safeSegments(path)
    if (accepted === undefined) return
    assert.isTrue(accepted.every(Text.isStorableText))
    assert.strictEqual(decodeURIComponent(ProviderHttp.encodeSegments(accepted)), path)
    assert.strictEqual(decodeURIComponent(ProviderHttp.encodeWhole(path)), path)
  })

  it("a git object id is lowercase hex of 40 or 64 digits", () => {
    const is = Schema.is(ProviderHttp.GitObjectId)
    assert.isTrue(is("0123456789abcdef0123456789abcdef01234567"))
    assert.isTrue(is("0123456789abcdef".repeat(4)))
    for (
      const bad of [
        "",
        "HEAD",
        "A".repeat(40),
        "a".repeat(39),
        "a".repeat(41),
        "a".repeat(63),
        "a".repeat(65),
        `${"a".repeat(40)}\u0000`,
        `${"a".repeat(40)}\n`
      ]
    ) {
      assert.isFalse(is(bad), JSON.stringify(bad))
    }
  })

  it("a pull or merge request number is a positive safe integer", () => {
    const is = Schema.is(ProviderHttp.RequestNumber)
    assert.isTrue(is(1))
    assert.isTrue(is(Number.MAX_SAFE_INTEGER))
    for (const bad of [0, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY]) assert.isFalse(is(bad), String(bad))
  })

  it.effect("a listing leaves out entries its entry schema refuses, but fails on an entry of another shape or a body that is not a list", () =>
    Effect.gen(function*() {
      const entry = Schema.Struct({ name: ProviderHttp.BranchName })
      const shape = Schema.Struct({ name: Schema.String })
      const decode = (body: unknown, withShape = true) => ProviderHttp.decodeEntries(entry, withShape ? shape : undefined, body)
      const body = [{ name: "main" }, { name: "a\u0000" }, { name: "\ud800" }, { name: "" }, { name: "x".repeat(256) }, { name: "release" }]
      assert.deepStrictEqual(yield* decode(body), [{ name: "main" }, { name: "release" }])
      assert.deepStrictEqual(yield* decode([]), [])
      for (const bad of [[{ name: "main" }, { name: 1 }], [{ name: "main" }, null], { name: "main" }, undefined]) {
        const error = yield* Effect.flip(decode(bad))
        assert.strictEqual(error.reason, "unavailable")
      }
      // without a shape every entry must be accepted
      assert.strictEqual((yield* Effect.flip(decode(body, false))).reason, "unavailable")
      assert.deepStrictEqual(yield* decode([{ name: "main" }], false), [{ name: "main" }])
    }))
})
