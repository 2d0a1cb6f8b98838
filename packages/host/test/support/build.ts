/**
 * The CLI and Deno suites run the BUILT packages (what `npx image-policy` and Deno run). `npm
 * install` builds them; during development a source may be newer than its build, so rebuild every
 * workspace package (in dependency order, the root `build` script) when any package's sources are
 * newer than its `dist`. Under a lock, because both suites may want the same build at once, and
 * asynchronously so the test worker keeps answering vitest.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

export const root = fileURLToPath(new URL("../../../..", import.meta.url))

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const path = join(dir, e.name)
    return Math.max(max, e.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }, 0)

const oldestBuild = (pkg: string, entries: ReadonlyArray<string>) =>
  Math.min(...entries.map((entry) => {
    const file = join(root, "packages", pkg, "dist", entry)
    return existsSync(file) ? statSync(file).mtimeMs : 0
  }))

const stale = () =>
  ([
    ["core", ["index.js"]],
    ["adapters", ["index.js"]],
    ["client", ["index.js"]],
    ["console", ["index.html"]],
    ["host", ["index.js", "cli.js", "check/main.js", "runtime/deno.js"]]
  ] as const)
    .some(([pkg, entries]) => oldestBuild(pkg, entries) < newest(join(root, "packages", pkg, "src")))

export const ensureBuilt = async () => {
  const lock = join(tmpdir(), `image-policy-build-${Buffer.from(root).toString("hex").slice(-24)}.lock`)
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()
      if (Date.now() - since > 10 * 60_000) rmSync(lock, { recursive: true, force: true })
      await new Promise((r) => setTimeout(r, 500))
    }
  }
  try {
    // vitest sets NODE_ENV=test, which would make Vite bundle the console with React's development build
    if (stale()) await promisify(execFile)("npm", ["run", "build"], { cwd: root, env: { ...process.env, NODE_ENV: "production" } })
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
