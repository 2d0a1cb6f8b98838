/**
 * Request bodies on Node, read straight from `node:http`'s IncomingMessage.
 *
 * The platform's reader (`request.text` of @effect/platform-node) builds a cached Effect, runs it
 * through a fiber of its own, and reads inside an acquire/use/release that sets a string decoder
 * and destroys the stream after the end; measured on the benchmark's POST, that read costs about as
 * much as the rest of an Effect server's request. This reader collects the chunks with two listeners
 * and decodes them once. It only takes bodies whose declared content-length is within the limit
 * (`BodyGuard.bufferable`): larger ones are refused by `BodyGuard.check` before anything is read,
 * and chunked ones go to `BodyGuard.withDrainingBody`.
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { IncomingMessage } from "node:http"
import { Readable } from "node:stream"
import * as BodyGuard from "../http/BodyGuard.js"

type Read = Exit.Exit<Buffer, HttpServerError.RequestError>

export const reader: BodyGuard.BodyReader = (request, limit) => {
  const source = request.source
  if (!(source instanceof Readable) || !BodyGuard.bufferable(request, limit)) return request
  const message = source as IncomingMessage
  let read: Read | undefined
  let waiting: Array<(exit: Read) => void> | undefined
  const start = () => {
    let chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
    }
    const onEnd = () => settle(Exit.succeed(Buffer.concat(chunks, size)))
    const onError = (cause: unknown) => settle(Exit.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause })))
    const settle = (exit: Read) => {
      if (read !== undefined) return
      read = exit
      // the chunks are in the joined buffer now: nothing keeps them alive for the rest of the request
      // (the error listener stays, a no-op from now on: an error event without one would throw)
      chunks = []
      message.off("data", onData).off("end", onEnd)
      for (const resume of waiting ?? []) resume(exit)
      waiting = undefined
    }
    message.on("data", onData).once("end", onEnd).once("error", onError)
  }
  // read once, on first use; every later use (the body checks, then the decoder) gets the same result
  const bytes = Effect.async<Buffer, HttpServerError.RequestError>((resume) => {
    if (read !== undefined) return resume(read)
    if (waiting === undefined) {
      waiting = [resume]
      start()
    } else {
      waiting.push(resume)
    }
    return Effect.sync(() => {
      waiting = waiting?.filter((r) => r !== resume)
    })
  })
  // decoded once, on first use, like the platform's reader (which decodes as it reads)
  let decoded: string | undefined
  const text = Effect.map(bytes, (b) => decoded ??= b.toString("utf8"))
  return BodyGuard.withText(request, text, bytes)
}
