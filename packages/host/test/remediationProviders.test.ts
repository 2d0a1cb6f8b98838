/**
 * Branch scans and remediation end to end against the local GitHub and GitLab stubs (issue 7;
 * adapters/test/support/providerStubs.ts): a repository onboarded through an API connection is
 * scanned from the provider's tree and file contents, a published mapping is turned into a pull
 * request (GitHub) or merge request (GitLab) on the routine's schedule whose head branch holds the
 * rewritten file, a second run updates that request, an approved snooze leaves its change out of
 * the request, and a write the provider forbids records a `failed` request with `permission-denied`
 * and delivers `service.remediation_pull_request.failed` with that `failure_kind`. The token never
 * appears in an answer.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Stubs from "../../adapters/test/support/providerStubs.js"
import * as Receiver from "../../adapters/test/support/receiver.js"
import { dayMs, shiftedClock } from "./support/clock.js"
import { startTestHost, type TestHost, testSeed } from "./support/harness.js"
import { expectJson, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const api = "/api/v1/org/org_acme"

const dockerfile = "# build\nFROM node:20 AS build\nRUN npm ci\n\nFROM node:20-slim\n"
const workflow = [
  "jobs:",
  "  test:",
  "    runs-on: ubuntu-latest",
  "    container: node:20",
  "    services:",
  "      db: { image: postgres:16 }",
  ""
].join("\n")

const providers = [
  {
    provider: "github" as const,
    start: Stubs.github,
    token: "ghp_REMEDIATIONSTUBTOKEN0123456789abcd",
    tokenEnv: "REMEDIATION_TEST_GITHUB_TOKEN",
    repositoryId: 4242,
    fullName: "acme/shop",
    urlOf: (number: number) => `https://github.example/acme/shop/pull/${number}`
  },
  {
    provider: "gitlab" as const,
    start: Stubs.gitlab,
    token: "glpat-REMEDIATIONSTUBTOKEN0123456789",
    tokenEnv: "REMEDIATION_TEST_GITLAB_TOKEN",
    repositoryId: 77,
    fullName: "acme/group/shop",
    urlOf: (number: number) => `https://gitlab.example/acme/group/shop/-/merge_requests/${number}`
  }
]

for (const p of providers) {
  describe(`scans and remediation through a ${p.provider} API (local stub)`, () => {
    const time = shiftedClock()
    let scope: Scope.Closeable
    let stub: Stubs.Stub
    let host: TestHost
    let receiver: Receiver.Receiver
    let repositoryId = ""
    const repo = Stubs.repository(p.repositoryId, p.fullName, {
      branches: ["main", "develop"],
      files: {
        main: { "Dockerfile": dockerfile, ".github/workflows/ci.yml": workflow, "src/index.js": "console.log('FROM node:20')\n" },
        develop: { "Dockerfile": "FROM node:18\n" }
      }
    })

    beforeAll(async () => {
      process.env[p.tokenEnv] = p.token
      scope = await Effect.runPromise(Scope.make())
      stub = await Effect.runPromise(Scope.provide(p.start({ token: p.token, repositories: [repo] }), scope))
      const seed = structuredClone(testSeed) as any
      seed.organizations[0].vcsConnections.push({
        provider: p.provider,
        externalAccountName: "acme-cloud",
        status: "active",
        api: { baseUrl: stub.baseUrl, tokenEnv: p.tokenEnv }
      })
      // plain: the host's clock runs days ahead, so signed timestamps would look stale
      receiver = await Receiver.start({ mode: "plain" })
      host = await startTestHost({
        seed,
        services: { allowUnsafeWebhookTargets: true },
        scanWorker: { pollIntervalMs: 20 },
        routineWorker: { intervalMs: 50 },
        deliveryWorker: { pollIntervalMs: 20, timeoutMs: 2_000 },
        clock: time.clock
      })
      // an organization-scoped destination receives every remediation event
      expectJson(
        await host.request("POST", `${api}/webhooks`, {
          body: {
            name: "remediation",
            type: "generic",
            endpointUrl: receiver.url("/org"),
            scope: { kind: "organization" },
            events: ["service.remediation_pull_request.created", "service.remediation_pull_request.failed"]
          }
        }),
        201
      )
    })
    afterAll(async () => {
      await host?.stop()
      await receiver?.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      delete process.env[p.tokenEnv]
    })

    const requests = async () => (await readAllPages(host, `${api}/repositories/${repositoryId}/remediation-requests`)).items
    const headFile = (head: string, path: string) => repo.files.get(head)?.get(path)
    /** Events the organization's destination received: type and data, in the order they arrived. */
    const events = () =>
      receiver.requests.filter((r) => r.path === "/org").map((r) => JSON.parse(r.rawBody)).map((e) => ({
        type: e.type as string,
        data: e.data
      }))
    const routineScansOfMain = async () =>
      (await readAllPages(host, `${api}/repositories/${repositoryId}/scans?branch=main`)).items.filter((s: any) => s.trigger === "routine")

    it("onboarding scans the branches from the provider's tree; only scannable files are read", async () => {
      const onboarded = await host.request("POST", `${api}/repositories`, {
        body: {
          vcsConnectionId: host.org.vcsConnections["acme-cloud"],
          externalRepoId: String(p.repositoryId),
          assignedTeamId: host.org.teams["Platform"],
          assignedRoutineId: host.org.routines["Platform/Weekly"],
          branchNames: ["main", "develop"]
        }
      })
      repositoryId = expectJson(onboarded, 201).repository.id
      const scans = await until("both scans", async () => {
        const list = (await readAllPages(host, `${api}/repositories/${repositoryId}/scans`)).items
        return list.length === 2 && list.every((s: any) => s.status === "succeeded") && list
      })
      const main = scans.find((s: any) => s.branchName === "main")
      expect(main).toMatchObject({ fileCount: 2, findingCount: 4, commitSha: repo.branches.get("main") })
      // src/index.js is never downloaded
      expect(stub.requests.some((r) => decodeURIComponent(r.path).includes("src/index.js"))).toBe(false)
      const findings = expectJson(await host.request("GET", `${api}/repositories/${repositoryId}/findings`), 200)
      expect(findings.items.map((f: any) => `${f.file}:${f.line} ${f.reference}`)).toEqual([
        ".github/workflows/ci.yml:4 node:20",
        ".github/workflows/ci.yml:6 postgres:16",
        "Dockerfile:2 node:20",
        "Dockerfile:5 node:20-slim"
      ])
    })

    it("on the routine's schedule a request is opened whose head branch holds the rewritten files", async () => {
      const group = host.org.policyGroups["Base images"]!
      expectJson(
        await host.request("POST", `${api}/repositories/${repositoryId}/policy-groups`, {
          body: { assignments: [{ policyGroupId: group.id, branchNames: ["main", "develop"] }] }
        }),
        200
      )
      expectJson(
        await host.request("POST", `${api}/policy-groups/${group.id}/phases/${group.phases["Curated"]}/mappings`, {
          body: { fromImage: "node:20", toImage: "node:20.11.1" }
        }),
        201
      )
      expectJson(await host.request("POST", `${api}/policy-groups/${group.id}/publish`), 200)
      expect(stub.pullRequests).toEqual([])
      time.advance(7 * dayMs + 60_000)
      const [request] = await until("the request", async () => {
        const list = await requests()
        return list.length === 1 && list
      })
      // develop's node:18 has no mapping: nothing to change there
      expect(request).toMatchObject({ branchName: "main", status: "open", headBranch: "image-policy/remediate/main" })
      expect(request.changes.map((c: any) => `${c.file}:${c.line} ${c.from} -> ${c.to}`)).toEqual([
        ".github/workflows/ci.yml:4 node:20 -> node:20.11.1",
        "Dockerfile:2 node:20 -> node:20.11.1"
      ])
      expect(stub.pullRequests).toEqual([
        expect.objectContaining({
          fullName: p.fullName,
          number: request.number,
          head: "image-policy/remediate/main",
          base: "main",
          state: "open",
          title: "Update container images on main"
        })
      ])
      expect(request.url).toBe(p.urlOf(request.number))
      expect(stub.pullRequests[0]!.body).toContain("`Dockerfile:2`")
      expect(headFile("image-policy/remediate/main", "Dockerfile")).toBe(dockerfile.replace("FROM node:20 AS", "FROM node:20.11.1 AS"))
      expect(headFile("image-policy/remediate/main", ".github/workflows/ci.yml")).toBe(
        workflow.replace("container: node:20", "container: node:20.11.1")
      )
      expect(headFile("image-policy/remediate/main", "src/index.js")).toBe("console.log('FROM node:20')\n")
      // the base branch is untouched
      expect(headFile("main", "Dockerfile")).toBe(dockerfile)
    })

    it("the next run updates the same request with a newer mapping", async () => {
      const [before] = await requests()
      const group = host.org.policyGroups["Base images"]!
      expectJson(
        await host.request("POST", `${api}/policy-groups/${group.id}/phases/${group.phases["Curated"]}/mappings`, {
          body: { fromImage: "node:20", toImage: "node:20.12.0" }
        }),
        200
      )
      expectJson(await host.request("POST", `${api}/policy-groups/${group.id}/publish`), 200)
      time.advance(7 * dayMs + 60_000)
      const [after] = await until("the update", async () => {
        const list = await requests()
        return list[0]?.updatedAt !== before.updatedAt && list
      })
      expect(after).toMatchObject({ id: before.id, number: before.number, status: "open" })
      expect(stub.pullRequests).toHaveLength(1)
      expect(headFile("image-policy/remediate/main", "Dockerfile")).toBe(dockerfile.replace("FROM node:20 AS", "FROM node:20.12.0 AS"))
    })

    it("an approved snooze leaves its image's change out; the other changes still update the request", async () => {
      const [before] = await requests()
      const group = host.org.policyGroups["Base images"]!
      expectJson(
        await host.request("POST", `${api}/policy-groups/${group.id}/phases/${group.phases["Curated"]}/mappings`, {
          body: { fromImage: "postgres:16", toImage: "postgres:16.4" }
        }),
        201
      )
      expectJson(await host.request("POST", `${api}/policy-groups/${group.id}/publish`), 200)
      const snooze = expectJson(
        await host.request("POST", `${api}/snooze-requests`, {
          body: {
            repositoryId,
            fromImage: "docker.io/library/node:20",
            reason: "certification",
            until: new Date(time.now() + 60 * dayMs).toISOString()
          }
        }),
        201
      ).id as string
      expectJson(await host.request("POST", `${api}/snooze-requests/${snooze}/review`, { body: { decision: "approve" } }), 200)
      const routineBefore = (await routineScansOfMain()).length
      time.advance(7 * dayMs + 60_000)
      // remediation runs before the routine scan is finished: once it succeeded the request is written
      await until("the routine scan", async () => {
        const list = await routineScansOfMain()
        return list.length > routineBefore && list[0].status === "succeeded"
      })
      const [after] = await requests()
      expect(after).toMatchObject({ id: before.id, number: before.number, status: "open" })
      expect(after.changes.map((c: any) => `${c.file}:${c.line} ${c.from} -> ${c.to}`)).toEqual([
        ".github/workflows/ci.yml:6 postgres:16 -> postgres:16.4"
      ])
      expect(stub.pullRequests).toHaveLength(1)
      // the head branch is committed from the base again: the snoozed node:20 stays as it is
      expect(headFile("image-policy/remediate/main", "Dockerfile")).toBe(dockerfile)
      expect(headFile("image-policy/remediate/main", ".github/workflows/ci.yml")).toBe(
        workflow.replace("image: postgres:16", "image: postgres:16.4")
      )
      expect(stub.pullRequests[0]!.body).not.toContain("node:20.12.0")
    })

    it("a write the provider forbids records a failed request and delivers .failed with permission-denied; no answer holds the token", async () => {
      stub.setOverride((r) => r.method === "GET" ? undefined : { status: 403, body: { message: "Resource not accessible by integration" } })
      try {
        time.advance(7 * dayMs + 60_000)
        const failed = await until("the failed request", async () => (await requests()).find((r: any) => r.status === "failed"))
        expect(failed).toMatchObject({ branchName: "main", failure: "permission-denied", number: null, url: null })
      } finally {
        stub.setOverride(undefined)
      }
      const event = await until("the .failed event", async () => events().find((e) => e.type === "service.remediation_pull_request.failed"))
      expect(event.data).toEqual({
        repository_id: repositoryId,
        action: "failed",
        failure_kind: "permission-denied",
        changed_at: expect.any(String)
      })
      // opened, updated, updated (snooze), failed: one event each
      await until("every event", async () => events().length >= 4)
      expect(events().map((e) => e.type.split(".").pop())).toEqual(["created", "created", "created", "failed"])
      for (const path of ["remediation-requests", "scans", "findings"]) {
        const answer = await host.request("GET", `${api}/repositories/${repositoryId}/${path}`)
        expect(answer.text).not.toContain(p.token)
        expect(answer.text).not.toContain("Resource not accessible")
      }
    })
  })
}
