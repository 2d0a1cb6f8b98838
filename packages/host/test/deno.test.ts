/**
 * The same application on Deno: `deno run … packages/host/dist/runtime/deno.js` with the flags of
 * `image-policy serve`, the Deno binary from the `deno` devDependency (no download).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt } from "./support/build.js"
import { cleanEnv } from "./support/cli.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const deno = join(root, "node_modules/.bin/deno")
const entry = join(root, "packages/host/dist/runtime/deno.js")

// Deno runs the build: rebuild the host when one of its sources is newer (the same lock as the CLI
// suite, which may be building at the same time), asynchronously so the worker keeps answering vitest.

interface Host {
  readonly child: ChildProcess
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  readonly exited: Promise<number | null>
}

const children: Array<ChildProcess> = []
const tmp: Array<string> = []

const runDeno = (args: ReadonlyArray<string>): Host => {
  const child = spawn(deno, ["run", "-A", "--unstable-no-legacy-abort", entry, ...args], { cwd: root, env: cleanEnv() })
  children.push(child)
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  child.stderr!.on("data", (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const waitFor = async (pattern: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const match = out.match(pattern)
      if (match) return match
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in the output:\n${out}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return { child, output: () => out, waitFor, exited }
}

beforeAll(ensureBuilt, 600_000)

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true })
})

/** Starts the demo on Deno and checks what a user does first: the document and an org route. */
const demoWorks = async (store: string) => {
  const host = runDeno(["--store", store, "--demo", "--port", "0"])
  const [, url] = await host.waitFor(/demo is running at (http:\/\/\S+)/)
  const [, key] = await host.waitFor(/demo API key\s+(\S+)/)
  expect(host.output()).toContain(`curl -H 'x-api-key: ${key}' ${url}/api/v1/org/org_demo/teams`)

  const document = await fetch(`${url}/api/v1/openapi.json`)
  expect(document.status).toBe(200)
  expect(((await document.json()) as any).openapi).toBe("3.1.0")

  const teams = await fetch(`${url}/api/v1/org/org_demo/teams`, { headers: { "x-api-key": key! } })
  expect(teams.status).toBe(200)
  expect(((await teams.json()) as any).items.map((t: any) => t.name).sort()).toEqual(["Payments", "Platform"])

  const anonymous = await fetch(`${url}/api/v1/org/org_demo/teams`)
  expect(anonymous.status).toBe(401)
  expect(anonymous.headers.get("content-type")).toContain("application/problem+json")

  // the web console at / (http/Console.ts): the built @image-policy/console package, found on Deno too
  const page = await fetch(`${url}/settings/api-keys`)
  expect(page.status).toBe(200)
  expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
  expect(page.headers.get("content-security-policy")).toContain("script-src 'self'")
  const script = (await page.text()).match(/src="(\/assets\/[^"]+\.js)"/)?.[1]
  const asset = await fetch(`${url}${script}`)
  expect(asset.status).toBe(200)
  expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")

  // the access log is a JSON line, as on Node
  const [line] = await host.waitFor(/\{[^\n]*"route":"\/api\/v1\/org\/:orgId\/teams"[^\n]*\}/)
  expect(JSON.parse(line!).annotations.status).toBe(200)

  host.child.kill("SIGTERM")
  expect(await host.exited).toBe(0)
  return host
}

describe("image-policy on Deno", () => {
  it("serves the demo from the memory store", async () => {
    await demoWorks("memory")
  }, 60_000)

  it("serves the demo from a pglite data directory and keeps its secret key there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "image-policy-deno-"))
    tmp.push(dir)
    const data = join(dir, "data")
    const host = await demoWorks(`pglite:${data}`)
    const keyFile = join(data, "secret.key")
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(host.output()).not.toContain(readFileSync(keyFile, "utf8").trim())
  }, 120_000)

  it("throttles refused sign-ins per client address: the peer Deno reports, not one bucket for every client", async () => {
    const host = runDeno(["--store", "memory", "--demo", "--port", "0"])
    const [, url] = await host.waitFor(/demo is running at (http:\/\/\S+)/)
    // a sign-in from a chosen loopback source address (Linux routes all of 127.0.0.0/8 to lo)
    const signIn = (from: string, email: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ email, password: "not the password" })
        const req = request(`${url}/api/v1/session`, {
          method: "POST",
          localAddress: from,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
        }, (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode!))
        })
        req.on("error", reject)
        req.end(body)
      })
    // 20 refusals per address (Session.addressThrottle), each for another account so no account limit applies
    for (let i = 0; i < 20; i++) expect(await signIn("127.0.0.1", `nobody-${i}@example.com`)).toBe(401)
    expect(await signIn("127.0.0.1", "nobody-20@example.com")).toBe(429)
    expect(await signIn("127.0.0.2", "nobody-21@example.com")).toBe(401)
    host.child.kill("SIGTERM")
    expect(await host.exited).toBe(0)
  }, 120_000)

  it("rejects a bad flag with the CLI's message and exit code 2", async () => {
    const host = runDeno(["--store", "memory", "--rate-limit", "fast"])
    expect(await host.exited).toBe(2)
    expect(host.output()).toContain("--rate-limit must be RATE[:BURST]")
  }, 30_000)
})
