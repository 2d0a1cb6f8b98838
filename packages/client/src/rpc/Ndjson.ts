/**
 * The decision API's NDJSON framing (`RpcSerialization.layerNdjson`'s protocol, byte for byte) with
 * a parser that reads bytes a line at a time. Effect's parser appends each network read to a string,
 * decoding UTF-8 in streaming mode (Node's slow path), and searches that string again from the start
 * of the unfinished line: a `Chunk` of 100 decisions (~40 KB) arrives in several reads, and on the
 * client this was most of the CPU of 100,000 decisions (bench/decisions.js). Here each read is searched
 * once for newline bytes and each whole line is decoded in one call and parsed once. A newline byte
 * never occurs inside a multi-byte UTF-8 sequence, so a line boundary is a character boundary.
 * Strings, and everything the host encodes, go through Effect's serialization unchanged.
 */
import * as Layer from "effect/Layer"
import * as RpcSerialization from "effect/rpc/RpcSerialization"

/** What one unfinished line may grow to before the answer is refused (Effect's default). */
const maxLineBytes = 16 * 1024 * 1024
const newline = 0x0a
const carriageReturn = 0x0d

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
      encode: strings.encode
    }
  }
}

export const layerNdjson: Layer.Layer<RpcSerialization.RpcSerialization> = Layer.succeed(RpcSerialization.RpcSerialization)(ndjson)
