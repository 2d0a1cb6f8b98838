import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Platform from "../src/Platform.js"
import { prop } from "./support/fcProp.js"

const canonical = (s: string) => Result.getOrThrow(Platform.normalizePlatformScope(s))

describe("Platform", () => {
  it("accepts os/arch[/variant] and normalizes like containerd", () => {
    assert.strictEqual(canonical("linux/amd64"), "linux/amd64")
    assert.strictEqual(canonical("Linux/AMD64"), "linux/amd64")
    assert.strictEqual(canonical("linux/x86_64"), "linux/amd64")
    assert.strictEqual(canonical("linux/aarch64"), "linux/arm64")
    assert.strictEqual(canonical("linux/arm64/v8"), "linux/arm64")
    assert.strictEqual(canonical("linux/arm"), "linux/arm/v7")
    assert.strictEqual(canonical("linux/armhf"), "linux/arm/v7")
    assert.strictEqual(canonical("linux/arm/v6"), "linux/arm/v6")
    assert.strictEqual(canonical("windows/amd64"), "windows/amd64")
    assert.strictEqual(canonical(""), "")
  })

  it("rejects unknown systems, architectures and variants with a reason", () => {
    for (const bad of ["linux", "linux/", "beos/amd64", "linux/z80", "linux/amd64/v9", "linux/386/v7", "a/b/c/d", "linux/arm/v9"]) {
      const result = Platform.normalizePlatformScope(bad)
      assert.isTrue(Result.isFailure(result), bad)
    }
  })

  prop("normalization is idempotent and never throws", [fc.string({ maxLength: 40 })], ([s]) => {
    const result = Platform.normalizePlatformScope(s)
    if (Result.isSuccess(result)) assert.strictEqual(canonical(result.success), result.success)
    else assert.strictEqual(result.failure._tag, "InvalidPlatform")
  })
})
