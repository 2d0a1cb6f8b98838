/**
 * "`npx @image-policy/host check` works from a clean directory after install" (issue 18). The five
 * workspaces are packed as `npm publish` would pack them (`npm pack`, from their built `dist`),
 * installed into a new directory with its own package.json (`npm install --offline`), and run
 * there as a user runs them: `npx --no-install @image-policy/host check …`. The children's PATH
 * holds Node 24 and npm but no `node_modules` folder of the repository, and the directory lies
 * outside the repository, so the installed copy can only load its own node_modules.
 *
 * Nothing is downloaded: the dependencies come from npm's cache, which the repository's own
 * `npm install` filled. support/packageLock.ts says why that needs a lockfile, cut from the
 * repository's, and why that lockfile still catches an undeclared dependency.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, root } from "./support/build.js"
import { cleanEnv, type Outcome, spawnOutcome } from "./support/cli.js"
import { lockfileFor, type Packed } from "./support/packageLock.js"

const workspaces = ["packages/core", "packages/adapters", "packages/client", "packages/console", "packages/host"] as const
const manifestVersion = (workspace: string): string => JSON.parse(readFileSync(join(root, workspace, "package.json"), "utf8")).version
const fixtures = fileURLToPath(new URL("./fixtures/check/", import.meta.url))

let work = ""
let app = ""
/** What `npm pack --json` said about each tarball. */
let packs: ReadonlyArray<{ readonly name: string; readonly filename: string; readonly files: ReadonlyArray<{ readonly path: string }> }> =
  []

/**
 * The children's environment: no IMAGE_POLICY_ settings, none of the npm settings a parent `npm
 * run` passes down (its prefix is the repository), no NODE_PATH or NODE_OPTIONS, npm offline
 * (never the network, not even its update check); PATH: a folder holding only this Node, then the
 * system's folders without any `node_modules`.
 */
const childEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(cleanEnv())) {
    if (/^npm_/i.test(key) && !/^npm_config_(cache|registry)$/i.test(key)) continue
    if (key === "NODE_PATH" || key === "NODE_OPTIONS") continue
    env[key] = value
  }
  const system = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !dir.split(sep).includes("node_modules"))
  return {
    ...env,
    PATH: [join(work, "node"), ...system].join(delimiter),
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false"
  }
}

const exec = (command: string, args: ReadonlyArray<string>, cwd: string): Promise<Outcome> =>
  spawnOutcome(command, args, { cwd, env: childEnv() })

/** Runs and insists on exit 0, showing the output otherwise. */
const execOk = async (command: string, args: ReadonlyArray<string>, cwd: string) => {
  const result = await exec(command, args, cwd)
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.code}:\n${result.stderr}\n${result.stdout}`)
  return result
}

/** The installed command, as a user runs it from the directory that installed it. */
const npx = (args: ReadonlyArray<string>) => exec("npx", ["--no-install", "@image-policy/host", ...args], app)

beforeAll(async () => {
  await ensureBuilt()
  work = mkdtempSync(join(tmpdir(), "image-policy-packaging-"))
  // this Node (24; the machine's own may be older) and nothing else from the repository
  mkdirSync(join(work, "node"))
  symlinkSync(process.execPath, join(work, "node", "node"))

  const tarballs = join(work, "tarballs")
  mkdirSync(tarballs)
  const packed = await execOk(
    "npm",
    ["pack", "--json", "--pack-destination", tarballs, ...workspaces.flatMap((w) => ["--workspace", w])],
    root
  )
  packs = JSON.parse(packed.stdout)
  expect(packs.map((p) => p.name)).toEqual(workspaces.map((w) => `@image-policy/${w.slice("packages/".length)}`))

  app = join(work, "app")
  mkdirSync(app)
  const { lockfile, packageJson } = lockfileFor(
    root,
    "clean-install",
    workspaces.map((workspace, i): Packed => ({
      workspace,
      tarball: join(tarballs, packs[i]!.filename),
      spec: `file:../tarballs/${packs[i]!.filename}`
    }))
  )
  writeFileSync(join(app, "package.json"), JSON.stringify(packageJson, null, 2))
  writeFileSync(join(app, "package-lock.json"), JSON.stringify(lockfile, null, 2))
  await execOk("npm", ["install", "--offline", "--no-audit", "--no-fund"], app)

  // what a user checks: a tree of their own and their mappings file
  cpSync(join(fixtures, "tree"), join(app, "tree"), { recursive: true })
  cpSync(join(fixtures, "service-mappings.json"), join(app, "service-mappings.json"))
}, 600_000)

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true })
})

/** The repository's expected report with paths as seen from the directory above the tree. */
const expectedFromAbove = (file: string): unknown => {
  const prefix = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(prefix)
    if (value === null || typeof value !== "object") return value
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) =>
        // json findings name their `file`; SARIF locations and fixes an `artifactLocation.uri`
        key === "file" && typeof v === "string"
          ? [key, `tree/${v}`]
          : key === "artifactLocation"
          ? [key, { ...(v as object), uri: `tree/${(v as { uri: string }).uri}` }]
          : [key, prefix(v)]
      )
    )
  }
  // the expected files leave the version out (check.test.ts fills it in the same way)
  return prefix(
    JSON.parse(readFileSync(join(fixtures, "expected", file), "utf8").replaceAll("{{version}}", manifestVersion("packages/core")))
  )
}

describe("the packed packages", () => {
  it("hold what runs (the built dist, the host's bin and entries) and no sources, tests, source maps or secrets", () => {
    for (const pack of packs) {
      const paths = pack.files.map((f) => f.path)
      expect(paths, pack.name).toContain("package.json")
      expect(paths.filter((p) => !/^(dist\/|bin\/|package\.json$|README\.md$)/.test(p)), pack.name).toEqual([])
      expect(
        paths.filter((p) => /(^|\/)(src|test|tests)\/|\.test\.|\.map$|\.tsbuildinfo$|(^|\/)\.env|\.(pem|key)$/.test(p)),
        pack.name
      ).toEqual([])
      // every file the manifest points at is in the tarball
      const manifest = JSON.parse(readFileSync(join(root, "packages", pack.name.slice("@image-policy/".length), "package.json"), "utf8"))
      const targets: Array<string> = [
        manifest.main,
        manifest.types,
        ...Object.values(manifest.bin ?? {}),
        ...Object.values(manifest.exports ?? {}).flatMap((e) => (typeof e === "string" ? [e] : Object.values(e as object)))
      ].filter((t): t is string => typeof t === "string")
      for (const target of targets) {
        const path = target.replace(/^\.\//, "")
        if (path.includes("*")) {
          const pattern = new RegExp(`^${path.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+")}$`)
          expect(paths.some((p) => pattern.test(p)), `${pack.name}: ${target}`).toBe(true)
        } else {
          expect(paths, `${pack.name}: ${target}`).toContain(path)
        }
      }
    }
    const host = packs.find((p) => p.name === "@image-policy/host")!.files.map((f) => f.path)
    expect(host).toEqual(expect.arrayContaining(["bin/image-policy.js", "dist/cli.js", "dist/check/main.js"]))
    expect(packs.find((p) => p.name === "@image-policy/console")!.files.map((f) => f.path)).toContain("dist/index.html")
  })

  it("are installed as copies in the clean directory, not links to the repository", () => {
    for (const w of workspaces) {
      const installed = join(app, "node_modules/@image-policy", w.slice("packages/".length))
      expect(lstatSync(installed).isSymbolicLink(), installed).toBe(false)
      const { name, version } = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))
      expect({ name, version }).toEqual({ name: `@image-policy/${w.slice("packages/".length)}`, version: manifestVersion(w) })
    }
    expect(existsSync(join(app, "node_modules/.bin/image-policy"))).toBe(true)
  })
})

describe("npx @image-policy/host from the clean directory", () => {
  it("check: exit 1 with the out-of-policy findings, the same report as the repository's build (json)", async () => {
    const r = await npx(["check", "--mappings", "service-mappings.json", "--format", "json", "tree"])
    expect(r.stderr).toBe("image-policy: 15 findings out of policy\n")
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout)
    expect(report.summary).toMatchObject({ files: 7, findings: 23, outOfPolicy: 15 })
    expect(report).toEqual(expectedFromAbove("report.json"))
    // node_modules is skipped in the user's tree too
    expect(r.stdout).not.toContain("node_modules")
  }, 120_000)

  it("check --format sarif: exit 1, the repository's SARIF report", async () => {
    const r = await npx(["check", "--mappings", "service-mappings.json", "--format", "sarif", "tree"])
    expect(r.code).toBe(1)
    const sarif = JSON.parse(r.stdout)
    expect(sarif.version).toBe("2.1.0")
    expect(sarif.runs[0].results).toHaveLength(15)
    expect(sarif).toEqual(expectedFromAbove("report.sarif"))
  }, 120_000)

  it("check --fail-on none: exit 0 whatever is found", async () => {
    const r = await npx(["check", "--mappings", "service-mappings.json", "--fail-on", "none", "tree"])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("15 out of policy")
  }, 120_000)

  it("--help lists check (the whole host loads from the installed packages)", async () => {
    const r = await npx(["--help"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^\s+check\s+scan files for container image references/m)
    expect(r.stdout).toContain("serve")
  }, 120_000)
})
