/**
 * `Input.validate`: the workflows' check of typed input against the request schemas, as the HTTP
 * API's decoder checks bodies (an embedder's values were never decoded).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Schema } from "effect"
import * as Input from "../src/Input.js"
import * as Text from "../src/Text.js"

const Request = Schema.Struct({
  name: Text.storable(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(10))),
  tags: Schema.Array(Text.StorableString)
})

// any UTF-16 code units, NUL and lone surrogates included
const anyText = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 14 }).map((units) => String.fromCharCode(...units))

describe("Input.validate", () => {
  it.effect.prop("accepts exactly the values of the schema's type, as they are", [anyText, fc.array(anyText, { maxLength: 3 })], ([name, tags]) =>
    Effect.gen(function*() {
      const input = { name, tags }
      const exit = yield* Effect.exit(Input.validate(Request, input))
      assert.strictEqual(Exit.isSuccess(exit), Schema.is(Request)(input))
      if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, input)
    }))

  it.effect("names every refused field, and never repeats the refused value", () =>
    Effect.gen(function*() {
      const secret = "s3cret-value"
      const error = yield* Effect.flip(Input.validate(Request, { name: ` ${secret} `, tags: ["ok", `x\u0000${secret}`] }))
      assert.strictEqual(error._tag, "InvalidInput")
      assert.deepStrictEqual(error.errors.map((e) => e.path), ["name", "tags[1]"])
      assert.notInclude(JSON.stringify(error.errors), secret)
      assert.include(error.errors[1]!.message, Text.unstorableMessage)
    }))
})
