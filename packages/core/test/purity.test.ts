import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// ARCHITECTURE: the core is pure: no I/O and no ambient state; time, ids, randomness and I/O come in
// through services. It may import libraries that are pure themselves, named here, each for a reason
// (eslint.config.js holds the same list):
const allowedLibraries = [
  "effect", // the framework the core is written in
  "yaml" // the scanner's YAML reader: no I/O, no globals, runs in browsers and Deno
]
const src = fileURLToPath(new URL("../src", import.meta.url))
const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]))

/** A relative module of the core itself, or an allowed library or one of its subpaths (`effect/Schema`). */
const allowed = (spec: string) => /^\.\.?\/.+\.js$/.test(spec) || allowedLibraries.some((lib) => spec === lib || spec.startsWith(`${lib}/`))

describe("core purity", () => {
  const sources = files(src).filter((f) => f.endsWith(".ts"))
  it("has sources to check", () => assert.isAbove(sources.length, 10))
  it("the allowlist rejects what it does not name", () => {
    for (const spec of ["node:fs", "fs", "lodash", "@effect/platform", "yaml-extra", "effectful", "../x"]) {
      assert.isFalse(allowed(spec), spec)
    }
    for (const spec of ["effect", "effect/Schema", "yaml", "./Scanner.js", "../Platform.js"]) assert.isTrue(allowed(spec), spec)
  })
  for (const file of sources) {
    it(`${file.slice(src.length + 1)} imports allowed libraries or its own modules only, and no ambient I/O`, () => {
      const text = readFileSync(file, "utf8")
      const imports = [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!)
      for (const spec of imports) assert.isTrue(allowed(spec), `${spec} is not on the core's allowlist`)
      for (const banned of [/\bprocess\./, /\bfetch\(/, /Date\.now\(/, /Math\.random\(/, /\bsetTimeout\(/, /\bcrypto\./]) {
        assert.notMatch(text, banned, String(banned))
      }
    })
  }
})
