/**
 * Colour and log format for a person or a machine (runtime/Terminal.ts): the CLI's help and errors
 * have no escape codes when piped and never with NO_COLOR (https://no-color.org), even on a
 * terminal; `serve` writes JSON lines when piped and readable lines on a terminal, unless
 * `--log-format` or IMAGE_POLICY_LOG_FORMAT says otherwise. The terminal is a real pseudo-terminal
 * from util-linux `script` when the machine has it; without it those cases are skipped and the
 * decision functions below still cover them.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import * as Terminal from "../src/runtime/Terminal.js"
import { ensureBuilt, root } from "./support/build.js"
import { bin, cleanEnv } from "./support/cli.js"

const ESC = "\u001b"

const hasScript = (() => {
  try {
    execFileSync("script", ["-qec", "true", "/dev/null"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** Runs the bin to its end with stdout and stderr as they were written (escape codes kept). */
const raw = (command: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    // NO_COLOR and FORCE_COLOR of the test runner must not decide the case
    const base = cleanEnv(env)
    for (const name of ["NO_COLOR", "FORCE_COLOR"]) if (!(name in env)) delete base[name]
    const child = spawn(command, args, { cwd: root, env: { ...base, TERM: "xterm-256color" } })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, out }))
  })

const piped = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => raw(process.execPath, [bin, ...args], env)

/** The bin under a pseudo-terminal: `script` gives it a tty for stdin, stdout and stderr. */
const onTerminal = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  raw("script", ["-qec", [process.execPath, bin, ...args].map((a) => `'${a}'`).join(" "), "/dev/null"], env)

beforeAll(ensureBuilt, 600_000)

describe("the colour decision", () => {
  it("colours only a terminal, and never with NO_COLOR set or TERM=dumb", () => {
    expect(Terminal.colourAllowed({}, true)).toBe(true)
    expect(Terminal.colourAllowed({}, false)).toBe(false)
    expect(Terminal.colourAllowed({ FORCE_COLOR: "1" }, false)).toBe(false)
    expect(Terminal.colourAllowed({ NO_COLOR: "1" }, true)).toBe(false)
    expect(Terminal.colourAllowed({ NO_COLOR: "0" }, true)).toBe(false)
    // no-color.org: an empty NO_COLOR is as if unset
    expect(Terminal.colourAllowed({ NO_COLOR: "" }, true)).toBe(true)
    expect(Terminal.colourAllowed({ TERM: "dumb" }, true)).toBe(false)
  })

  it("picks the log format: the flag, else the variable, else by terminal", () => {
    expect(Terminal.logFormat(undefined, {}, true)).toEqual({ format: "pretty" })
    expect(Terminal.logFormat(undefined, {}, false)).toEqual({ format: "json" })
    expect(Terminal.logFormat(undefined, { IMAGE_POLICY_LOG_FORMAT: "pretty" }, false)).toEqual({ format: "pretty" })
    expect(Terminal.logFormat("json", { IMAGE_POLICY_LOG_FORMAT: "pretty" }, true)).toEqual({ format: "json" })
    expect(Terminal.logFormat(undefined, { IMAGE_POLICY_LOG_FORMAT: "xml" }, true)).toEqual({
      error: "IMAGE_POLICY_LOG_FORMAT must be one of json, pretty"
    })
    expect(Terminal.logFormat("xml", {}, true)).toEqual({ error: "--log-format must be one of json, pretty" })
  })

  it("takes --log-format out of the arguments wherever it stands", () => {
    expect(Terminal.takeLogFormat(["serve", "--log-format", "json", "--port", "0"])).toEqual({
      args: ["serve", "--port", "0"],
      value: "json"
    })
    expect(Terminal.takeLogFormat(["--log-format=pretty", "migrate"])).toEqual({ args: ["migrate"], value: "pretty" })
    expect(Terminal.takeLogFormat(["seed", "--", "--log-format"])).toEqual({ args: ["seed", "--", "--log-format"], value: undefined })
  })
})

describe("the CLI's help and errors", () => {
  it("have no escape code when piped, even with FORCE_COLOR", async () => {
    for (const env of [{}, { FORCE_COLOR: "1" }]) {
      const help = await piped(["--help"], env)
      expect(help.code).toBe(0)
      expect(help.out).toContain("USAGE")
      expect(help.out).not.toContain(ESC)
      const wrong = await piped(["serve", "--port", "x"], env)
      expect(wrong.code).toBe(2)
      expect(wrong.out).toContain("--port")
      expect(wrong.out).not.toContain(ESC)
    }
  })

  it("refuses an unknown log format on the command line", async () => {
    const wrong = await piped(["migrate", "--store", "memory", "--log-format", "xml"])
    expect(wrong.code).toBe(2)
    expect(wrong.out).toContain("image-policy: --log-format must be one of json, pretty")
  })

  it.skipIf(!hasScript)("are coloured on a terminal, and not with NO_COLOR set (skipped without util-linux script)", async () => {
    const coloured = await onTerminal(["--help"])
    expect(coloured.code).toBe(0)
    expect(coloured.out).toContain("USAGE")
    expect(coloured.out).toContain(ESC)
    const plain = await onTerminal(["--help"], { NO_COLOR: "1" })
    expect(plain.code).toBe(0)
    expect(plain.out).toContain("USAGE")
    expect(plain.out).not.toContain(ESC)
  })
})

describe("the log format", () => {
  // `migrate --log-level debug` logs each migration it runs (on stderr: its stdout is its answer)
  const migrate = (run: typeof piped, env: Record<string, string> = {}, extra: ReadonlyArray<string> = []) => {
    const dir = mkdtempSync(join(tmpdir(), "ip-terminal-"))
    return run(["migrate", "--store", `pglite:${dir}`, "--log-level", "debug", ...extra], env).finally(() =>
      rmSync(dir, { recursive: true, force: true })
    )
  }
  const line = (out: string) => out.split(/\r?\n/).find((l) => l.includes("Running migration")) ?? ""

  it("is JSON lines when piped, readable lines when asked", async () => {
    const json = await migrate(piped)
    expect(json.code).toBe(0)
    expect(JSON.parse(line(json.out))).toMatchObject({ message: "Running migration", logLevel: "DEBUG" })
    const pretty = await migrate(piped, { IMAGE_POLICY_LOG_FORMAT: "pretty" })
    expect(line(pretty.out)).toMatch(/^\d{4}-\d\d-\d\dT\S+ DEBUG Running migration migration_name=init migration_id=1$/)
    expect(pretty.out).not.toContain(ESC)
  }, 300_000)

  it.skipIf(!hasScript)("is readable on a terminal, coloured unless NO_COLOR; JSON when asked", async () => {
    const coloured = line((await migrate(onTerminal)).out)
    expect(coloured).toContain(ESC)
    expect(coloured).toContain("Running migration migration_name=init migration_id=1")
    const plain = line((await migrate(onTerminal, { NO_COLOR: "1" })).out)
    expect(plain).toMatch(/^\d{4}-\d\d-\d\dT\S+ DEBUG Running migration migration_name=init migration_id=1$/)
    const json = line((await migrate(onTerminal, {}, ["--log-format", "json"])).out)
    expect(JSON.parse(json)).toMatchObject({ message: "Running migration", annotations: { migration_id: "1" } })
  }, 300_000)
})
