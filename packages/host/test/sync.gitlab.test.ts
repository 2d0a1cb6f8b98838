/** External phase sync through a connection to a GitLab API (a local stub), end to end over HTTP. */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Stubs from "../../adapters/test/support/providerStubs.js"
import { startTestHost, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, readAllPages } from "./support/suites.js"
import { api, file, syncSeed } from "./support/sync.js"

describe("a connection to a GitLab API (local stub), end to end", () => {
  const token = "glpat-SYNCSTUBTOKEN0123456789"
  const hookSecret = "stub-gitlab-webhook-token-0123456789abcdef"
  const path = "policy/service-mappings.json"
  const v1 = file(
    { fromImage: "postgres:16", toImage: "postgres:16.2", reason: "patch release" },
    { fromImage: "bitnami/*:latest", toImage: "bitnami/redis:7.2.4" }
  )
  let scope: Scope.Closeable
  let stub: Stubs.Stub
  let host: TestHost
  let hookId: string
  const repo = Stubs.repository(77, "acme-platform/policy", { branches: ["main", "staging"], files: { main: { [path]: v1 } } })

  beforeAll(async () => {
    process.env.SYNC_TEST_GITLAB_TOKEN = token
    process.env.SYNC_TEST_GITLAB_WEBHOOK_SECRET = hookSecret
    scope = await Effect.runPromise(Scope.make())
    stub = await Effect.runPromise(Scope.provide(Stubs.gitlab({ token, repositories: [repo] }), scope))
    const seed = syncSeed()
    seed.organizations[0].vcsConnections.push({
      provider: "gitlab",
      externalAccountName: "acme-gitlab",
      status: "active",
      api: { baseUrl: stub.baseUrl, tokenEnv: "SYNC_TEST_GITLAB_TOKEN", webhookSecretEnv: "SYNC_TEST_GITLAB_WEBHOOK_SECRET" }
    })
    seed.organizations[0].policyGroups.push({
      name: "GitLab",
      phases: [{
        name: "GitLab file",
        source: "external",
        file: { connection: "acme-gitlab", repository: "acme-platform/policy", branch: "main", path, pollIntervalSeconds: 600 }
      }]
    })
    host = await startTestHost({ seed, services: { allowUnsafeWebhookTargets: true }, deliveryWorker: false })
    const hook = await host.request("POST", `${api}/webhooks`, {
      body: {
        name: "gitlab policy events",
        type: "generic",
        endpointUrl: "http://127.0.0.1:9/hook",
        scope: { kind: "organization" },
        events: [
          "service.policy_group.updated",
          "service.policy_mapping.created",
          "service.policy_mapping.updated",
          "service.policy_mapping.removed"
        ]
      }
    })
    hookId = expectJson(hook, 201).id
  })
  afterAll(async () => {
    await host?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    delete process.env.SYNC_TEST_GITLAB_TOKEN
    delete process.env.SYNC_TEST_GITLAB_WEBHOOK_SECRET
  })

  const group = () => host.org.policyGroups["GitLab"]!
  const phaseId = () => group().phases["GitLab file"]!
  const syncPath = () => `${api}/policy-groups/${group().id}/phases/${phaseId()}/sync`
  const setFile = (content: string | null) => {
    const files = repo.files.get("main")!
    if (content === null) files.delete(path)
    else files.set(path, content)
  }
  const fileReads = () => stub.requests.filter((r) => r.method === "GET" && r.path.includes("/repository/files/"))
  const details = async () => expectJson(await host.request("GET", `${api}/policy-groups/${group().id}/details`), 200)
  const external = async () => (await details()).phases[0].external
  const published = async () =>
    (await details()).publishedMappings.map((m: any) => `${m.fromImage} -> ${m.toImage}`).sort() as Array<string>
  const eventTypes = async () =>
    (await readAllPages(host, `${api}/webhooks/${hookId}/deliveries`, { limit: 200 })).items.map((d: any) => d.type as string)
  const push = (options: { readonly ref?: string; readonly paths?: ReadonlyArray<string> } = {}) => ({
    object_kind: "push",
    ref: options.ref ?? "refs/heads/main",
    before: "1".repeat(40),
    after: "2".repeat(40),
    project: { path_with_namespace: "acme-platform/policy" },
    total_commits_count: 1,
    commits: [{ id: "2".repeat(40), added: [], modified: [...(options.paths ?? [path])], removed: [] }]
  })
  /** `token: null` sends no X-Gitlab-Token. */
  const sendPush = (body: unknown, token: string | null = hookSecret) =>
    host.request("POST", `/api/v1/vcs-events/gitlab/${host.org.vcsConnections["acme-gitlab"]}`, {
      key: null,
      body,
      headers: {
        "x-gitlab-event": "Push Hook",
        "x-gitlab-event-uuid": randomUUID(),
        ...(token !== null ? { "x-gitlab-token": token } : {})
      }
    })

  it("POST .../sync reads the file from GitLab with the token; the first version is published, wildcards included, with events", async () => {
    const answer = expectJson(await host.request("POST", syncPath()), 200)
    expect(answer).toEqual({ phaseId: phaseId(), version: Stubs.gitBlobSha(v1), changed: true, created: 2, updated: 0, removed: 0 })
    const reads = fileReads()
    expect(reads).toHaveLength(1)
    expect(reads[0]!.headers["private-token"]).toBe(token)
    expect(reads[0]!.query.get("ref")).toBe("main")
    expect(await published()).toEqual(["bitnami/*:latest -> bitnami/redis:7.2.4", "postgres:16 -> postgres:16.2"])
    const ext = await external()
    expect(ext).toMatchObject({ repositoryFullName: "acme-platform/policy", branch: "main", path, lastError: null })
    expect(Date.now() - Date.parse(ext.lastSyncedAt)).toBeLessThan(60_000)
    expect(JSON.stringify(await details())).not.toContain(token)
    const events = await eventTypes()
    expect(events.filter((t) => t === "service.policy_mapping.created")).toHaveLength(2)
    expect(events.filter((t) => t === "service.policy_group.updated")).toHaveLength(1)
    expect(events).toHaveLength(3)
  })

  it("the same version synced again, from the API or a push, changes nothing and emits nothing", async () => {
    const before = await details()
    const events = await eventTypes()
    const audit = await auditRows(host)
    expect(expectJson(await host.request("POST", syncPath()), 200)).toEqual({
      phaseId: phaseId(),
      version: Stubs.gitBlobSha(v1),
      changed: false,
      created: 0,
      updated: 0,
      removed: 0
    })
    expect(expectJson(await sendPush(push()), 202).synced).toEqual([
      { phaseId: phaseId(), version: Stubs.gitBlobSha(v1), changed: false, created: 0, updated: 0, removed: 0 }
    ])
    expect(fileReads()).toHaveLength(3)
    expect(await details()).toEqual(before)
    expect(await eventTypes()).toEqual(events)
    expect(await auditRows(host)).toHaveLength(audit.length)
  })

  it("a push with the right X-Gitlab-Token syncs a new version: added, changed and removed mappings", async () => {
    const before = await published()
    const [kept] = (await details()).publishedMappings.filter((m: any) => m.fromImage === "postgres:16")
    const v2 = file(
      { fromImage: "postgres:16", toImage: "postgres:16.3", reason: "patch release" },
      { fromImage: "python:3.12-*", toImage: "python:3.12.2-slim" }
    )
    setFile(v2)
    // the token is checked before anything is read
    const reads = fileReads().length
    for (const wrong of [null, "wrong-token", hookSecret + "x", token]) {
      const refused = await sendPush(push(), wrong)
      expectProblem(refused, 401, { type: "/problems/push-not-authenticated" })
      expect(refused.text).not.toContain(hookSecret)
    }
    expect(fileReads()).toHaveLength(reads)
    expect(await published()).toEqual(before)
    // a push to another branch or of other files reads nothing
    expect(expectJson(await sendPush(push({ ref: "refs/heads/staging" })), 202)).toEqual({ synced: [], merged: [] })
    expect(expectJson(await sendPush(push({ paths: ["README.md", "service-mappings.json"] })), 202)).toEqual({ synced: [], merged: [] })
    expect(fileReads()).toHaveLength(reads)

    const eventsBefore = await eventTypes()
    const answer = expectJson(await sendPush(push()), 202)
    expect(answer.synced).toEqual([{
      phaseId: phaseId(),
      version: Stubs.gitBlobSha(v2),
      changed: true,
      created: 1,
      updated: 1,
      removed: 1
    }])
    expect(await published()).toEqual(["postgres:16 -> postgres:16.3", "python:3.12-* -> python:3.12.2-slim"])
    const changed = (await details()).publishedMappings.find((m: any) => m.fromImage === "postgres:16")
    expect(changed).toMatchObject({ id: kept.id, createdAt: kept.createdAt })
    expect([...(await eventTypes()).slice(eventsBefore.length)].sort()).toEqual([
      "service.policy_group.updated",
      "service.policy_mapping.created",
      "service.policy_mapping.removed",
      "service.policy_mapping.updated"
    ])
    const rows = (await auditRows(host)).filter((r) => r.action === "policy_group.sync")
    expect(rows[0]).toMatchObject({ actor: { kind: "system", name: "gitlab-push" }, resourceType: "phase", resourceId: phaseId() })
  })

  it("an invalid version keeps the published mappings, shows lastError in details and tells subscribers once", async () => {
    const before = (await details()).publishedMappings
    const eventsBefore = await eventTypes()
    setFile(
      file({ fromImage: "postgres:16", toImage: "postgres:16.3", order: "first" }, {
        fromImage: "redis:7",
        toImage: "redis:7.2",
        colour: "red"
      })
    )
    const answer = expectJson(await sendPush(push()), 202)
    expect(answer.synced).toHaveLength(1)
    const error = answer.synced[0].error as string
    expect(answer.synced[0]).toMatchObject({ phaseId: phaseId(), changed: false, created: 0, updated: 0, removed: 0 })
    expect(error).toMatch(/^service-mappings\.json is not valid and was not applied: /)
    expect(error).toContain("mappings[0].order")
    expect(error).toContain("mappings[1].colour: is unexpected")
    expect(error).not.toContain("policy/")
    expect((await details()).publishedMappings).toEqual(before)
    const ext = await external()
    expect(ext.lastError).toBe(error)
    expect((await eventTypes()).slice(eventsBefore.length)).toEqual(["service.policy_group.updated"])

    // the same invalid version again: the same error, nothing new
    expect(expectJson(await host.request("POST", syncPath()), 200)).toMatchObject({ changed: false, error })
    expect(await eventTypes()).toHaveLength(eventsBefore.length + 1)
    expect(await external()).toEqual(ext)

    // the next valid version applies and clears the error
    setFile(file({ fromImage: "postgres:16", toImage: "postgres:16.4" }))
    expect(expectJson(await host.request("POST", syncPath()), 200)).toMatchObject({ changed: true, updated: 1, removed: 1 })
    expect((await external()).lastError).toBeNull()
    expect(await published()).toEqual(["postgres:16 -> postgres:16.4"])
  })

  it("a GitLab rate limit answers 429 with Retry-After and changes nothing", async () => {
    const before = await details()
    setFile(file({ fromImage: "postgres:16", toImage: "postgres:16.5" }))
    stub.failNext({ status: 429, headers: { "retry-after": "1" }, body: { message: "Retry later" } })
    const answer = await host.request("POST", syncPath())
    expectProblem(answer, 429, { type: "/problems/vcs-provider-rate-limited" })
    expect(answer.headers.get("retry-after")).toBe("1")
    expect(answer.text).not.toContain("Retry later")
    expect(answer.text).not.toContain(token)
    expect(await details()).toEqual(before)
  })
})
