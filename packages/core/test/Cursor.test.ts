import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import * as Cursor from "../src/Cursor.js"
import { prop } from "./support/fcProp.js"

const position = fc.record({
  sortKey: fc.oneof(fc.string(), fc.integer(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
  id: fc.string()
})

describe("Cursor", () => {
  prop("decode(encode(p)) equals p", [position], ([p]) => {
    assert.deepStrictEqual(Result.getOrThrow(Cursor.decodeCursor(Cursor.encodeCursor(p))), p)
  })

  prop("a changed character is detected (or decodes to the same position); it never throws", [
    position,
    fc.nat(),
    fc.constantFrom(..."ABCxyz019-_=+/.")
  ], ([p, at, ch]) => {
    const cursor = Cursor.encodeCursor(p)
    const i = at % cursor.length
    const mangled = cursor.slice(0, i) + ch + cursor.slice(i + 1)
    const result = Cursor.decodeCursor(mangled)
    if (Result.isSuccess(result)) assert.deepStrictEqual(result.success, p)
    else assert.strictEqual(result.failure._tag, "InvalidCursor")
  })

  prop("random strings never throw", [fc.string({ maxLength: 3000 })], ([s]) => {
    const result = Cursor.decodeCursor(s)
    assert.isTrue(Result.isFailure(result) || Result.isSuccess(result))
  })

  prop("a well-formed cursor holding text a store cannot hold (NUL, lone surrogate) or a number it cannot bind is invalid", [
    fc.oneof(
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => ({ sortKey: `${a}\u0000${b}`, id: "x" })),
      fc.tuple(fc.string(), fc.integer({ min: 0xd800, max: 0xdfff })).map(([a, c]) => ({
        sortKey: "k",
        id: `${a}${String.fromCharCode(c)}`
      })),
      fc.double({ noNaN: false }).filter((n) => !Number.isSafeInteger(n)).map((n) => ({ sortKey: n, id: "x" }))
    )
  ], ([p]) => {
    const result = Cursor.decodeCursor(Cursor.encodeCursor(p))
    assert.isTrue(Result.isFailure(result))
  })

  it("astral characters (surrogate pairs) are storable text", () => {
    const p = { sortKey: "team 🚀", id: "𝔘" }
    assert.deepStrictEqual(Result.getOrThrow(Cursor.decodeCursor(Cursor.encodeCursor(p))), p)
  })

  it("truncation is detected", () => {
    const cursor = Cursor.encodeCursor({ sortKey: "2026-01-01T00:00:00.000Z", id: "team_abc" })
    assert.isTrue(Result.isFailure(Cursor.decodeCursor(cursor.slice(0, -3))))
  })

  it("page requests default the limit to 50 and bound it to 1..200", () => {
    const decode = Schema.decodeUnknownResult(Cursor.PageRequest)
    assert.deepStrictEqual(Result.getOrThrow(decode({})), { limit: 50 })
    assert.deepStrictEqual(Result.getOrThrow(decode({ limit: "200" })), { limit: 200 })
    for (const limit of ["0", "201", "1.5", "x", "-1"]) assert.isTrue(Result.isFailure(decode({ limit })), limit)
    assert.isTrue(Result.isFailure(decode({ cursor: "garbage" })))
    const cursor = Cursor.encodeCursor({ sortKey: "a", id: "b" })
    assert.deepStrictEqual(Result.getOrThrow(decode({ cursor })), { cursor, limit: 50 })
  })
})
