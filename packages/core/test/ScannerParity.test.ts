// TEMPORARY: the hand-written YAML reader (support/LegacyScanner.ts) and the `yaml` package reader side by side.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Scanner from "../src/Scanner.js"
import * as Legacy from "./support/LegacyScanner.js"
import { manifest } from "./support/scannerManifests.js"

const root = fileURLToPath(new URL("./fixtures/scanner", import.meta.url))
const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]))
const fixtures = walk(root).sort().map((p) => ({ path: relative(root, p).split("\\").join("/"), content: readFileSync(p, "utf8") }))

const summary = (f: Scanner.Finding) =>
  `${f.line}:${f.column} ${f.reference} -> ${f.image ?? (f.unresolved ? `unresolved ${f.unresolved.join(",")}` : "?")}${f.platform ? ` @${f.platform}` : ""}`

// every YAML input of Scanner.test.ts
const inputs: Array<[string, string]> = [
  ["compose.yml", "x-a: &a\n  image: base:1\nservices:\n  one: *a\n  two:\n    <<: *a\n  three:\n    <<: [*a]\n    image: own:2\n"],
  ["compose.yaml", 'services:\n  a:\n    image: "nginx\\u003a1"\n'],
  ["compose.yml", "services:\n  a:\n    image: ~\n  b:\n    image: null\n  c: {build: ., image: x:1}\n"],
  ["docker-compose.yml", "web:\n  image: nginx:1\nx-ext:\n  image: no:1\n"],
  ["pod.yaml", "\uFEFFapiVersion: v1\r\nkind: Pod\r\nspec:\r\n  containers:\r\n  - name: a\r\n    image: a:1 # comment\r\n    args:\r\n    - |\r\n      image: b:1\r\n---\r\ncontainers: [{image: c:1}]\r\n"],
  ["p.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  nodeSelector: {kubernetes.io/arch: amd64}\n  containers: [{image: a}]\n"],
  ["p.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  os: {name: windows}\n  nodeSelector: {beta.kubernetes.io/arch: amd64}\n  containers: [{image: a}]\n"],
  ["p.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  nodeSelector: {kubernetes.io/os: linux}\n  containers: [{image: a}]\n"],
  [".github/workflows/w.yml", "jobs:\n  a:\n    uses: org/repo/.github/workflows/x.yml@v1\n  b:\n    steps:\n    - uses: actions/setup-node@v4\n    - uses: docker://\n    - uses: docker://x:1\n"],
  ["action.yaml", "runs:\n  using: docker\n  image: Dockerfile\n"]
]

describe("legacy and yaml readers side by side", () => {
  it("same findings on every fixture", () => {
    for (const f of fixtures) assert.deepStrictEqual(Scanner.scanFile(f.path, f.content), Legacy.scanFile(f.path, f.content), f.path)
  })
  it("same findings on every YAML input of the unit tests", () => {
    for (const [path, content] of inputs) assert.deepStrictEqual(Scanner.scanFile(path, content), Legacy.scanFile(path, content), content)
  })
  it("generated manifests: each reader against the generator's expectations, and against each other", () => {
    const stats = { runs: 0, legacyWrong: 0, newWrong: 0, differ: 0 }
    const samples: Array<string> = []
    fc.assert(fc.property(manifest, (m) => {
      stats.runs++
      const got = Scanner.scanFile(m.path, m.content).map(summary)
      const old = Legacy.scanFile(m.path, m.content).map(summary)
      const ok = JSON.stringify(got) === JSON.stringify(m.expected)
      const oldOk = JSON.stringify(old) === JSON.stringify(m.expected)
      if (!ok) stats.newWrong++
      if (!oldOk) stats.legacyWrong++
      if (JSON.stringify(got) !== JSON.stringify(old)) {
        stats.differ++
        if (samples.length < 1) samples.push(JSON.stringify({ content: m.content, expected: m.expected, got, old }, null, 1))
      }
      return true
    }), { numRuns: Number(process.env.PARITY_RUNS ?? 3000), seed: 42 })
    console.log(stats, "\n" + samples.join("\n"))
  })
})
