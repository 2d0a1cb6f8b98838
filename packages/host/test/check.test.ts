/**
 * `image-policy check` (issue 18, offline mode; docs/cli.md#check) as a user runs it: the built bin
 * over the fixtures tree (every file kind the scanner reads) against a mappings file with exact,
 * repository, wildcard, platform-scoped and not-yet-active mappings. The table, JSON and SARIF
 * reports are compared with the checked-in files under fixtures/check/expected (`UPDATE_GOLDEN=1`
 * rewrites them after a deliberate change); the SARIF is validated against the official 2.1.0
 * schema; exit codes; `--fix` on a copy of the tree, twice; the entry `check` starts from
 * (dist/check/main.js) loads none of the host and answers as dist/cli.js does.
 */
import Ajv04Module from "ajv-draft-04"
import addFormatsModule from "ajv-formats"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, root } from "./support/build.js"
import { cleanEnv, run, spawnOutcome } from "./support/cli.js"
import { goldenIn } from "./support/golden.js"

const fixtures = fileURLToPath(new URL("./fixtures/check/", import.meta.url))
const tree = join(fixtures, "tree")
const mappings = join(fixtures, "service-mappings.json")
const expected = join(fixtures, "expected")
const version = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")).version as string

// CommonJS modules whose `module.exports` is the class / plugin and `.default` too: their typings name `.default`
const Ajv04 = Ajv04Module.default
const addFormats = addFormatsModule.default

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "image-policy-check-"))
  dirs.push(dir)
  return dir
}
beforeAll(ensureBuilt, 600_000)
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The report files under expected/ (`UPDATE_GOLDEN=1` rewrites them after a deliberate change). */
const golden = goldenIn(expected)

const check = (args: ReadonlyArray<string>, cwd = tree) => run(["check", ...args], {}, "", cwd)

/** Every file under a directory, by relative path, as bytes. */
const snapshot = (dir: string): Map<string, Buffer> => {
  const out = new Map<string, Buffer>()
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name)
      if (e.isDirectory()) walk(full)
      else out.set(relative(dir, full), readFileSync(full))
    }
  }
  walk(dir)
  return out
}

describe("check: reports", () => {
  it(
    "table (the default): every finding with its replacement or why there is none, then the summary; exit 1 when one is out of policy",
    async () => {
      const r = await check(["--mappings", mappings])
      expect(r.stderr).toBe("image-policy: 15 findings out of policy\n")
      expect(r.code).toBe(1)
      golden("table.txt", r.stdout)
      // node_modules is skipped, and files the scanner does not read are not counted
      expect(r.stdout).not.toContain("node_modules")
      expect(r.stdout).not.toContain("README")
    },
    300_000
  )

  it("json: the documented shape, each finding with its status and the decision API's decision", async () => {
    const r = await check(["--mappings", mappings, "--format", "json", "."])
    expect(r.code).toBe(1)
    golden("report.json", r.stdout)
    const report = JSON.parse(r.stdout)
    expect(report.summary).toEqual({
      files: 7,
      findings: 23,
      outOfPolicy: 15,
      snoozed: 0,
      inPolicy: 2,
      noMapping: 4,
      unresolved: 2,
      invalid: 0
    })
    const at = (place: string) => report.findings.find((f: any) => `${f.file}:${f.line}:${f.column}` === place)
    // a platform-scoped mapping wins for that platform, the general one elsewhere
    expect(at("compose.yaml:5:13").decision.resolution).toMatchObject({ toImage: "redis:7.4.1-alpine", platformScope: "linux/arm64" })
    expect(at("compose.yaml:8:12").decision.resolution.toImage).toBe("redis:7.4.1")
    // a variable the scanner does not evaluate: unresolved, never out of policy
    expect(at("compose.yaml:12:12")).toMatchObject({ status: "unresolved", decision: null, unresolved: ["APP_IMAGE"] })
    // a mapping not active yet (applicableDateTime in 2099) decides nothing
    expect(at("deploy/api.yaml:17:18")).toMatchObject({ status: "no-mapping", decision: { resolution: null } })
  }, 300_000)

  it("sarif: valid SARIF 2.1.0, one rule per mapping keyed by the mapping key, located results with the replacement as a fix", async () => {
    const r = await check(["--mappings", mappings, "--format", "sarif"])
    expect(r.code).toBe(1)
    golden("report.sarif", r.stdout.replaceAll(`"${version}"`, "\"{{version}}\""))
    const sarif = JSON.parse(r.stdout)

    const schema = JSON.parse(readFileSync(join(root, "node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"))
    const ajv = new Ajv04({ strict: false, unicodeRegExp: false })
    addFormats(ajv)
    const validate = ajv.compile(schema)
    expect(validate(sarif) ? [] : validate.errors).toEqual([])

    const [run0] = sarif.runs
    const rules: Array<any> = run0.tool.driver.rules
    expect(new Set(rules.map((rule) => rule.id)).size).toBe(rules.length)
    expect(rules.map((rule) => rule.id)).toContain("docker.io/library/redis:7|linux/arm64")
    expect(rules.map((rule) => rule.id)).toContain("docker.io/library/nginx|")
    expect(rules.map((rule) => rule.id)).toContain("docker.io/library/python:3.12-*|")
    expect(run0.results).toHaveLength(15)
    for (const result of run0.results) {
      expect(rules[result.ruleIndex].id).toBe(result.ruleId)
      const { artifactLocation, region } = result.locations[0].physicalLocation
      const lines = readFileSync(join(tree, decodeURIComponent(artifactLocation.uri)), "utf8").split(/\r?\n/)
      const text = lines[region.startLine - 1]!.slice(region.startColumn - 1, region.endColumn - 1)
      expect(result.message.text).toContain(rules[result.ruleIndex].properties.toImage)
      for (const fix of result.fixes ?? []) {
        const [change] = fix.artifactChanges
        expect(change.artifactLocation.uri).toBe(artifactLocation.uri)
        expect(change.replacements[0].deletedRegion).toEqual(region)
        // the fix replaces exactly the reference as written
        expect(result.message.text.startsWith(`${text} `)).toBe(true)
        expect(change.replacements[0].insertedContent.text).toBe(rules[result.ruleIndex].properties.toImage)
      }
    }
    // a reference built from an ARG is out of policy, but only its ARG could be changed: no fix
    const fromArg = run0.results.find((x: any) =>
      x.locations[0].physicalLocation.region.startLine === 11 && x.locations[0].physicalLocation.artifactLocation.uri === "Dockerfile"
    )
    expect(fromArg.fixes).toBeUndefined()
  }, 300_000)

  it("--output writes the report to a file, nothing on stdout", async () => {
    const out = join(tempDir(), "report.sarif")
    const r = await check(["--mappings", mappings, "--format", "sarif", "--output", out])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(JSON.parse(readFileSync(out, "utf8")).version).toBe("2.1.0")
  }, 300_000)
})

describe("check: exit codes", () => {
  it("0 with --fail-on none, or when nothing is out of policy; no progress line off a terminal", async () => {
    const none = await check(["--mappings", mappings, "--fail-on", "none", "--format", "json"])
    expect(none.code).toBe(0)
    expect(none.stderr).toBe("")
    // paths may name files and directories
    const named = await check(["--mappings", mappings, ".gitlab-ci.yml", "rendered", "--fail-on", "none"])
    expect(named.stdout).toContain("2 files, 5 findings")
    expect(named.code).toBe(0)
    const dir = tempDir()
    writeFileSync(join(dir, "compose.yaml"), "services:\n  db:\n    image: postgres:16\n  ruby:\n    image: ruby:3.3\n")
    const ok = await check(["--mappings", mappings], dir)
    expect(ok.code).toBe(0)
    expect(ok.stderr).toBe("")
    expect(ok.stdout).toContain("1 file, 2 findings: 0 out of policy, 2 in policy or without a mapping")
  }, 300_000)

  it("2 on a usage error, an unreadable path or an invalid mappings file, with the reason on stderr", async () => {
    const noMappings = await check([])
    expect(noMappings.code).toBe(2)
    expect(noMappings.stderr).toContain("give --mappings FILE")
    const badFormat = await check(["--mappings", mappings, "--format", "xml"])
    expect(badFormat.code).toBe(2)
    const missing = await check(["--mappings", mappings, "no-such-dir"])
    expect(missing).toMatchObject({ code: 2, stdout: "", stderr: "image-policy: cannot read no-such-dir: no such file or directory\n" })
    const noFile = await check(["--mappings", "missing.json"])
    expect(noFile.code).toBe(2)
    expect(noFile.stderr).toContain("cannot read the mappings file missing.json: no such file or directory")
    const dir = tempDir()
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({
        mappings: [
          { fromImage: "node:20", toImage: "node:*" },
          { fromImage: "redis:7", toImage: "redis:8" },
          { fromImage: "docker.io/library/redis:7", toImage: "redis:9" }
        ]
      })
    )
    const invalid = await check(["--mappings", join(dir, "bad.json")])
    expect(invalid.code).toBe(2)
    expect(invalid.stdout).toBe("")
    expect(invalid.stderr).toContain(`invalid mappings file ${join(dir, "bad.json")} (2 problems):`)
    expect(invalid.stderr).toContain("mappings[0].toImage: must be an exact image reference")
    expect(invalid.stderr).toContain("mappings[2]: duplicates mappings[1]")
    const unknownField = join(dir, "unknown.json")
    writeFileSync(unknownField, JSON.stringify({ mappings: [{ fromImage: "redis:7", toImage: "redis:8", colour: "red" }] }))
    const unknown = await check(["--mappings", unknownField])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("mappings[0].colour: is unexpected")
  }, 300_000)
})

describe("check: the tree walk", () => {
  it("skips .git and node_modules, follows links inside the tree (reading each file once) and none out of it", async () => {
    const outside = tempDir()
    writeFileSync(join(outside, "Dockerfile"), "FROM node:20\n")
    const dir = tempDir()
    mkdirSync(join(dir, ".git"))
    writeFileSync(join(dir, ".git", "Dockerfile"), "FROM node:20\n")
    mkdirSync(join(dir, "node_modules"))
    writeFileSync(join(dir, "node_modules", "Dockerfile"), "FROM node:20\n")
    mkdirSync(join(dir, "app"))
    writeFileSync(join(dir, "app", "Dockerfile"), "FROM redis:7\n")
    symlinkSync(join(dir, "app"), join(dir, "linked"))
    symlinkSync(dir, join(dir, "app", "loop"))
    symlinkSync(outside, join(dir, "escape"))
    symlinkSync(join(outside, "Dockerfile"), join(dir, "Dockerfile"))
    symlinkSync(join(dir, "gone"), join(dir, "dangling.yaml"))
    const r = await check(["--mappings", mappings, "--format", "json", "--fail-on", "none"], dir)
    expect(r.stderr).toBe("")
    // `linked` and `app/loop` reach directories already walked: each file is read once
    expect(JSON.parse(r.stdout).findings.map((f: any) => `${f.file} ${f.reference}`)).toEqual(["app/Dockerfile redis:7"])
  }, 300_000)
})

describe("check --fix", () => {
  it(
    "rewrites exactly what a remediation request would, keeps every other byte (BOM, CRLF), prints the diff; a second run changes nothing",
    async () => {
      const dir = tempDir()
      cpSync(tree, dir, { recursive: true })
      const before = snapshot(dir)
      const first = await check(["--mappings", mappings, "--fix"], dir)
      golden("fix.diff", first.stdout)
      // the references built from ARGs or variables cannot be rewritten: they stay out of policy
      expect(first.stderr).toBe("image-policy: fixed 13 references in 7 files\nimage-policy: 2 findings out of policy left after --fix\n")
      expect(first.code).toBe(1)
      const after = snapshot(dir)
      const changed = [...after].filter(([path, bytes]) => !bytes.equals(before.get(path)!)).map(([path]) => path).sort()
      for (const path of changed) golden(join("fixed", path), after.get(path)!.toString("utf8"))
      expect(changed).toEqual([...snapshot(join(expected, "fixed")).keys()].sort())
      const api = after.get(join("services", "api", "Dockerfile"))!
      expect([...api.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
      expect(api.toString("utf8").split("\r\n")).toHaveLength(6)

      const second = await check(["--mappings", mappings, "--fix"], dir)
      expect(second.stdout).toBe("")
      expect(second.stderr).toBe("image-policy: nothing to fix\nimage-policy: 2 findings out of policy left after --fix\n")
      expect(snapshot(dir)).toEqual(after)
      const report = await check(["--mappings", mappings, "--format", "json", "--fail-on", "none"], dir)
      expect(JSON.parse(report.stdout).summary.outOfPolicy).toBe(2)
    },
    300_000
  )
})

describe("check: its own entry point", () => {
  const dist = join(root, "packages/host/dist")

  /** Every module dist/check/main.js imports before it runs, following the host's own chunks. */
  const staticImports = (): Set<string> => {
    const seen = new Set<string>()
    const external = new Set<string>()
    const walk = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      // static imports only: `import ... from "x"` and `import "x"` (a dynamic `import("x")` loads on use)
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(/^(?:import|export)\b[^;]*?["']([^"']+)["'];?$/gms)) {
        if (specifier!.startsWith(".")) walk(join(dirname(file), specifier!))
        else external.add(specifier!)
      }
    }
    walk(join(dist, "check/main.js"))
    return external
  }

  it("loads none of the host: no stores, HTTP API, workers or console; the decision API's client only for --server", () => {
    const loaded = [...staticImports()]
    expect(loaded).toContain("@image-policy/core")
    expect(loaded).toContain("effect/cli/Command")
    const heavy = loaded.filter((m) =>
      /^(@image-policy\/(adapters|client|console)|@electric-sql\/|@effect\/sql|effect\/(http|http-api|sql|rpc)(\/|$))/.test(m)
    )
    expect(heavy).toEqual([])
  })

  it("answers as the whole host's entry (dist/cli.js) does: help, version, usage errors, reports, exit codes", async () => {
    const viaHost = (args: ReadonlyArray<string>) =>
      spawnOutcome(process.execPath, [join(dist, "cli.js"), ...args], { cwd: tree, env: cleanEnv() })
    const cases: ReadonlyArray<ReadonlyArray<string>> = [
      ["check", "--help"],
      ["check", "--version"],
      ["check", "--bogus"],
      ["check"],
      ["--log-level", "loud", "check"],
      ["--log-format", "json", "check", "--mappings", mappings, "--format", "json"],
      ["check", "--mappings", mappings, "--fail-on", "none", "Dockerfile"]
    ]
    for (const args of cases) {
      const [lean, whole] = await Promise.all([run(args, {}, "", tree), viaHost(args)])
      expect({ args, ...lean }).toEqual({ args, ...whole })
    }
  }, 300_000)
})
