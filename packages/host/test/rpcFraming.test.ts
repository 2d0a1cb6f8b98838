/**
 * The decision client's NDJSON parser (`@image-policy/client`'s rpc/Ndjson.ts) reads what Effect's
 * RPC serialization writes, however the network cuts the bytes: inside a line, between the bytes of
 * one character, at a carriage return, one byte at a time. It gives the messages Effect's own parser
 * gives, and fails as it does on a line that is not JSON.
 */
import { assert, describe, it } from "@effect/vitest"
import { DecisionFraming as Ndjson } from "@image-policy/client"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as fc from "fast-check"

const encoder = new TextEncoder()

/** `bytes` cut at the given positions (sorted, deduplicated, within the bytes). */
const cut = (bytes: Uint8Array, at: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b)
  const parts: Array<Uint8Array> = []
  let from = 0
  for (const point of [...points, bytes.length]) {
    parts.push(bytes.slice(from, point))
    from = point
  }
  return parts
}

const decodeAll = (parts: ReadonlyArray<Uint8Array>) => {
  const parser = Ndjson.ndjson.makeUnsafe()
  return parts.flatMap((part) => parser.decode(part))
}

// messages as the RPC protocol sends them, with text of every kind (multi-byte, astral, escapes)
const message = fc.record({
  _tag: fc.constant("Chunk"),
  requestId: fc.string(),
  values: fc.array(fc.record({ image: fc.string({ unit: "grapheme" }), note: fc.option(fc.string({ unit: "binary" })) }))
})

describe("decision client NDJSON framing", () => {
  it("reads what Effect's serialization writes, cut anywhere, as Effect's parser does", () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (messages, at, crlf) => {
          const text = String(RpcSerialization.ndjson.makeUnsafe().encode(messages) ?? "")
          const bytes = encoder.encode(crlf ? text.replaceAll("\n", "\r\n") : text)
          const parts = cut(bytes, at)
          const ours = decodeAll(parts)
          assert.deepStrictEqual(ours, messages)
          const effects = RpcSerialization.ndjson.makeUnsafe()
          assert.deepStrictEqual(ours, parts.flatMap((part) => effects.decode(part)))
        }
      ),
      { numRuns: 300 }
    )
  })

  it("reads a message sent one byte at a time, and a line that has not ended yet gives nothing", () => {
    const line = encoder.encode(`{"image":"registry.example.com/ünïcödé/🐳:1"}\n`)
    const parser = Ndjson.ndjson.makeUnsafe()
    const seen: Array<unknown> = []
    for (let i = 0; i < line.length; i++) {
      const items = parser.decode(line.subarray(i, i + 1))
      if (i < line.length - 1) assert.deepStrictEqual(items, [])
      seen.push(...items)
    }
    assert.deepStrictEqual(seen, [{ image: "registry.example.com/ünïcödé/🐳:1" }])
  })

  it("fails on a line that is not JSON, as Effect's parser does", () => {
    const bytes = encoder.encode("{\"a\":1}\nnot json\n")
    const failure = (decode: (bytes: Uint8Array) => unknown) => {
      try {
        decode(bytes)
      } catch (error) {
        return (error as { readonly _tag?: string })._tag
      }
      return "no failure"
    }
    assert.strictEqual(failure((b) => Ndjson.ndjson.makeUnsafe().decode(b)), "NdjsonDecodeError")
    assert.strictEqual(failure((b) => RpcSerialization.ndjson.makeUnsafe().decode(b)), "NdjsonDecodeError")
  })

  it("encodes as Effect's serialization does, values sent before included", () => {
    const messages = [{ _tag: "Exit", requestId: "1", exit: { _tag: "Success", value: null } }]
    assert.strictEqual(Ndjson.ndjson.makeUnsafe().encode(messages), RpcSerialization.ndjson.makeUnsafe().encode(messages))
    assert.strictEqual(Ndjson.ndjson.contentType, "application/x-ndjson")
    fc.assert(
      fc.property(
        fc.array(fc.record({ image: fc.string({ unit: "grapheme" }), n: fc.option(fc.integer()) }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(fc.oneof(fc.string(), fc.nat()), fc.array(fc.nat(), { maxLength: 6 })), { maxLength: 6 }),
        (values, chunks) => {
          // the same value objects in message after message, as the host sends remembered decisions
          const messages = chunks.map(([requestId, picks]) => ({
            _tag: "Chunk",
            requestId,
            values: picks.map((i) => values[i % values.length])
          }))
          const ours = Ndjson.ndjson.makeUnsafe()
          const effects = RpcSerialization.ndjson.makeUnsafe()
          assert.strictEqual(ours.encode(messages), effects.encode(messages))
          for (const message of messages) assert.strictEqual(ours.encode(message), effects.encode(message))
        }
      ),
      { numRuns: 200 }
    )
  })
})
