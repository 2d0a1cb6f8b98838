/**
 * The console's bundle budget (issue 17 "Performance"), measured on the built files gzipped: the
 * first load (index.html's entry script and everything it imports statically) at most 200 KB of
 * JavaScript, every chunk loaded later (a page, the typed client) at most 100 KB.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { beforeAll, describe, expect, it } from "vitest"
import { distDir, ensureConsoleBuilt } from "./support/build.js"

const KB = 1024
const gzipped = (file: string) => gzipSync(readFileSync(join(distDir, file)), { level: 9 }).byteLength

/** `import ... from "./x.js"` and `import "./x.js"` at the top of a chunk (not `import("./x.js")`). */
const staticImports = (file: string): ReadonlyArray<string> => {
  const code = readFileSync(join(distDir, file), "utf8")
  const found = new Set<string>()
  for (const m of code.matchAll(/(?:^|[;}\n])\s*import\s*(?:[\w$*{}\s,]+from\s*)?["']([^"']+)["']/g)) found.add(m[1]!)
  // rolldown writes `export ... from "./x.js"` too
  for (const m of code.matchAll(/(?:^|[;}\n])\s*export\s*[\w$*{}\s,]+from\s*["']([^"']+)["']/g)) found.add(m[1]!)
  return [...found].map((spec) => join(file, "..", spec).replace(/^\.\//, ""))
}

describe("bundle budget", () => {
  let firstLoad: ReadonlyArray<string>
  let lazy: ReadonlyArray<string>

  beforeAll(async () => {
    await ensureConsoleBuilt()
    const html = readFileSync(join(distDir, "index.html"), "utf8")
    const entries = [...html.matchAll(/<script[^>]*type="module"[^>]*src="\/([^"]+)"/g)].map((m) => m[1]!)
    const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\/([^"]+)"/g)].map((m) => m[1]!)
    expect(entries.length).toBe(1)
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const next of staticImports(file)) visit(next)
    }
    for (const file of [...entries, ...preloads]) visit(file)
    firstLoad = [...seen]
    const all = readdirSync(join(distDir, "assets")).filter((f) => f.endsWith(".js")).map((f) => `assets/${f}`)
    lazy = all.filter((f) => !seen.has(f))
    const sizes = (files: ReadonlyArray<string>) => files.map((f) => `${f} ${(gzipped(f) / KB).toFixed(1)} KB`).join(", ")
    console.info(`first load: ${sizes(firstLoad)}\nlazy: ${sizes(lazy)}`)
  })

  it("the first load (the sign-in page) is at most 200 KB of JavaScript gzipped, without the typed client", () => {
    const total = firstLoad.reduce((sum, f) => sum + gzipped(f), 0)
    expect(total).toBeLessThanOrEqual(200 * KB)
    // the Effect HttpApi client comes with the pages, never with sign-in
    for (const file of firstLoad) expect(readFileSync(join(distDir, file), "utf8"), file).not.toContain("HttpApiClient")
  })

  it("every chunk loaded later is at most 100 KB gzipped, and the pages are chunks of their own", () => {
    expect(lazy.length).toBeGreaterThanOrEqual(12)
    for (const file of lazy) expect(gzipped(file), file).toBeLessThanOrEqual(100 * KB)
  })
})
