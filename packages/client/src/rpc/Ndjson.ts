/**
 * The decision API's NDJSON framing (`RpcSerialization.layerNdjson`'s protocol, byte for byte) with
 * a parser that reads bytes a line at a time. Effect's parser appends each network read to a string,
 * decoding UTF-8 in streaming mode (Node's slow path), and searches that string again from the start
 * of the unfinished line: a `Chunk` of 100 decisions (~40 KB) arrives in several reads, and on the
 * client this was most of the CPU of 100,000 decisions (bench/decisions.js). Here each read is searched
 * once for newline bytes and each whole line is decoded in one call and parsed once. A newline byte
 * never occurs inside a multi-byte UTF-8 sequence, so a line boundary is a character boundary.
 * Strings go through Effect's parser unchanged.
 *
 * Writing, a `Chunk` message's values are serialized once per value object: the host answers the
 * same decision objects again and again (it remembers its decisions, `Workflows.Decisions.indexed`),
 * and serializing every value of every message was the largest part of its CPU. The values must not
 * change once sent (decisions never do); every other message is `JSON.stringify`'s, as Effect's.
 */
import * as Layer from "effect/Layer"
import * as RpcSerialization from "effect/rpc/RpcSerialization"

/** What one unfinished line may grow to before the answer is refused (Effect's default). */
const maxLineBytes = 16 * 1024 * 1024
const newline = 0x0a
const carriageReturn = 0x0d

/** The JSON of values sent before, by value object. */
const sent = new WeakMap<object, string>()

const valueJson = (value: unknown): string => {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null"
  let json = sent.get(value)
  if (json === undefined) sent.set(value, json = JSON.stringify(value) ?? "null")
  return json
}

/** What `JSON.stringify` writes for `message`, plus the newline. */
const encodeMessage = (message: unknown): string => {
  const chunk = message as { readonly _tag?: unknown; readonly requestId?: unknown; readonly values?: unknown }
  if (chunk._tag === "Chunk" && Array.isArray(chunk.values)) {
    const keys = Object.keys(chunk)
    // only the envelope Effect's RPC server writes: `{ _tag, requestId, values }`, in that order
    const id = chunk.requestId
    if (keys.length === 3 && keys[1] === "requestId" && keys[2] === "values" && (typeof id === "string" || typeof id === "number")) {
      return `{"_tag":"Chunk","requestId":${JSON.stringify(id)},"values":[${chunk.values.map(valueJson).join(",")}]}\n`
    }
  }
  return JSON.stringify(message) + "\n"
}

const encode = (response: unknown): string | undefined => {
  if (!Array.isArray(response)) return encodeMessage(response)
  if (response.length === 0) return undefined
  let data = ""
  for (const message of response) data += encodeMessage(message)
  return data
}

export const ndjson: typeof RpcSerialization.RpcSerialization.Service = {
  ...RpcSerialization.ndjson,
  makeUnsafe: () => {
    const strings = RpcSerialization.ndjson.makeUnsafe()
    const decoder = new TextDecoder()
    // the bytes of the line not ended yet, in the reads that brought them
    let pending: Array<Uint8Array> = []
    let pendingBytes = 0

    const parseLine = (line: Uint8Array, items: Array<unknown>) => {
      const end = line.length > 0 && line[line.length - 1] === carriageReturn ? line.length - 1 : line.length
      if (end === 0) return
      try {
        items.push(JSON.parse(decoder.decode(end === line.length ? line : line.subarray(0, end))))
      } catch (cause) {
        pending = []
        pendingBytes = 0
        throw new RpcSerialization.NdjsonDecodeError({ cause })
      }
    }

    const decodeBytes = (bytes: Uint8Array): Array<unknown> => {
      const items: Array<unknown> = []
      let start = 0
      let end = bytes.indexOf(newline)
      while (end !== -1) {
        if (pendingBytes > 0) {
          const line = new Uint8Array(pendingBytes + end - start)
          let at = 0
          for (const part of pending) {
            line.set(part, at)
            at += part.length
          }
          line.set(bytes.subarray(start, end), at)
          pending = []
          pendingBytes = 0
          parseLine(line, items)
        } else {
          parseLine(bytes.subarray(start, end), items)
        }
        start = end + 1
        end = bytes.indexOf(newline, start)
      }
      if (start < bytes.length) {
        // the read's buffer may be reused by the transport: keep a copy
        pending.push(bytes.slice(start))
        pendingBytes += bytes.length - start
        if (pendingBytes > maxLineBytes) {
          pending = []
          pendingBytes = 0
          throw new RpcSerialization.MaxBufferSizeExceeded({ maxBufferSize: maxLineBytes })
        }
      }
      return items
    }

    return {
      decode: (data) => typeof data === "string" ? strings.decode(data) : decodeBytes(data),
      encode
    }
  }
}

export const layerNdjson: Layer.Layer<RpcSerialization.RpcSerialization> = Layer.succeed(RpcSerialization.RpcSerialization)(ndjson)
