import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import * as Text from "../src/Text.js"
import { codeUnitText } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

// any UTF-16 code units, NUL and lone surrogates included
const anyText = codeUnitText({ maxLength: 40 })

describe("Text", () => {
  prop("utf8Length is what a UTF-8 encoder writes, lone surrogates included", [
    fc.oneof(codeUnitText(), fc.string({ unit: "binary" }), fc.string())
  ], ([text]) => {
    assert.strictEqual(Text.utf8Length(text), new TextEncoder().encode(text).length)
  })

  prop("constantTimeEqual is string equality", [anyText, anyText], ([a, b]) => {
    assert.strictEqual(Text.constantTimeEqual(a, b), a === b)
    assert.isTrue(Text.constantTimeEqual(a, a))
  })

  prop("storableText answers storable text of the same length", [anyText], ([text]) => {
    const stored = Text.storableText(text)
    assert.isTrue(Text.isStorableText(stored))
    assert.strictEqual(stored.length, text.length)
  })

  prop("storable text is left as it is", [anyText], ([text]) => {
    if (Text.isStorableText(text)) assert.strictEqual(Text.storableText(text), text)
  })

  prop("StorableString accepts exactly the storable text, and says why it refuses", [anyText], ([text]) => {
    const decoded = Schema.decodeUnknownResult(Text.StorableString)(text)
    assert.strictEqual(Result.isSuccess(decoded), Text.isStorableText(text))
    if (Result.isFailure(decoded)) assert.include(decoded.failure.message, Text.unstorableMessage)
  })

  prop("compareCodePoints orders storable texts as their UTF-8 bytes (PostgreSQL's COLLATE \"C\")", [
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.string({ unit: "binary", maxLength: 12 })
  ], ([a, b]) => {
    const bytes = (t: string) => Array.from(new TextEncoder().encode(t))
    const [x, y] = [bytes(a), bytes(b)]
    let expected = 0
    for (let i = 0; i < Math.min(x.length, y.length) && expected === 0; i++) expected = x[i]! - y[i]!
    if (expected === 0) expected = x.length - y.length
    assert.strictEqual(Math.sign(Text.compareCodePoints(a, b)), Math.sign(expected))
  })

  it("compareCodePoints puts fullwidth letters before emoji, as UTF-8 does and UTF-16 does not", () => {
    const names = ["😀 smile", "Ａ wide", "Z plain"]
    assert.deepStrictEqual([...names].sort(Text.compareCodePoints), ["Z plain", "Ａ wide", "😀 smile"])
    assert.deepStrictEqual([...names].sort(), ["Z plain", "😀 smile", "Ａ wide"])
  })

  it("NUL and lone surrogates are not storable; surrogate pairs are", () => {
    for (const bad of ["a\u0000b", "\ud800", "x\udc00", "\udbff\u0041"]) assert.isFalse(Text.isStorableText(bad), JSON.stringify(bad))
    assert.isTrue(Text.isStorableText("🚀 𝔘 plain"))
    assert.strictEqual(Text.storableText("a\u0000\ud800b"), "a\ufffd\ufffdb")
  })
})
