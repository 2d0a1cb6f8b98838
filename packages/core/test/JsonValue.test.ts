/** JsonValue: the depth and storable-text checks run on parsed JSON before any schema. */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as JsonValue from "../src/JsonValue.js"
import * as Text from "../src/Text.js"
import { codeUnitText } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"

const depthOf = (value: unknown): number =>
  typeof value !== "object" || value === null
    ? 0
    : 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf))

// any UTF-16 code units, NUL and lone surrogates included
const anyText = codeUnitText({ maxLength: 6 })
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, anyText, fc.integer(), fc.boolean(), fc.constant(null), tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 3 }),
  object: fc.dictionary(anyText, tie("value"), { maxKeys: 3 })
})).value

/** Every string of the value (keys too), by a plain recursive walk. */
const strings = (value: unknown): Array<string> =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
    ? value.flatMap(strings)
    : typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)])
    : []

describe("JsonValue", () => {
  prop(
    "withinDepth holds exactly when the value nests no deeper than the limit",
    [json, fc.integer({ min: 0, max: 6 })],
    ([value, limit]) => {
      assert.strictEqual(JsonValue.withinDepth(value, limit), depthOf(value) <= limit)
    }
  )

  prop("unstorableFields names a path for each unstorable string and none when all are storable", [json], ([value]) => {
    const bad = strings(value).filter((s) => !Text.isStorableText(s)).length
    const found = JsonValue.unstorableFields(value)
    assert.strictEqual(found.length, Math.min(bad, 20))
    for (const f of found) assert.strictEqual(f.message, Text.unstorableMessage)
  })

  it("paths use the form of schema errors; a bad key is named by its position", () => {
    assert.deepStrictEqual(JsonValue.unstorableFields({ a: [{ b: "x\u0000" }], ["k\ud800"]: 1 }), [
      { path: "a[0].b", message: Text.unstorableMessage },
      { path: "(invalid key)", message: Text.unstorableMessage }
    ])
    assert.deepStrictEqual(JsonValue.unstorableFields("\u0000").map((f) => f.path), ["(body)"])
  })
})
