import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import * as Text from "../src/Text.js"

// any UTF-16 code units, NUL and lone surrogates included
const anyText = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }).map((units) => String.fromCharCode(...units))

describe("Text", () => {
  it.prop("storableText answers storable text of the same length", [anyText], ([text]) => {
    const stored = Text.storableText(text)
    assert.isTrue(Text.isStorableText(stored))
    assert.strictEqual(stored.length, text.length)
  })

  it.prop("storable text is left as it is", [anyText], ([text]) => {
    if (Text.isStorableText(text)) assert.strictEqual(Text.storableText(text), text)
  })

  it.prop("StorableString accepts exactly the storable text, and says why it refuses", [anyText], ([text]) => {
    const decoded = Schema.decodeUnknownEither(Text.StorableString)(text)
    assert.strictEqual(Either.isRight(decoded), Text.isStorableText(text))
    if (Either.isLeft(decoded)) assert.include(decoded.left.message, Text.unstorableMessage)
  })

  it("NUL and lone surrogates are not storable; surrogate pairs are", () => {
    for (const bad of ["a\u0000b", "\ud800", "x\udc00", "\udbff\u0041"]) assert.isFalse(Text.isStorableText(bad), JSON.stringify(bad))
    assert.isTrue(Text.isStorableText("🚀 𝔘 plain"))
    assert.strictEqual(Text.storableText("a\u0000\ud800b"), "a\ufffd\ufffdb")
  })
})
