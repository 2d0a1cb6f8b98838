/**
 * The core's `Ids` port: ids and secret bytes from the platform's CSPRNG
 * (`crypto.getRandomValues`, available on Node 20 and Deno), or from a seeded generator in tests.
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

const fromBytes = (bytes: (n: number) => Uint8Array): typeof Ids.Service =>
  Ids.of({
    next: (kind) => Effect.sync(() => Id.make(kind, bytes(ID_BYTES))),
    randomBytes: (n) => Effect.sync(() => bytes(n))
  })

/** Cryptographically secure ids and secrets: the production layer. */
export const layer: Layer.Layer<Ids> = Layer.succeed(Ids, fromBytes(secureBytes))

/**
 * Deterministic ids for tests: the same seed gives the same sequence of ids and bytes, each
 * layer build starting afresh. Not secret: never use it outside tests.
 */
export const layerSeeded = (seed: number): Layer.Layer<Ids> =>
  Layer.sync(Ids, () => {
    // mulberry32: tiny, fast, and good enough to make ids distinct and reproducible
    let state = seed >>> 0
    const nextByte = () => {
      state = (state + 0x6d2b79f5) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) & 0xff
    }
    return fromBytes((n) => {
      const out = new Uint8Array(n)
      for (let i = 0; i < n; i++) out[i] = nextByte()
      return out
    })
  })
