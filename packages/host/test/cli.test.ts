/**
 * The `image-policy` command as a user runs it: the built bin in a child process, its stdout,
 * stderr and exit code, and HTTP against the server it starts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Stubs from "../../adapters/test/support/providerStubs.js"
import * as SecretKey from "../src/SecretKey.js"
import { ensureBuilt } from "./support/build.js"
import { bin, cleanEnv, run } from "./support/cli.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))

// Tests run the built CLI (what `npx image-policy` runs). `npm install` builds it; rebuild the host
// when one of its sources is newer than the build, under a lock because the Deno suite may want the
// same build at the same time, and asynchronously so the test worker keeps answering vitest.

interface Server {
  readonly child: ChildProcess
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  readonly exited: Promise<number | null>
}

const serve = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Server => {
  const child = spawn(process.execPath, [bin, "serve", ...args], { cwd: root, env: cleanEnv(env) })
  let out = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (out += d))
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

const servers: Array<Server> = []
const started = (server: Server) => {
  servers.push(server)
  return server
}

/** The demo block of `serve --demo`: the URL it listens on and the demo key. */
const demoOf = async (server: Server) => {
  const [, url] = await server.waitFor(/demo is running at (http:\/\/\S+)/)
  const [, key] = await server.waitFor(/demo API key\s+(\S+)/)
  return { url: url!, key: key! }
}

/**
 * A request the server holds in flight: `Expect: 100-continue` makes the client wait for the
 * server's `100 Continue` (sent once it has parsed the headers and taken the request) before the
 * body goes out, so `accepted` resolves exactly when the request is in flight, with no sleep.
 */
const slowPost = (url: string, path: string, key: string, body: string) => {
  const target = new URL(path, url)
  let request!: http.ClientRequest
  let accepted!: () => void
  const inFlight = new Promise<void>((resolve) => (accepted = resolve))
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: {
        "x-api-key": key,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "expect": "100-continue"
      }
    }, (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode!, body: text }))
    })
    request.on("continue", () => accepted())
    request.on("error", reject)
  })
  request.flushHeaders()
  return { inFlight, response, finish: () => request.end(body) }
}

const tmp: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "image-policy-cli-"))
  tmp.push(dir)
  return dir
}

beforeAll(ensureBuilt, 600_000)

afterAll(() => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill("SIGKILL")
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true })
})

describe("image-policy --help", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
    [[], ["serve", "migrate", "seed", "keys create", "check"]],
    [["serve"], [
      "--port",
      "--host",
      "--store",
      "--seed",
      "--demo",
      "--public-url",
      "--rate-limit",
      "--tracing",
      "--log-level",
      "--no-access-log",
      "--metrics"
    ]],
    [["migrate"], ["--store"]],
    [["seed"], ["--store", "<FILE>"]],
    [["keys"], ["create"]],
    [["keys", "create"], ["--store", "--org", "--name", "--role", "--permission", "--expires-in-days"]],
    // started from its own entry (dist/check/main.js)
    [["check"], [
      "--mappings",
      "--server",
      "--org",
      "--repository",
      "--branch",
      "--format",
      "--output",
      "--fail-on",
      "--fix",
      "[<PATH...>]"
    ]]
  ]
  for (const [command, mentions] of cases) {
    // each case is its own process: run them side by side
    it.concurrent(`image-policy ${[...command, "--help"].join(" ")} describes ${mentions.join(", ")}`, async ({ expect }) => {
      const result = await run([...command, "--help"])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("USAGE")
      for (const text of mentions) expect(result.stdout).toContain(text)
    })
  }
})

describe("bad command lines", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
    // effect/cli's own usage errors (wording of Effect 4, printed as `image-policy: <message>`)
    [["serve", "--bogus"], /^image-policy: Unrecognized flag: --bogus in command image-policy serve$/m],
    [["serve", "--port", "eighty"], /^image-policy: Invalid value for flag --port: "eighty"\. Expected /m],
    [["serve", "--port", "70000"], /--port must be 0\.\.65535/],
    [["serve", "--rate-limit", "fast"], /--rate-limit must be RATE\[:BURST\]/],
    [["serve", "--public-url", "ftp://example.com"], /--public-url must be an http/],
    [["serve", "--store", "mysql://db"], /--store: store must be `memory`, `pglite:DIR` or a postgres:\/\/ URL/],
    [["serve", "--log-level", "loud"], /--log-level must be one of debug, info, warning, error/],
    [["keys", "create", "--store", "memory", "--org", "org_x", "--name", "n"], /exactly one of --role or --permission/],
    [
      ["keys", "create", "--store", "memory", "--org", "org_x", "--name", "n", "--role", "Owner", "--expires-in-days", "400"],
      /--expires-in-days must be an integer from 1 to 365, or `unlimited`/
    ],
    [
      ["keys", "create", "--store", "memory", "--org", "org_x", "--name", "n", "--role", "Janitor"],
      /Invalid value for flag --role: "Janitor"\. Expected: "Owner" \| "Security Administrator" \| "Policy Automation" \| "Read Only"/
    ],
    [["frobnicate"], /^image-policy: Unknown subcommand "frobnicate" for "image-policy"$/m],
    [[], /give a command/]
  ]
  for (const [args, message] of cases) {
    it.concurrent(`image-policy ${args.join(" ")} exits 2 and says why`, async ({ expect }) => {
      const result = await run(args)
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(message)
      expect(result.stdout).not.toContain("listening")
    })
  }

  it("a postgres store never shows its password, not even when it cannot connect", async () => {
    const password = "hunter2-very-secret"
    const url = `postgres://app:${password}@127.0.0.1:1/policies`
    const key = await run(["keys", "create", "--store", url, "--org", "org_x", "--name", "n", "--role", "Owner"])
    expect(key.code).toBe(1)
    expect(key.stderr).toContain("postgres://app:***@127.0.0.1:1/policies")
    const started = await run(["serve", "--port", "0"], {
      DATABASE_URL: url,
      IMAGE_POLICY_SECRET_KEY: Buffer.alloc(32, 7).toString("base64")
    })
    expect(started.code).toBe(1)
    expect(started.stderr).toMatch(/cannot start/)
    for (const result of [key, started]) expect(result.stdout + result.stderr).not.toContain(password)
  })

  it("a postgres store needs IMAGE_POLICY_SECRET_KEY; an invalid key is refused without being echoed", async () => {
    const missing = await run(["serve", "--store", "postgres://app@127.0.0.1:1/policies", "--port", "0"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/IMAGE_POLICY_SECRET_KEY is required with a postgres:\/\/ store/)
    const invalidKey = "c2hvcnQta2V5LW9ubHk="
    const invalid = await run(["serve", "--store", "memory", "--port", "0"], { IMAGE_POLICY_SECRET_KEY: invalidKey })
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/IMAGE_POLICY_SECRET_KEY: secret key must be 32 bytes of base64/)
    expect(invalid.stderr + invalid.stdout).not.toContain(invalidKey)
  })
})

const seedFile = {
  organizations: [{
    id: "org_clitest",
    name: "CLI Test",
    edition: "enterprise",
    teams: [{ name: "Platform", routines: [{ name: "Weekly", intervalDays: 7 }] }, { name: "Payments" }],
    policyGroups: [{ name: "Base images", phases: [{ name: "Curated", source: "internal" }] }]
  }]
}

describe("seed, keys create and serve on one pglite store", () => {
  it("loads a seed, prints its ids, creates keys that the server accepts, and keeps its secret key in the data directory", async () => {
    const dir = tempDir()
    const data = join(dir, "data")
    const store = `pglite:${data}`
    writeFileSync(join(dir, "seed.json"), JSON.stringify(seedFile))

    const seeded = await run(["seed", "--store", store, join(dir, "seed.json")])
    expect(seeded.stderr).toBe("")
    expect(seeded.code).toBe(0)
    const ids = JSON.parse(seeded.stdout)
    expect(ids.organizations).toHaveLength(1)
    expect(ids.organizations[0]).toMatchObject({ id: "org_clitest", existing: false })
    expect(Object.keys(ids.organizations[0].teams).sort()).toEqual(["Payments", "Platform"])
    expect(ids.organizations[0].policyGroups["Base images"].id).toMatch(/^pg_/)

    const created = await run(["keys", "create", "--store", store, "--org", "org_clitest", "--name", "deploy", "--role", "Read Only"])
    expect(created.code).toBe(0)
    const key = JSON.parse(created.stdout)
    expect(key).toMatchObject({ name: "deploy", role: "Read Only" })
    expect(key.secret).toMatch(/^ipk_/)
    // default expiry: 90 days
    expect(Math.round((Date.parse(key.expiresAt) - Date.now()) / 86_400_000)).toBe(90)

    const unknownOrg = await run(["keys", "create", "--store", store, "--org", "org_nowhere", "--name", "x", "--permission", "audit:read"])
    expect(unknownOrg.code).toBe(1)
    expect(unknownOrg.stderr).toContain("no organization org_nowhere")

    const server = started(serve(["--store", store, "--port", "0"]))
    const [, url] = await server.waitFor(/"message":"listening".*?"url":"(http:\/\/[^"]+)"/)
    const teams = await fetch(`${url}/api/v1/org/org_clitest/teams`, { headers: { "x-api-key": key.secret } })
    expect(teams.status).toBe(200)
    expect(((await teams.json()) as any).items.map((t: any) => t.id).sort()).toEqual(Object.values(ids.organizations[0].teams).sort())
    // Read Only cannot create keys: the role printed by the CLI is the one enforced
    const denied = await fetch(`${url}/api/v1/org/org_clitest/api-keys`, {
      method: "POST",
      headers: { "x-api-key": key.secret, "content-type": "application/json" },
      body: JSON.stringify({ name: "x", role: "Owner", expiresInDays: 30 })
    })
    expect(denied.status).toBe(403)

    const keyFile = join(data, "secret.key")
    expect(server.output()).toContain("generated a secret key")
    expect(server.output()).not.toContain(readFileSync(keyFile, "utf8").trim())
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
  }, 240_000)

  it("an invalid seed names the JSON path of every problem on stderr, exits 1 and writes nothing", async () => {
    const dir = tempDir()
    const data = join(dir, "data")
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({
        organizations: [
          { id: "org_fine", name: "Fine", edition: "team" },
          {
            name: "Broken",
            edition: "platinum",
            teams: [{ name: "A", colour: "red" }],
            apiKeys: [{ name: "k", secret: "too-short", role: "Owner", expiresInDays: 30 }]
          }
        ]
      })
    )
    const result = await run(["seed", "--store", `pglite:${data}`, join(dir, "bad.json")])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("nothing was written")
    for (const path of ["$.organizations[1].edition", "$.organizations[1].teams[0].colour", "$.organizations[1].apiKeys[0].secret"]) {
      expect(result.stderr).toContain(path)
    }
    // validated before the store is opened: not even the data directory exists
    expect(existsSync(data)).toBe(false)
  })

  it("migrate creates the tables once and then reports the store up to date", async () => {
    const data = join(tempDir(), "data")
    const first = await run(["migrate", "--store", `pglite:${data}`])
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(`pglite:${data}: applied 0001_init`)
    const second = await run(["migrate", "--store", `pglite:${data}`])
    expect(second.code).toBe(0)
    expect(second.stdout).toContain(`pglite:${data}: up to date`)
  }, 120_000)
})

describe("seed with a provider token (sealed) then serve, on one pglite store", () => {
  it("the seed command seals the token with the store's key, so serve opens it; the stored form is sealed", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const token = "ghp_cli-sealed-token-0123456789"
      const stub = await Effect.runPromise(
        Scope.provide(Stubs.github({ token, repositories: [Stubs.repository(42, "acme/api", { branches: ["main"] })] }), scope)
      )
      const dir = tempDir()
      const store = `pglite:${join(dir, "data")}`
      const seed = {
        organizations: [{
          id: "org_clisealed",
          name: "Sealed",
          edition: "enterprise",
          vcsConnections: [{ provider: "github", externalAccountName: "acme", api: { baseUrl: stub.baseUrl, token } }],
          apiKeys: [{ name: "ci", secret: "cli-sealed-test-key-0123456789-abcdefgh", role: "Owner", expiresInDays: 30 }]
        }]
      }
      writeFileSync(join(dir, "seed.json"), JSON.stringify(seed))
      const seeded = await run(["seed", "--store", store, join(dir, "seed.json")])
      expect(seeded.stderr).toBe("")
      expect(seeded.code).toBe(0)
      expect(seeded.stdout).not.toContain(token)
      const connectionId = Object.values(JSON.parse(seeded.stdout).organizations[0].vcsConnections)[0]
      // a postgres store has no key file to fall back on: sealing needs IMAGE_POLICY_SECRET_KEY
      const noKey = await run(["seed", "--store", "postgres://app@127.0.0.1:1/policies", join(dir, "seed.json")])
      expect(noKey.code).toBe(1)
      expect(noKey.stderr).toMatch(/IMAGE_POLICY_SECRET_KEY is required/)
      expect(noKey.stderr + noKey.stdout).not.toContain(token)

      const server = started(serve(["--store", store, "--port", "0"]))
      const [, url] = await server.waitFor(/"message":"listening".*?"url":"(http:\/\/[^"]+)"/)
      const repos = await fetch(`${url}/api/v1/org/org_clisealed/vcs-connections/${connectionId}/available-repos`, {
        headers: { "x-api-key": "cli-sealed-test-key-0123456789-abcdefgh" }
      })
      expect(repos.status).toBe(200)
      expect(((await repos.json()) as any).items.map((r: any) => r.fullName)).toEqual(["acme/api"])
      expect(stub.requests.at(-1)?.headers["authorization"]).toBe(`Bearer ${token}`)
      expect(server.output()).not.toContain(token)
      server.child.kill("SIGTERM")
      expect(await server.exited).toBe(0)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 240_000)
})

describe("serve --seed", () => {
  it("loads the seed before serving, so its keys work at once; an invalid seed stops the start", async () => {
    const dir = tempDir()
    const secret = "cli-seeded-secret-0123456789abcdefghijklmn"
    const withKey = {
      organizations: [{ ...seedFile.organizations[0], apiKeys: [{ name: "ci", secret, role: "Read Only", expiresInDays: null }] }]
    }
    writeFileSync(join(dir, "seed.json"), JSON.stringify(withKey))
    const server = started(serve(["--store", "memory", "--port", "0", "--seed", join(dir, "seed.json")]))
    const [, url] = await server.waitFor(/"message":"listening".*?"url":"(http:\/\/[^"]+)"/)
    expect(server.output()).toContain(`"message":"seed loaded"`)
    expect(server.output()).not.toContain(secret)
    const teams = await fetch(`${url}/api/v1/org/org_clitest/teams`, { headers: { "x-api-key": secret } })
    expect(teams.status).toBe(200)
    expect(((await teams.json()) as any).items.map((t: any) => t.name).sort()).toEqual(["Payments", "Platform"])
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)

    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({ organizations: [{ name: "X", edition: "team", defaultNotificationTeam: "Nobody" }] })
    )
    const refused = await run(["serve", "--store", "memory", "--port", "0", "--seed", join(dir, "bad.json")])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`$.organizations[0].defaultNotificationTeam: no team named "Nobody"`)
    expect(refused.stdout).not.toContain("listening")
  })
})

describe("serve --demo", () => {
  it("prints the demo organization, a working key, a curl line and the OpenAPI URL, and logs JSON lines", async () => {
    const server = started(serve(["--store", "memory", "--port", "0", "--demo"]))
    const { key, url } = await demoOf(server)
    const output = server.output()
    expect(output).toContain("demo organization  org_demo")
    expect(output).toContain(`curl -H 'x-api-key: ${key}' ${url}/api/v1/org/org_demo/teams`)
    expect(output).toContain(`${url}/api/v1/openapi.json`)
    expect(output.split(key).length - 1).toBe(2) // the key line and the curl line, nowhere else
    // the web console: its URL, the demo user and this start's password, printed once, never logged
    expect(output).toContain(`web console        ${url}/`)
    const [, password] = /demo password\s+(\S+)/.exec(output)!
    expect(output.split(password!).length - 1).toBe(1)
    const signIn = await fetch(`${url}/api/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "demo@example.com", password })
    })
    expect(signIn.status).toBe(200)

    const teams = await fetch(`${url}/api/v1/org/org_demo/teams`, { headers: { "x-api-key": key } })
    expect(teams.status).toBe(200)
    expect(((await teams.json()) as any).items.map((t: any) => t.name).sort()).toEqual(["Payments", "Platform"])
    expect((await fetch(`${url}/api/v1/org/org_demo/teams`)).status).toBe(401)
    expect((await fetch(`${url}/api/v1/openapi.json`)).status).toBe(200)

    await server.waitFor(/"route":"\/api\/v1\/org\/:orgId\/teams"/)
    for (const line of server.output().split("\n").filter((l) => l.startsWith("{"))) {
      expect(() => JSON.parse(line)).not.toThrow()
      expect(line).not.toContain(key)
      expect(line).not.toContain(password)
    }
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
  })

  it("logs a warning at start when unsafe webhook targets are allowed", async () => {
    const server = started(serve(["--store", "memory", "--port", "0"], { IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS: "1" }))
    const [line] = await server.waitFor(/\{[^\n]*IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS=1[^\n]*\}/)
    expect(JSON.parse(line!).logLevel).toBe("WARN")
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
  })

  it("on SIGTERM finishes the request in flight, refuses new connections and exits 0", async () => {
    const server = started(serve(["--store", "memory", "--port", "0", "--demo"]))
    const { key, url } = await demoOf(server)
    const inFlight = slowPost(
      url,
      "/api/v1/org/org_demo/api-keys",
      key,
      JSON.stringify({ name: "late", role: "Read Only", expiresInDays: 30 })
    )
    await inFlight.inFlight
    server.child.kill("SIGTERM")
    await server.waitFor(/"message":"stopping"/)
    await expect(fetch(`${url}/api/v1/openapi.json`)).rejects.toThrow()
    inFlight.finish()
    const answer = await inFlight.response
    expect(answer.status).toBe(201)
    expect(JSON.parse(answer.body)).toMatchObject({ name: "late", role: "Read Only" })
    expect(await server.exited).toBe(0)
  }, 60_000)

  it("a second signal while stopping exits at once", async () => {
    const server = started(serve(["--store", "memory", "--port", "0", "--demo"]))
    const { key, url } = await demoOf(server)
    const inFlight = slowPost(
      url,
      "/api/v1/org/org_demo/api-keys",
      key,
      JSON.stringify({ name: "never", role: "Owner", expiresInDays: 30 })
    )
    inFlight.response.catch(() => undefined)
    await inFlight.inFlight
    server.child.kill("SIGTERM")
    await server.waitFor(/"message":"stopping"/)
    server.child.kill("SIGINT")
    expect(await server.exited).toBe(130)
  })
})

describe("SecretKey.resolve", () => {
  const resolve = (store: Parameters<typeof SecretKey.resolve>[0], env: Record<string, string> = {}) =>
    Effect.runPromise(Effect.result(SecretKey.resolve(store, env)).pipe(Effect.provide(NodeServices.layer)))

  it("generates a key into a new pglite data directory once (mode 0600) and reads it back later", async () => {
    const dataDir = join(tempDir(), "nested", "data")
    const first = Result.getOrThrow(await resolve({ _tag: "pglite", dataDir }))
    expect(first.source).toBe("generated")
    expect(statSync(join(dataDir, "secret.key")).mode & 0o777).toBe(0o600)
    const again = Result.getOrThrow(await resolve({ _tag: "pglite", dataDir }))
    expect(again).toMatchObject({ source: "file", base64: first.base64 })
    expect(Buffer.from(first.base64, "base64")).toHaveLength(32)
  })

  it("prefers IMAGE_POLICY_SECRET_KEY and rejects a key file that is not 32 bytes", async () => {
    const env = { IMAGE_POLICY_SECRET_KEY: Buffer.alloc(32, 1).toString("base64") }
    const dataDir = tempDir()
    expect(Result.getOrThrow(await resolve({ _tag: "pglite", dataDir }, env))).toMatchObject({
      source: "env",
      base64: env.IMAGE_POLICY_SECRET_KEY
    })
    expect(existsSync(join(dataDir, "secret.key"))).toBe(false)
    writeFileSync(join(dataDir, "secret.key"), "bm90IGEga2V5")
    const bad = await resolve({ _tag: "pglite", dataDir })
    expect(Result.isFailure(bad) && bad.failure.message).toMatch(/secret\.key: secret key must be 32 bytes/)
  })
})
