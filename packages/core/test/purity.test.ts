import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

// ARCHITECTURE: the core depends on `effect` only; time, ids, randomness and I/O come in through services.
const src = fileURLToPath(new URL("../src", import.meta.url))
const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]))

describe("core purity", () => {
  const sources = files(src).filter((f) => f.endsWith(".ts"))
  it("has sources to check", () => assert.isAbove(sources.length, 10))
  for (const file of sources) {
    it(`${file.slice(src.length + 1)} imports effect or its own modules only, and no ambient I/O`, () => {
      const text = readFileSync(file, "utf8")
      const imports = [...text.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!)
      for (const spec of imports) assert.match(spec, /^(effect(\/[A-Za-z0-9]+){0,2}|\.\.?\/.+\.js)$/, spec)
      for (const banned of [/\bprocess\./, /\bfetch\(/, /Date\.now\(/, /Math\.random\(/, /\bsetTimeout\(/, /\bcrypto\./]) {
        assert.notMatch(text, banned, String(banned))
      }
    })
  }
})
