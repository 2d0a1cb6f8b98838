/**
 * Connections whose provider token and push webhook secret are given in the seed itself (`token`,
 * `webhookSecret`) instead of named environment variables (issue 6: "token from the environment or
 * the secret store, never logged"), on the memory store and on PostgreSQL. The seed loader seals
 * both with the host's secret key; syncs against the GitHub and GitLab stubs send the opened token,
 * pushes verify against the opened secret, and the stored settings (read raw), the connections
 * list, audit rows and answers hold neither. A host started on the same store with another
 * `IMAGE_POLICY_SECRET_KEY` answers syncs with the not-configured problem and refuses pushes,
 * logging why without the values. The env-var version of these paths is in sync.test.ts.
 */
import { AesGcmSecretBox, MemoryStore, PgClient, StoreConfig } from "@image-policy/adapters"
import { type Id, RepositoryStore, type Stores } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { createHmac, randomUUID } from "node:crypto"
import * as Pg from "pg"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import * as Stubs from "../../adapters/test/support/providerStubs.js"
import { startTestHost, type TestHost, testSeed } from "./support/harness.js"
import { auditRows, expectJson, expectProblem } from "./support/suites.js"

const api = "/api/v1/org/org_acme"
const githubToken = "ghp_SEALEDSTUBTOKEN0123456789abcdef"
const gitlabToken = "glpat-SEALEDSTUBTOKEN0123456789"
const githubHookSecret = "sealed-github-webhook-secret-0123456789"
const gitlabHookSecret = "sealed-gitlab-webhook-token-0123456789"
const plaintexts = [githubToken, gitlabToken, githubHookSecret, gitlabHookSecret]
const path = "policy/service-mappings.json"

const file = (...mappings: Array<Record<string, unknown>>) => JSON.stringify({ mappings }, null, 2)
const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
const expectNoPlaintext = (text: string) => {
  for (const secret of plaintexts) expect(text).not.toContain(secret)
}

/** Where the suite's hosts keep their data, and how to read a connection's settings column as stored. */
interface SharedStore {
  readonly layer: () => Layer.Layer<Stores, unknown>
  /** Every connection's stored settings, as the store holds them (JSON text). */
  readonly rawSettings: () => Promise<Array<string>>
}

const suite = (storeName: string, shared: () => SharedStore) =>
  describe(`sealed provider token and webhook secret (${storeName})`, () => {
    const key = AesGcmSecretBox.generateKey()
    const otherKey = AesGcmSecretBox.generateKey()
    let scope: Scope.Closeable
    let github: Stubs.Stub
    let gitlab: Stubs.Stub
    let host: TestHost
    const githubRepo = Stubs.repository(42, "acme/platform-policy", {
      branches: ["main"],
      files: { main: { [path]: file({ fromImage: "nginx:1", toImage: "nginx:1.27.0" }) } }
    })
    const gitlabRepo = Stubs.repository(77, "acme-platform/policy", {
      branches: ["main"],
      files: { main: { [path]: file({ fromImage: "postgres:16", toImage: "postgres:16.2" }) } }
    })

    const seed = () => {
      const s = structuredClone(testSeed) as any
      const acme = s.organizations[0]
      acme.vcsConnections.push(
        {
          provider: "github",
          externalAccountName: "acme-cloud",
          api: { baseUrl: github.baseUrl, token: githubToken, webhookSecret: githubHookSecret }
        },
        {
          provider: "gitlab",
          externalAccountName: "acme-gitlab",
          api: { baseUrl: gitlab.baseUrl, token: gitlabToken, webhookSecret: gitlabHookSecret }
        }
      )
      acme.policyGroups.push(
        {
          name: "Cloud",
          phases: [{
            name: "Cloud file",
            source: "external",
            file: { connection: "acme-cloud", repository: "acme/platform-policy", branch: "main", path }
          }]
        },
        {
          name: "GitLab",
          phases: [{
            name: "GitLab file",
            source: "external",
            file: { connection: "acme-gitlab", repository: "acme-platform/policy", branch: "main", path }
          }]
        }
      )
      return s
    }
    const start = (secretKey: string) => startTestHost({ store: shared().layer(), seed: seed(), services: { secretKey } })

    beforeAll(async () => {
      scope = await Effect.runPromise(Scope.make())
      github = await Effect.runPromise(Scope.provide(Stubs.github({ token: githubToken, repositories: [githubRepo] }), scope))
      gitlab = await Effect.runPromise(Scope.provide(Stubs.gitlab({ token: gitlabToken, repositories: [gitlabRepo] }), scope))
      host = await start(key)
    })
    afterAll(async () => {
      await host?.stop()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    const syncPath = (group: string, phase: string) => {
      const g = host.org.policyGroups[group]!
      return `${api}/policy-groups/${g.id}/phases/${g.phases[phase]}/sync`
    }
    const published = async (group: string) =>
      expectJson(await host.request("GET", `${api}/policy-groups/${host.org.policyGroups[group]!.id}/details`), 200)
        .publishedMappings.map((m: any) => m.toImage) as Array<string>
    const connectionId = (name: string) => host.org.vcsConnections[name]!
    const pushGitlab = (token: string) =>
      host.request("POST", `/api/v1/vcs-events/gitlab/${connectionId("acme-gitlab")}`, {
        key: null,
        body: {
          object_kind: "push",
          ref: "refs/heads/main",
          before: "1".repeat(40),
          after: "2".repeat(40),
          project: { path_with_namespace: "acme-platform/policy" },
          total_commits_count: 1,
          commits: [{ id: "2".repeat(40), added: [], modified: [path], removed: [] }]
        },
        headers: { "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": randomUUID(), "x-gitlab-token": token }
      })
    const pushGithub = (secret: string) => {
      const raw = JSON.stringify({
        ref: "refs/heads/main",
        before: "1".repeat(40),
        after: "2".repeat(40),
        created: false,
        deleted: false,
        forced: false,
        repository: { full_name: "acme/platform-policy", pushed_at: Math.floor(Date.now() / 1000) },
        commits: [{ id: "2".repeat(40), added: [], modified: [path], removed: [] }]
      })
      return host.request("POST", `/api/v1/vcs-events/github/${connectionId("acme-cloud")}`, {
        key: null,
        raw,
        headers: {
          "content-type": "application/json",
          "x-github-event": "push",
          "x-github-delivery": randomUUID(),
          "x-hub-signature-256": sign(secret, raw)
        }
      })
    }

    it("a sync reads the file from GitHub and GitLab with the opened token; no environment variable is involved", async () => {
      expect(expectJson(await host.request("POST", syncPath("Cloud", "Cloud file")), 200)).toMatchObject({ changed: true, created: 1 })
      expect(expectJson(await host.request("POST", syncPath("GitLab", "GitLab file")), 200)).toMatchObject({ changed: true, created: 1 })
      const githubRead = github.requests.find((r) => r.path === `/repos/acme/platform-policy/contents/${path}`)!
      expect(githubRead.headers["authorization"]).toBe(`Bearer ${githubToken}`)
      const gitlabRead = gitlab.requests.find((r) => r.method === "GET" && r.path.includes("/repository/files/"))!
      expect(gitlabRead.headers["private-token"]).toBe(gitlabToken)
      expect(await published("Cloud")).toEqual(["nginx:1.27.0"])
      expect(await published("GitLab")).toEqual(["postgres:16.2"])
      for (const name of Object.keys(process.env)) expect(plaintexts).not.toContain(process.env[name])
    })

    it("the stored settings hold only the sealed forms; the connections list, details and audit rows show neither", async () => {
      const rows = await shared().rawSettings()
      const sealed = rows.filter((row) => row.includes("sealedToken"))
      expect(sealed).toHaveLength(2)
      for (const row of rows) expectNoPlaintext(row)
      for (const row of sealed) {
        const settings = JSON.parse(row)
        expect(Object.keys(settings).sort()).toEqual(["baseUrl", "kind", "sealedToken", "sealedWebhookSecret"])
        expect(settings.sealedToken).toMatch(/^v1\./)
        expect(settings.sealedWebhookSecret).toMatch(/^v1\./)
      }
      const list = await host.request("GET", `${api}/vcs-connections`)
      const items = expectJson(list, 200).items as Array<any>
      expect(items.map((c) => c.externalAccountName)).toEqual(expect.arrayContaining(["acme-cloud", "acme-gitlab"]))
      expectNoPlaintext(list.text)
      expect(list.text).not.toContain("sealed")
      expect(list.text).not.toContain("v1.")
      for (const group of ["Cloud", "GitLab"]) {
        const details = await host.request("GET", `${api}/policy-groups/${host.org.policyGroups[group]!.id}/details`)
        expectNoPlaintext(details.text)
        expect(details.text).not.toContain("sealed")
      }
      expectNoPlaintext(JSON.stringify(await auditRows(host)))
    })

    it("a GitLab push with the sealed webhookSecret verifies and syncs; a GitHub push signed with its sealed secret too; wrong secrets are refused", async () => {
      gitlabRepo.files.get("main")!.set(path, file({ fromImage: "postgres:16", toImage: "postgres:16.3" }))
      for (const wrong of ["wrong-token-0123456789", gitlabToken, githubHookSecret]) {
        const refused = await pushGitlab(wrong)
        expectProblem(refused, 401, { type: "/problems/push-not-authenticated" })
        expectNoPlaintext(refused.text)
      }
      expect(await published("GitLab")).toEqual(["postgres:16.2"])
      expect(expectJson(await pushGitlab(gitlabHookSecret), 202).synced).toEqual([expect.objectContaining({ changed: true, updated: 1 })])
      expect(await published("GitLab")).toEqual(["postgres:16.3"])

      githubRepo.files.get("main")!.set(path, file({ fromImage: "nginx:1", toImage: "nginx:1.27.1" }))
      expectProblem(await pushGithub(gitlabHookSecret), 401, { type: "/problems/push-not-authenticated" })
      expect(expectJson(await pushGithub(githubHookSecret), 202).synced).toEqual([expect.objectContaining({ changed: true, updated: 1 })])
      expect(await published("Cloud")).toEqual(["nginx:1.27.1"])
    })

    it("a host with another secret key: syncs answer the not-configured problem, pushes are refused, the log says why without the values", async () => {
      await host.stop()
      const lines: Array<string> = []
      const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
        lines.push(args.map(String).join(" "))
      })
      try {
        host = await start(otherKey)
        // the organization exists: the seed is not loaded again, the sealed values stay as they were
        expect(host.org.existing).toBe(true)
        host = { ...host, org: { ...host.org, vcsConnections: await connectionIds(host), policyGroups: await groupIds(host) } }
        const requestsBefore = github.requests.length + gitlab.requests.length
        githubRepo.files.get("main")!.set(path, file({ fromImage: "nginx:1", toImage: "nginx:1.27.2" }))
        for (const [group, phase] of [["Cloud", "Cloud file"], ["GitLab", "GitLab file"]] as const) {
          const answer = await host.request("POST", syncPath(group, phase))
          expectProblem(answer, 409, { type: "/problems/vcs-provider-not-configured" })
          expectNoPlaintext(answer.text)
          expect(answer.text).not.toMatch(/stack|at .*\.(js|ts):\d+/i)
        }
        expect(await published("Cloud")).toEqual(["nginx:1.27.1"])
        const refused = await pushGitlab(gitlabHookSecret)
        expectProblem(refused, 401, { type: "/problems/push-not-authenticated" })
        expectProblem(await pushGithub(githubHookSecret), 401, { type: "/problems/push-not-authenticated" })
        expect(github.requests.length + gitlab.requests.length).toBe(requestsBefore)
      } finally {
        spy.mockRestore()
      }
      const log = lines.join("\n")
      expect(log).toContain("VCS connection token unavailable")
      expect(log).toContain("sealed-token-decrypt-failed")
      expect(log).toContain("sealed-webhook-secret-decrypt-failed")
      expectNoPlaintext(log)
      expect(log).not.toContain("v1.")
    })
  })

/** The ids a host started on an existing organization does not answer from the seed, read back by name. */
const connectionIds = async (host: TestHost): Promise<Record<string, string>> =>
  Object.fromEntries(
    expectJson(await host.request("GET", `${api}/vcs-connections`), 200).items.map((c: any) => [c.externalAccountName, c.id])
  )
const groupIds = async (host: TestHost): Promise<Record<string, { id: string; phases: Record<string, string> }>> => {
  const groups = expectJson(await host.request("GET", `${api}/policy-groups?limit=100`), 200).items as Array<any>
  const out: Record<string, { id: string; phases: Record<string, string> }> = {}
  for (const g of groups) {
    const details = expectJson(await host.request("GET", `${api}/policy-groups/${g.id}/details`), 200)
    out[g.name] = { id: g.id, phases: Object.fromEntries(details.phases.map((p: any) => [p.name, p.id])) }
  }
  return out
}

// one memory store both hosts of the suite share, as a database would be
const memory = await Effect.runPromise(MemoryStore.make)
suite("memory", () => ({
  layer: () => Layer.succeedContext(memory),
  rawSettings: async () => {
    const { vcsConnections } = Context.get(memory, RepositoryStore)
    const ids = await Effect.runPromise(vcsConnections.list("org_acme" as Id.OrgId, { limit: 100 }))
    const rows = await Promise.all(ids.items.map((c) => Effect.runPromise(vcsConnections.settings("org_acme" as Id.OrgId, c.id))))
    return rows.flatMap((row) => Option.isSome(row) ? [JSON.stringify(row.value)] : [])
  }
}))

await pgDescribe("http-sync-sealed-token", (url) => {
  suite("postgres", () => ({
    layer: () => StoreConfig.migrated(PgClient.layerFromUrl(url, { maxConnections: 4 })),
    rawSettings: async () => {
      const client = new Pg.Client({ connectionString: url })
      await client.connect()
      try {
        const result = await client.query<{ settings: string | null }>("SELECT settings::text AS settings FROM vcs_connections")
        return result.rows.flatMap((r) => r.settings === null ? [] : [r.settings])
      } finally {
        await client.end()
      }
    }
  }))
})
