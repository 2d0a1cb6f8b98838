/**
 * docs/getting-started.md's curl walkthrough, run as written: its `sh` blocks between the
 * `walkthrough` markers go to bash against a host started like `npm start` (`--demo`), so the doc
 * cannot drift from the API. Every request fails the script on an error answer (`--fail-with-body`);
 * the test then checks what the walk built.
 */
import { MemoryStore } from "@image-policy/adapters"
import { execFile, execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as App from "../src/App.js"
import { type Running, start } from "../src/runtime/node.js"
import { root } from "./support/build.js"
import { until } from "./support/until.js"

const doc = readFileSync(join(root, "docs/getting-started.md"), "utf8")

/** The `sh` blocks of the walkthrough, in order. */
const walkthrough = (): string => {
  const section = doc.split("<!-- walkthrough -->")[1]?.split("<!-- /walkthrough -->")[0]
  if (section === undefined) throw new Error("docs/getting-started.md has no walkthrough markers")
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).join("\n")
}

const tools = ["bash", "curl", "jq"].every((tool) => {
  try {
    execFileSync("which", [tool], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})

let running: Running | undefined
beforeAll(async () => {
  running = await start({
    port: 0,
    host: "127.0.0.1",
    store: MemoryStore.layer,
    app: { ...App.defaults, accessLog: false, rateLimit: null },
    demo: true,
    logLevel: "Warn",
    syncWorker: false,
    routineWorker: false,
    snoozeExpiryWorker: false,
    snapshotWorker: false
  })
})
afterAll(() => running?.stop())

describe("docs/getting-started.md walkthrough", () => {
  it("has the blocks it promises", () => {
    const script = walkthrough()
    for (const route of ["/teams", "/routines", "/vcs-connections", "/policy-groups", "/phases", "/repositories", "/draft", "/publish"]) {
      expect(script).toContain(route)
    }
    for (const route of ["/settings", "/members", "/reports/compliance"]) expect(script).toContain(route)
  })

  it("the demo user signs in to the web console with the password of this start", async () => {
    const demo = running!.boot.demo!
    expect(demo.userEmail).toBe("demo@example.com")
    const signIn = (password: string) =>
      fetch(`${running!.url}/api/v1/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: demo.userEmail, password })
      })
    const answer = await signIn(demo.password)
    expect(answer.status).toBe(200)
    expect((await answer.json()) as any).toMatchObject({ organization: { id: "org_demo" }, user: { role: "Owner" } })
    expect((await signIn(`${demo.password}x`)).status).toBe(401)
  })

  it.skipIf(!tools)("runs as written against a demo host (bash, curl and jq)", async () => {
    const host = running!
    const key = host.boot.demo!.apiKey
    const api = `${host.url}/api/v1/org/org_demo`
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        "bash",
        ["-euo", "pipefail", "-c", walkthrough()],
        { env: { ...process.env, KEY: key, API: api } },
        (error, stdout, stderr) => error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)
      )
    )
    // what the doc's comments promise
    expect(output).toContain(`"intervalDays":2`)
    expect(output).toContain(`"tokenConfigured":true`)
    expect(output).not.toContain("ghp_replace-with-a-real-token")
    expect(output).toContain(`"changes":{"created":1,"updated":0,"removed":0}`)
    expect(output).toContain(`"added":[],"changed":[],"removed":[],"unchanged":1`)
    expect(output).toContain(`"cooldownSeconds":300`)
    expect(output).toContain(`"email":"dev@example.com"`)

    const get = async (path: string) => (await fetch(`${api}${path}`, { headers: { "x-api-key": key } })).json() as Promise<any>
    const mobile = (await get("/teams")).items.find((t: any) => t.name === "Mobile")
    expect(mobile).toBeDefined()
    // once the onboarding scans ran: acme/web's Dockerfile uses nginx:1.25, which the mapping replaces
    const team = await until("the onboarding scans in the report", async () => {
      const row = (await get("/reports/compliance")).teams.find((t: any) => t.teamId === mobile.id)
      return row?.scannedBranches === 2 ? row : undefined
    })
    expect(team).toMatchObject({ trackedBranches: 2, scannedBranches: 2, outOfPolicyFindings: 1, findingsWithoutMapping: 0 })
  }, 60_000)
})
