/**
 * The suites run the console as users get it: the Vite build in `dist/`, served by the host. `npm
 * install` builds it; during development a source may be newer than the build, so build again
 * (under a lock: several suites may ask at once).
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

export const consoleRoot = fileURLToPath(new URL("../..", import.meta.url))
export const distDir = join(consoleRoot, "dist")
const repoRoot = join(consoleRoot, "..", "..")

const newest = (path: string): number => {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), 0)
}

const sources = () =>
  Math.max(
    newest(join(consoleRoot, "src")),
    newest(join(consoleRoot, "index.html")),
    newest(join(consoleRoot, "vite.config.ts")),
    // the typed client and the core shapes it bundles (from their sources: vite.config.ts)
    newest(join(repoRoot, "packages", "client", "src")),
    newest(join(repoRoot, "packages", "core", "src"))
  )

const stale = () => !existsSync(join(distDir, "index.html")) || statSync(join(distDir, "index.html")).mtimeMs < sources()

export const ensureConsoleBuilt = async () => {
  const lock = join(tmpdir(), `image-policy-console-build-${Buffer.from(consoleRoot).toString("hex").slice(-24)}.lock`)
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()
      if (Date.now() - since > 5 * 60_000) rmSync(lock, { recursive: true, force: true })
      await new Promise((r) => setTimeout(r, 300))
    }
  }
  try {
    if (stale()) {
      // vitest sets NODE_ENV=test, which would make Vite bundle React's development build
      await promisify(execFile)("npx", ["vite", "build", "--logLevel", "warn"], {
        cwd: consoleRoot,
        env: { ...process.env, NODE_ENV: "production" }
      })
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
