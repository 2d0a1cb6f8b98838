/** The built `image-policy` bin as a user runs it, in a child process with a clean environment. */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { stripVTControlCharacters } from "node:util"
import { root } from "./build.js"

export const bin = join(root, "packages/host/bin/image-policy.js")

/** The environment without the developer's store, key or OTLP settings: every test says what it uses. */
export const cleanEnv = (extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("IMAGE_POLICY_") && !k.startsWith("OTEL_") && k !== "DATABASE_URL") env[k] = v
  }
  return { ...env, ...extra }
}

export interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `command` to its end in a child process; `input` is piped to its stdin (closed either way). */
export const spawnOutcome = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly input?: string }
): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? "")
  })

/**
 * Runs the bin to its end; stdout and stderr without terminal control codes. `input` is piped to its
 * stdin (closed either way); `cwd` is the working directory (default: the repository root).
 */
export const run = async (args: ReadonlyArray<string>, env: Record<string, string> = {}, input = "", cwd = root): Promise<Outcome> => {
  const { code, stderr, stdout } = await spawnOutcome(process.execPath, [bin, ...args], { cwd, env: cleanEnv(env), input })
  return { code, stdout: stripVTControlCharacters(stdout), stderr: stripVTControlCharacters(stderr) }
}
