/**
 * Deterministic ids for tests: the same seed gives the same sequence of ids and bytes, each layer
 * build starting afresh. Not secret, so it lives with the tests and is never exported by the package.
 */
import { Ids } from "@image-policy/core"
import * as Layer from "effect/Layer"
import { fromBytes } from "../../src/crypto/RandomIds.js"

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
