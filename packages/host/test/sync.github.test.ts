/** External phase sync through a connection to a GitHub API (a local stub), end to end over HTTP. */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Stubs from "../../adapters/test/support/providerStubs.js"
import { startTestHost, type TestHost } from "./support/harness.js"
import { expectJson, expectProblem } from "./support/suites.js"
import { api, file, githubPush, githubSecret, sign, syncSeed } from "./support/sync.js"

describe("a connection to a GitHub API (local stub), end to end", () => {
  const token = "ghp_SYNCSTUBTOKEN0123456789abcdef"
  const hookSecret = "stub-webhook-secret-0123456789abcdef"
  const path = "policy/service-mappings.json"
  let scope: Scope.Closeable
  let stub: Stubs.Stub
  let host: TestHost
  const repo = Stubs.repository(42, "acme/platform-policy", {
    branches: ["main", "staging"],
    files: { main: { [path]: file({ fromImage: "nginx:1", toImage: "nginx:1.27.0" }) } }
  })

  beforeAll(async () => {
    process.env.SYNC_TEST_GITHUB_TOKEN = token
    process.env.SYNC_TEST_GITHUB_WEBHOOK_SECRET = hookSecret
    scope = await Effect.runPromise(Scope.make())
    stub = await Effect.runPromise(Scope.provide(Stubs.github({ token, repositories: [repo] }), scope))
    const seed = syncSeed()
    seed.organizations[0].vcsConnections.push({
      provider: "github",
      externalAccountName: "acme-cloud",
      status: "active",
      api: { baseUrl: stub.baseUrl, tokenEnv: "SYNC_TEST_GITHUB_TOKEN", webhookSecretEnv: "SYNC_TEST_GITHUB_WEBHOOK_SECRET" }
    })
    seed.organizations[0].policyGroups.push({
      name: "Cloud",
      phases: [{
        name: "Cloud file",
        source: "external",
        file: { connection: "acme-cloud", repository: "acme/platform-policy", branch: "main", path }
      }]
    })
    host = await startTestHost({ seed })
  })
  afterAll(async () => {
    await host?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    delete process.env.SYNC_TEST_GITHUB_TOKEN
    delete process.env.SYNC_TEST_GITHUB_WEBHOOK_SECRET
  })

  const cloud = () => host.org.policyGroups["Cloud"]!
  const syncPath = () => `${api}/policy-groups/${cloud().id}/phases/${cloud().phases["Cloud file"]}/sync`
  const contentsPath = `/repos/acme/platform-policy/contents/${path}`
  const published = async () =>
    (await host.request("GET", `${api}/policy-groups/${cloud().id}/details`)).body.publishedMappings.map((m: any) => m.toImage) as Array<
      string
    >

  it("the sync reads the file from the provider with the token; the version is the blob sha", async () => {
    const answer = expectJson(await host.request("POST", syncPath()), 200)
    expect(answer).toMatchObject({
      changed: true,
      created: 1,
      version: Stubs.gitBlobSha(file({ fromImage: "nginx:1", toImage: "nginx:1.27.0" }))
    })
    expect(stub.count(contentsPath)).toBe(1)
    expect(stub.requests.find((r) => r.path === contentsPath)!.query.get("ref")).toBe("main")
    expect(await published()).toEqual(["nginx:1.27.0"])
  })

  it("a signed push of the changed file syncs it from the provider", async () => {
    repo.files.get("main")!.set(path, file({ fromImage: "nginx:1", toImage: "nginx:1.27.1" }))
    const raw = JSON.stringify({ ...githubPush({ repository: "acme/platform-policy", paths: [path] }) })
    const connection = host.org.vcsConnections["acme-cloud"]!
    const answer = await host.request("POST", `/api/v1/vcs-events/github/${connection}`, {
      key: null,
      raw,
      headers: {
        "content-type": "application/json",
        "x-github-event": "push",
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": sign(hookSecret, raw)
      }
    })
    expect(expectJson(answer, 202).synced).toEqual([expect.objectContaining({ changed: true, updated: 1 })])
    expect(await published()).toEqual(["nginx:1.27.1"])
    // the fixture secret of another connection does not sign for this one
    expectProblem(
      await host.request("POST", `/api/v1/vcs-events/github/${connection}`, {
        key: null,
        raw,
        headers: { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": sign(githubSecret, raw) }
      }),
      401
    )
  })

  it("rejected credentials answer 409 and mark the connection error; the provider's answer again marks it active", async () => {
    const connections = async () =>
      Object.fromEntries(
        (await host.request("GET", `${api}/vcs-connections`)).body.items.map((c: any) => [c.externalAccountName, c.status])
      )
    repo.files.get("main")!.set(path, file({ fromImage: "nginx:1", toImage: "nginx:1.27.2" }))
    stub.failNext({ status: 401, body: { message: "Bad credentials" } })
    const refused = await host.request("POST", syncPath())
    expectProblem(refused, 409, { type: "/problems/vcs-provider-unauthorized" })
    expect(refused.text).not.toContain("Bad credentials")
    expect(refused.text).not.toContain(token)
    expect((await connections())["acme-cloud"]).toBe("error")
    expect(await published()).toEqual(["nginx:1.27.1"])

    stub.failNext({ status: 503, body: { message: "down" } })
    expectProblem(await host.request("POST", syncPath()), 503, { type: "/problems/vcs-provider-unavailable" })

    expect(expectJson(await host.request("POST", syncPath()), 200)).toMatchObject({ changed: true, updated: 1 })
    expect((await connections())["acme-cloud"]).toBe("active")
    expect(await published()).toEqual(["nginx:1.27.2"])
  })

  it("a branch the provider does not know is recorded on the phase, without the provider's text", async () => {
    const seedless = host.org.policyGroups["Cloud"]!
    repo.branches.delete("main")
    try {
      const answer = expectJson(await host.request("POST", syncPath()), 200)
      expect(answer.error).toBe("the provider does not know the repository or the branch of this phase; the published mappings were kept")
      expect(await published()).toEqual(["nginx:1.27.2"])
      const details = (await host.request("GET", `${api}/policy-groups/${seedless.id}/details`)).body
      expect(details.phases[0].external.lastError).toBe(answer.error)
    } finally {
      repo.branches.set("main", "3".repeat(40))
    }
  })
})
