/**
 * `Input.validate`: the workflows' check of typed input against the request schemas, as the HTTP
 * API's decoder checks bodies (an embedder's values were never decoded).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Result, Schema } from "effect"
import * as fc from "fast-check"
import * as Input from "../src/Input.js"
import * as Text from "../src/Text.js"
import { codeUnitText } from "./arbitraries.js"
import { effectProp } from "./support/fcProp.js"

const Request = Schema.Struct({
  name: Text.storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(10))),
  tags: Schema.Array(Text.StorableString)
})

// any UTF-16 code units, NUL and lone surrogates included
const anyText = codeUnitText({ maxLength: 14 })

describe("Input.validate", () => {
  effectProp(
    "accepts exactly the values of the schema's type, as they are",
    [anyText, fc.array(anyText, { maxLength: 3 })],
    ([name, tags]) =>
      Effect.gen(function*() {
        const input = { name, tags }
        const exit = yield* Effect.exit(Input.validate(Request, input))
        assert.strictEqual(Exit.isSuccess(exit), Schema.is(Request)(input))
        if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, input)
      })
  )

  it.effect("names every refused field, and never repeats the refused value", () =>
    Effect.gen(function*() {
      const secret = "s3cret-value"
      const error = yield* Effect.flip(Input.validate(Request, { name: ` ${secret} `, tags: ["ok", `x\u0000${secret}`] }))
      assert.strictEqual(error._tag, "InvalidInput")
      assert.deepStrictEqual(error.errors.map((e) => e.path), ["name", "tags[1]"])
      assert.notInclude(JSON.stringify(error.errors), secret)
      assert.include(error.errors[1]!.message, Text.unstorableMessage)
    }))

  describe("fieldErrors (the one formatter of field errors)", () => {
    const Body = Schema.Struct({
      name: Schema.String.check(Schema.isMinLength(3), Schema.isMaxLength(5)),
      role: Schema.Literals(["Owner", "Read Only"]),
      branchNames: Schema.Array(Schema.String),
      note: Schema.optionalKey(Schema.String)
    })
    const errorsOf = (input: unknown, options?: Input.FieldErrorsOptions) => {
      const decoded = Schema.decodeUnknownResult(Body, {
        errors: "all",
        onExcessProperty: "error",
        reportInput: options?.withValues === true
      })(input)
      return Result.isFailure(decoded) ? Input.fieldErrors(decoded.failure, "(body)", options) : []
    }

    it("keeps Effect 3's wording: a missing key `is missing`, an excess key `is unexpected, expected: ...`", () => {
      assert.deepStrictEqual(errorsOf({ name: "abcd", branchNames: [], colour: "red" }), [
        { path: "colour", message: `is unexpected, expected: "name" | "role" | "branchNames" | "note"` },
        { path: "role", message: "is missing" }
      ])
    })

    it("names nested paths, one error per path, and repeats no value unless asked", () => {
      const input = { name: "a-very-long-secret", role: "Janitor", branchNames: ["main", 5] }
      assert.deepStrictEqual(errorsOf(input), [
        { path: "name", message: "Expected a value with a length of at most 5" },
        { path: "role", message: `Expected "Owner" | "Read Only"` },
        { path: "branchNames[1]", message: "Expected string" }
      ])
      assert.notInclude(JSON.stringify(errorsOf(input)), "secret")
      assert.deepStrictEqual(errorsOf(input, { withValues: true }).map((e) => e.message), [
        `Expected a value with a length of at most 5, actual "a-very-long-secret"`,
        `Expected "Owner" | "Read Only", actual "Janitor"`,
        "Expected string, actual 5"
      ])
    })

    it("several failing checks of one value: the first one speaks (as Effect 3 stopped there)", () => {
      const Code = Schema.Struct({ code: Schema.String.check(Schema.isMinLength(3), Schema.isPattern(/^[a-z]+$/u)) })
      const decoded = Schema.decodeUnknownResult(Code, { errors: "all" })({ code: "A" })
      assert.deepStrictEqual(Result.isFailure(decoded) ? Input.fieldErrors(decoded.failure) : [], [
        { path: "code", message: "Expected a value with a length of at least 3" }
      ])
    })

    it("inside a union (as HttpApi wraps a body): two checks of one member are not joined, two members are", () => {
      const Mapping = Schema.Struct({ order: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 1_000_000 })) })
      const wrapped = Schema.decodeUnknownResult(Schema.Union([Mapping]), { errors: "all" })({ order: -1.5 })
      assert.deepStrictEqual(Result.isFailure(wrapped) ? Input.fieldErrors(wrapped.failure) : [], [
        { path: "order", message: "Expected an integer" }
      ])
      const Routing = Schema.Struct({ kind: Schema.Union([Schema.Literal("inherit"), Schema.Literal("none")]) })
      const either = Schema.decodeUnknownResult(Schema.Union([Routing]), { errors: "all" })({ kind: "x" })
      assert.deepStrictEqual(Result.isFailure(either) ? Input.fieldErrors(either.failure) : [], [
        { path: "kind", message: `Expected "inherit" | "none"` }
      ])
    })

    it("names the whole value by its root", () => {
      const decoded = Schema.decodeUnknownResult(Body)(null)
      assert.deepStrictEqual(Result.isFailure(decoded) ? Input.fieldErrors(decoded.failure, "(root)") : [], [{
        path: "(root)",
        message: "Expected object"
      }])
    })

    it("formatPath: mappings[3].fromImage", () => {
      assert.strictEqual(Input.formatPath(["mappings", 3, "fromImage"]), "mappings[3].fromImage")
      assert.strictEqual(Input.formatPath([{ key: "a" }, { key: 0 }]), "a[0]")
      assert.strictEqual(Input.formatPath([], "(root)"), "(root)")
    })
  })
})
