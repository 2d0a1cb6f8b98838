#!/usr/bin/env node
/**
 * Assembles what the container image runs (Dockerfile, runtime stage) into OUT: the root and
 * workspace package.json files, package-lock.json, each package's built `dist` (and the host's
 * `bin`), and the production dependencies only, installed from the lockfile. No sources, tests,
 * docs or devDependencies (the `node` devDependency included: the image brings its own Node).
 * The repository must be built first (`npm run build`). A test runs this into a temporary directory
 * and starts the host from it (packages/host/test/container.test.ts), so the image's layout is
 * proven without a Docker daemon.
 *
 *   node scripts/production-tree.js OUT [--offline]
 *
 * `npm ci` fails on this registry (STACK.md): `npm install --omit=dev` still follows the lockfile.
 * `--prefer-offline` (`--offline` to forbid the network) reuses npm's cache when it has the packages.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const [outArg, ...flags] = process.argv.slice(2)
if (outArg === undefined) {
  console.error("usage: node scripts/production-tree.js OUT [--offline]")
  process.exit(2)
}
const out = resolve(outArg)

const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
mkdirSync(out, { recursive: true })
// `prepare` would build again, and the other scripts need the devDependencies
writeFileSync(join(out, "package.json"), JSON.stringify({ ...rootPackage, scripts: {} }, null, 2) + "\n")
cpSync(join(root, "package-lock.json"), join(out, "package-lock.json"))

for (const workspace of rootPackage.workspaces) {
  const from = join(root, workspace)
  const to = join(out, workspace)
  if (!existsSync(join(from, "dist"))) {
    console.error(`production-tree: ${workspace}/dist is missing: run \`npm run build\` first`)
    process.exit(1)
  }
  mkdirSync(to, { recursive: true })
  const pkg = JSON.parse(readFileSync(join(from, "package.json"), "utf8"))
  writeFileSync(join(to, "package.json"), JSON.stringify({ ...pkg, scripts: {} }, null, 2) + "\n")
  // the files a package publishes (`files`), minus the type declarations a runtime never reads
  for (const entry of pkg.files ?? ["dist"]) {
    if (existsSync(join(from, entry))) {
      cpSync(join(from, entry), join(to, entry), {
        recursive: true,
        filter: (path) => !/\.d\.ts(\.map)?$|\.tsbuildinfo$/.test(path)
      })
    }
  }
}

execFileSync(
  "npm",
  [
    "install",
    "--omit=dev",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--no-update-notifier",
    flags.includes("--offline") ? "--offline" : "--prefer-offline"
  ],
  { cwd: out, stdio: ["ignore", "inherit", "inherit"] }
)
