/**
 * The core's `Ids` port: ids and secret bytes from the platform's CSPRNG
 * (`crypto.getRandomValues`, available on Node and Deno). Tests use a seeded generator of their own
 * (adapters/test/support/seededIds.ts), never shipped.
 */
import { Id, Ids } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const ID_BYTES = 16
// getRandomValues refuses more than 65536 bytes per call
const MAX_CHUNK = 65_536

const secureBytes = (n: number): Uint8Array => {
  const out = new Uint8Array(n)
  for (let offset = 0; offset < n; offset += MAX_CHUNK) {
    globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(n, offset + MAX_CHUNK)))
  }
  return out
}

/** The port over a source of bytes (ids are `Id.make` of 16 of them). */
export const fromBytes = (bytes: (n: number) => Uint8Array): typeof Ids.Service =>
  Ids.of({
    next: (kind) => Effect.sync(() => Id.make(kind, bytes(ID_BYTES))),
    randomBytes: (n) => Effect.sync(() => bytes(n))
  })

/** Cryptographically secure ids and secrets: the production layer. */
export const layer: Layer.Layer<Ids> = Layer.succeed(Ids, fromBytes(secureBytes))
