/**
 * Nothing the host writes (stdout and stderr, every log level) holds a secret: a realistic session
 * against the built bin, with API keys created, webhook destinations whose endpoint URLs carry a
 * token in their query and have signing secrets (one answering 500, one unreachable, so failed
 * attempts and retries are logged), a rotated signing secret, VCS connections with provider tokens
 * and push secrets (seeded and created through the API), a provider answering 500, a push with a
 * bad signature, and a repository onboarded and scanned. Then every secret, token, key and endpoint URL is searched for in the output, and
 * every line logged while a request was handled is checked for its request id.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as AesGcmSecretBox from "../../adapters/src/crypto/AesGcmSecretBox.js"
import { ensureBuilt, root } from "./support/build.js"
import { bin, cleanEnv } from "./support/cli.js"
import { until } from "./support/until.js"

const dir = mkdtempSync(join(tmpdir(), "ip-nosecrets-"))
const servers: Array<http.Server> = []
let host: ChildProcess | undefined
afterAll(async () => {
  host?.kill("SIGKILL")
  for (const server of servers) server.close()
  rmSync(dir, { recursive: true, force: true })
})
beforeAll(ensureBuilt, 600_000)

/** A local HTTP server answering every request with `status`; counts what it got. */
const stub = async (status: number) => {
  let count = 0
  const server = http.createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      count++
      response.writeHead(status, { "content-type": "application/json" }).end("{}")
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => count }
}

/** A port nothing listens on: a server's port, closed. */
const unreachablePort = async () => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("the host's output during a realistic session", () => {
  it("holds no API key, signing secret, provider token, secret key or endpoint URL; request lines carry their request id", async () => {
    const secretKey = AesGcmSecretBox.generateKey()
    const ownerKey = "nosecrets-owner-key-0123456789abcdefghijklmn"
    const seededToken = "ghp_SEEDEDPROVIDERTOKEN0123456789"
    const userPassword = "quiet-user-password-0123"
    const seededPushSecret = "seeded-push-secret-0123456789abc"
    const apiToken = "glpat-APIPROVIDERTOKEN0123456789"
    const apiPushSecret = "api-push-secret-0123456789abcdef"
    const queryToken = "QUERYTOKEN0123456789abcdef"
    const receiver = await stub(500)
    const provider = await stub(500)
    const failing = `${receiver.url}/hooks/failing?token=${queryToken}`
    const unreachable = `http://127.0.0.1:${await unreachablePort()}/hooks/unreachable?token=${queryToken}-2`

    const seedFile = join(dir, "seed.json")
    writeFileSync(
      seedFile,
      JSON.stringify({
        organizations: [{
          name: "Quiet",
          edition: "enterprise",
          apiKeys: [{ name: "owner", secret: ownerKey, role: "Owner", expiresInDays: 30 }],
          users: [{ email: "quiet@example.com", role: "Owner", password: userPassword }],
          vcsConnections: [{
            provider: "github",
            externalAccountName: "quiet-fixture",
            fixture: {
              repositories: [{
                externalRepoId: "1001",
                fullName: "quiet/api",
                defaultBranch: "main",
                branches: ["main"],
                files: { main: { Dockerfile: "FROM node:20\n" } }
              }]
            }
          }, {
            provider: "github",
            externalAccountName: "quiet",
            api: { baseUrl: `${provider.url}/api/v3`, token: seededToken, webhookSecret: seededPushSecret }
          }]
        }]
      })
    )
    const child = spawn(
      process.execPath,
      [bin, "serve", "--store", `pglite:${join(dir, "data")}`, "--port", "0", "--seed", seedFile, "--log-level", "debug"],
      {
        cwd: root,
        env: cleanEnv({
          IMAGE_POLICY_SECRET_KEY: secretKey,
          IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS: "1",
          IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE: "0.1,0.1,0.1"
        })
      }
    )
    host = child
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const lines = () => output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
    const listening = await until("the listening line", () => {
      if (child.exitCode !== null) throw new Error(`the host exited ${child.exitCode}:\n${output}`)
      return lines().find((line) => line.message === "listening")
    }, 180_000)
    const orgId: string = lines().find((line) => line.message === "seed loaded").annotations.organizations[0].id
    const api = `${listening.annotations.url}/api/v1/org/${orgId}`

    const call = async (method: string, path: string, body?: unknown, key = ownerKey) => {
      const response = await fetch(`${api}${path}`, {
        method,
        headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
    }

    // API keys: one created here, used, and one wrong key tried
    const created = await call("POST", "/api-keys", { name: "ci", role: "Read Only", expiresInDays: 7 })
    expect(created.status).toBe(201)
    const ciKey: string = created.body.secret
    expect((await call("GET", "/teams", undefined, ciKey)).status).toBe(200)
    expect((await call("GET", "/teams", undefined, `${ciKey.slice(0, -4)}XXXX`)).status).toBe(401)

    // webhook destinations: one answering 500, one unreachable; a test event each, a rotated secret
    const destination = (name: string, endpointUrl: string) =>
      call("POST", "/webhooks", { name, type: "generic", endpointUrl, scope: { kind: "organization" }, events: ["service.webhook.test"] })
    const toFailing = await destination("failing", failing)
    const toUnreachable = await destination("unreachable", unreachable)
    expect([toFailing.status, toUnreachable.status]).toEqual([201, 201])
    const signingSecrets: Array<string> = [toFailing.body.signingSecret, toUnreachable.body.signingSecret]
    const rotated = await call("POST", `/webhooks/${toFailing.body.id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    signingSecrets.push(rotated.body.signingSecret)
    for (const secret of signingSecrets) expect(secret).toMatch(/^whsec_/)
    for (const { body } of [toFailing, toUnreachable]) expect((await call("POST", `/webhooks/${body.id}/test`)).status).toBe(202)
    const replaced = await call("PUT", `/webhooks/${toUnreachable.body.id}/endpoint`, { endpointUrl: `${unreachable}-replaced` })
    expect(replaced.status).toBe(200)

    // VCS: a connection created through the API, a push with a bad signature on the seeded one
    const connection = await call("POST", "/vcs-connections", {
      provider: "gitlab",
      externalAccountName: "quiet-gitlab",
      baseUrl: `${provider.url}/api/v4`,
      token: apiToken,
      webhookSecret: apiPushSecret
    })
    expect(connection.status).toBe(201)
    const connections = await call("GET", "/vcs-connections")
    const seeded = connections.body.items.find((c: { externalAccountName: string }) => c.externalAccountName === "quiet")
    const push = await fetch(`${listening.annotations.url}/api/v1/vcs-events/github/${seeded.id}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "push", "x-hub-signature-256": "sha256=00" },
      body: JSON.stringify({ ref: "refs/heads/main" })
    })
    expect(push.status).toBeGreaterThanOrEqual(400)

    // the web console: a refused and an accepted sign-in, a write with the cookie and its CSRF token, a sign-out
    const sessionUrl = `${listening.annotations.url}/api/v1/session`
    const signIn = (password: string) =>
      fetch(sessionUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "quiet@example.com", password })
      })
    expect((await signIn(`${userPassword}-wrong`)).status).toBe(401)
    const signedIn = await signIn(userPassword)
    expect(signedIn.status).toBe(200)
    const sessionCookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!
    const csrfToken: string = ((await signedIn.json()) as any).csrfToken
    const byCookie = await fetch(`${api}/teams`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: sessionCookie, "x-csrf-token": csrfToken },
      body: JSON.stringify({ name: "Console" })
    })
    expect(byCookie.status).toBe(201)
    expect((await fetch(sessionUrl, { method: "DELETE", headers: { cookie: sessionCookie, "x-csrf-token": csrfToken } })).status).toBe(204)

    // scans: a repository onboarded from the fixture account and scanned; one on the failing provider
    // is refused after the provider answered 500
    const team = await call("POST", "/teams", { name: "Platform" })
    expect(team.status).toBe(201)
    const routine = await call("POST", `/teams/${team.body.id}/routines`, { name: "Weekly", intervalDays: 7 })
    expect(routine.status).toBe(201)
    const fixture = connections.body.items.find((c: { externalAccountName: string }) => c.externalAccountName === "quiet-fixture")
    const onboard = (vcsConnectionId: string, externalRepoId: string) =>
      call("POST", "/repositories", {
        vcsConnectionId,
        externalRepoId,
        assignedTeamId: team.body.id,
        assignedRoutineId: routine.body.id,
        branchNames: ["main"]
      })
    const repository = await onboard(fixture.id, "1001")
    expect(repository.status).toBe(201)
    expect((await onboard(connection.body.id, "42")).status).toBeGreaterThanOrEqual(400)
    expect(provider.count()).toBeGreaterThan(0)
    // onboarding queues a scan of each branch; the scan worker runs it
    const repositoryId: string = repository.body.repository.id
    await until("the scan's end", async () => {
      const scans = await call("GET", `/repositories/${repositoryId}/scans`)
      return scans.body.items.length > 0 &&
        scans.body.items.every((scan: { status: string }) => !["queued", "running"].includes(scan.status))
    }, 120_000)

    // the deliveries fail and are retried: wait for attempts at both destinations
    await until("failed attempts at both destinations", async () => {
      const deliveries = await Promise.all(
        [toFailing, toUnreachable].map(({ body }) => call("GET", `/webhooks/${body.id}/deliveries`))
      )
      const attempts = deliveries.map((d) => JSON.stringify(d.body).match(/"statusCode"|"outcome"/g)?.length ?? 0)
      return receiver.count() >= 2 && attempts.every((n) => n >= 2)
    }, 120_000)

    child.kill("SIGTERM")
    expect(await exited).toBe(0)

    const secrets = {
      secretKey,
      ownerKey,
      ciKey,
      seededToken,
      seededPushSecret,
      apiToken,
      apiPushSecret,
      queryToken,
      userPassword,
      sessionToken: sessionCookie.split("=")[1]!,
      csrfToken,
      ...Object.fromEntries(signingSecrets.map((s, i) => [`signingSecret${i}`, s])),
      // a signing secret's key material without its prefix, and the endpoints without their query
      ...Object.fromEntries(signingSecrets.map((s, i) => [`signingKey${i}`, s.slice("whsec_".length)])),
      failingEndpoint: failing.split("?")[0]!,
      unreachableEndpoint: unreachable.split("?")[0]!
    }
    for (const [name, value] of Object.entries(secrets)) {
      expect(output.includes(value), `${name} appears in the host's output`).toBe(false)
    }
    expect(output).not.toContain("/hooks/")

    // every request line, and every line logged while a request was handled, names the request
    const logged = lines()
    const requests = logged.filter((line) => line.message === "request")
    expect(requests.length).toBeGreaterThan(10)
    for (const line of requests) expect(line.annotations.requestId).toMatch(/^[A-Za-z0-9._:-]{1,64}$/)
    // the workers' lines are in the output too: the scan's
    expect(logged.some((line) => line.message === "scan succeeded" || line.message === "scan failed")).toBe(true)
    const refused = logged.filter((line) => line.message === "provider push refused")
    expect(refused).toHaveLength(1)
    expect(refused[0].annotations.requestId).toMatch(/^[A-Za-z0-9._:-]{1,64}$/)
  }, 600_000)
})
