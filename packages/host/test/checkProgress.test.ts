/**
 * The progress line of `image-policy check` (check/Progress.ts): drawn on a terminal only, only
 * while more than a second of work remains at the rate so far, and erased at the end.
 */
import { describe, expect, it } from "vitest"
import * as Progress from "../src/check/Progress.js"

const stream = (isTTY: boolean) => {
  const written: Array<string> = []
  return { isTTY, write: (text: string) => written.push(text), written }
}

/** Runs `total` files taking `msEach` each on a fake clock. */
const simulate = (isTTY: boolean, total: number, msEach: number) => {
  const out = stream(isTTY)
  let now = 0
  const progress = Progress.make(total, out, () => now)
  for (let i = 0; i < total; i++) {
    now += msEach
    progress.advance()
  }
  progress.end()
  return out.written
}

describe("check progress line", () => {
  it("off a terminal, nothing is ever written", () => {
    expect(simulate(false, 5_000, 2)).toEqual([])
  })

  it("on a terminal, long work shows files done / total, redrawn in place at most every 100 ms, then erased", () => {
    const written = simulate(true, 5_000, 2)
    expect(written.length).toBeGreaterThan(10)
    expect(written.length).toBeLessThanOrEqual(10_000 / 100 + 1)
    expect(written[0]).toBe("\r\u001b[2Kchecking 100/5,000 files")
    expect(written.at(-2)!.startsWith("\r\u001b[2Kchecking ")).toBe(true)
    expect(written.at(-2)).toMatch(/[\d,]+\/5,000 files$/)
    expect(written.at(-1)).toBe("\r\u001b[2K")
  })

  it("on a terminal, work that ends within a second of the start shows nothing", () => {
    expect(simulate(true, 400, 2)).toEqual([])
    expect(simulate(true, 1, 900)).toEqual([])
  })

  it("the work left is estimated from the rate so far", () => {
    expect(Progress.remainingMs(1_000, 100, 600)).toBe(5_000)
    expect(Progress.remainingMs(1_000, 0, 600)).toBe(Number.POSITIVE_INFINITY)
    expect(Progress.remainingMs(1_000, 600, 600)).toBe(0)
  })
})
