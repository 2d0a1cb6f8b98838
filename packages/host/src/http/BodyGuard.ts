/**
 * Reads a request body once, before the handler decodes it, so the contracted order holds
 * (contracts 4: ... 403 -> 413 -> 400): bodies over the limit answer 413 without being buffered
 * past it, bodies that are not JSON answer 400 instead of reaching the decoder as a defect.
 * The text is cached by the request, so the decoder reads it again for free.
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Problems from "./Problems.js"

export const defaultMaxBodyBytes = 1024 * 1024

const tooLarge = (limit: number) =>
  Problems.make({ status: 413, type: "/problems/body-too-large", detail: `request bodies are limited to ${limit} bytes` })

const byteLength = (text: string) => new TextEncoder().encode(text).length

export const check = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function*() {
    if (request.method !== "POST" && request.method !== "PUT" && request.method !== "PATCH") return
    const declared = request.headers["content-length"]
    if (declared !== undefined && Number(declared) > limit) return yield* Effect.fail(tooLarge(limit))
    const contentType = request.headers["content-type"]
    const text = yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
      Effect.catchAll((error) =>
        Effect.fail(
          String((error as any).cause?.message ?? "").includes("maxBytes")
            ? tooLarge(limit)
            : Problems.make({ status: 400, type: "/problems/unreadable-body", detail: "the request body could not be read" })
        )
      )
    )
    // runtimes without a streaming limit (web handler) buffer first; the answer is the same
    if (text.length > limit / 4 && byteLength(text) > limit) return yield* Effect.fail(tooLarge(limit))
    if (text.trim() === "") return
    if (contentType !== undefined && !contentType.toLowerCase().includes("json")) {
      return yield* Effect.fail(Problems.make({
        status: 400,
        type: "/problems/unsupported-media-type",
        detail: "send JSON bodies with content-type: application/json"
      }))
    }
    try {
      JSON.parse(text)
    } catch {
      // the parser's message quotes the body, which may hold anything: never echo it
      return yield* Effect.fail(Problems.make({ status: 400, type: "/problems/malformed-json", detail: "the request body is not valid JSON" }))
    }
  })
