/**
 * Request bodies on Node, read straight from `node:http`'s IncomingMessage: an optional reader
 * (`App.RuntimeOptions.bodyReader`) the bench measures against the platform's own.
 *
 * The platform's reader (@effect/platform-node's `arrayBuffer`) already collects the chunks with
 * listeners; this one skips its cached-Effect and `finished` bookkeeping. It only takes bodies whose
 * declared content-length is within the limit (`BodyGuard.bufferable`): larger ones are refused by
 * `BodyGuard.check` before anything is read, and chunked ones keep the platform's bounded reader.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { HttpServerError } from "effect/http"
import type { IncomingMessage } from "node:http"
import { Readable } from "node:stream"
import * as BodyGuard from "../http/BodyGuard.js"

type Read = Exit.Exit<Buffer, HttpServerError.HttpServerError>

export const reader: BodyGuard.BodyReader = (request, limit) => {
  const source = request.source
  if (!(source instanceof Readable) || !BodyGuard.bufferable(request, limit)) return request
  const message = source as IncomingMessage
  // a client that waits for `100 Continue` gets it only from the platform's readers (they know whether
  // the server's checkContinue listener has answered yet), so such a request keeps them
  if (message.headers.expect !== undefined) return request
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
    const onError = (cause: unknown) =>
      settle(Exit.fail(
        new HttpServerError.HttpServerError({ reason: new HttpServerError.RequestParseError({ request, cause, reason: "Parse" }) })
      ))
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
  const bytes = Effect.callback<Buffer, HttpServerError.HttpServerError>((resume) => {
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
  return BodyGuard.withBody(request, bytes)
}
