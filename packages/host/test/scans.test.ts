/**
 * Branch scans over HTTP, on the memory store and PostgreSQL (issue 7; spec 3: onboarding queues
 * one scan per tracked branch): the host's scan worker runs the onboarding scans of a repository
 * on the fixture provider, `GET /repositories?repositoryId=` follows each branch's scan status,
 * the findings route lists the references with the mapping that applies once one is published,
 * `POST .../scans` queues scans on demand (202) and dedupes against a pending one, a provider
 * failure and a branch over the limits fail the scan with a reason, and a later failure keeps
 * the findings of the last scan that succeeded.
 */
import { FixtureVcs } from "@image-policy/adapters"
import { Cursor, VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost, testSeed } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, onEveryStore, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const api = "/api/v1/org/org_acme"

const dockerfile = "ARG TAG=20\nFROM node:${TAG} AS build\nRUN npm ci\nFROM node:20-slim\nCOPY --from=build /app /app\n"
const compose = [
  "services:",
  "  cache:",
  "    image: \"redis:7\"   # pinned by policy",
  "  db:",
  "    image: postgres:16",
  ""
].join("\n")
const deployment = [
  "apiVersion: apps/v1",
  "kind: Deployment",
  "metadata:",
  "  name: api",
  "spec:",
  "  template:",
  "    spec:",
  "      initContainers:",
  "        - name: migrate",
  "          image: busybox:1.36",
  "      containers:",
  "        - name: api",
  "          image: nginx:1.25",
  ""
].join("\n")

/** The test seed with files on acme/api's branches (main: three scannable files and a README). */
const scanSeed = () => {
  const seed = structuredClone(testSeed) as any
  const repositories = seed.organizations[0].vcsConnections[0].fixture.repositories
  repositories[0].files = {
    main: {
      "Dockerfile": dockerfile,
      "docker-compose.yml": compose,
      "deploy/api.yaml": deployment,
      "README.md": "FROM node:18 is only an example here\n"
    },
    release: { "Dockerfile": "FROM node:18\n" }
  }
  repositories[1].files = { main: { "Dockerfile": "FROM python:3.12\n" } }
  return seed
}

/** A gate the wrapped provider waits on before listing acme/web's files. */
const gate = () => {
  let open: () => void = () => {}
  let promise = Promise.resolve()
  return {
    close: () => {
      promise = new Promise<void>((resolve) => {
        open = resolve
      })
    },
    open: () => open(),
    wait: () => promise
  }
}

await onEveryStore("scans", (storeName, makeStore) =>
  describe(`branch scans over HTTP (${storeName})`, () => {
    let host: TestHost
    let fixture: ReturnType<typeof FixtureVcs.make>
    const webGate = gate()
    /** While set, listing acme/web's files fails as if the provider were down. */
    let webUnavailable = false
    let apiId = ""
    let webId = ""

    beforeAll(async () => {
      fixture = FixtureVcs.make()
      host = await startTestHost({
        store: makeStore(),
        seed: scanSeed(),
        vcs: {
          // the fixture itself, with acme/web's listing held at a gate and failing on demand
          fixture: {
            ...fixture.provider,
            listFiles: (ctx, at) =>
              at.fullName !== "acme/web"
                ? fixture.provider.listFiles(ctx, at)
                : Effect.promise(() => webGate.wait()).pipe(
                  Effect.andThen(
                    Effect.suspend(() =>
                      webUnavailable ? Effect.fail(new VcsProviderError({ reason: "unavailable" })) : fixture.provider.listFiles(ctx, at)
                    )
                  )
                )
          }
        },
        scanWorker: { pollIntervalMs: 20 }
      })
    })
    afterAll(async () => {
      webGate.open()
      await host?.stop()
    })

    const onboard = async (externalRepoId: string, branchNames: ReadonlyArray<string>) =>
      expectJson(
        await host.request("POST", `${api}/repositories`, {
          body: {
            vcsConnectionId: host.org.vcsConnections["acme"],
            externalRepoId,
            assignedTeamId: host.org.teams["Platform"],
            assignedRoutineId: host.org.routines["Platform/Weekly"],
            branchNames
          }
        }),
        201
      )
    const statuses = async (repositoryId: string) => {
      const body = expectJson(await host.request("GET", `${api}/repositories?repositoryId=${repositoryId}`), 200)
      return Object.fromEntries(body.items[0].branches.map((b: any) => [b.branchName, b.scan.status])) as Record<string, string>
    }
    const settled = (repositoryId: string, expected: Record<string, string>) =>
      until(`scan statuses ${JSON.stringify(expected)}`, async () => {
        const now = await statuses(repositoryId)
        return JSON.stringify(now) === JSON.stringify(expected) && now
      })
    const scans = async (repositoryId: string, query = "") =>
      (await readAllPages(host, `${api}/repositories/${repositoryId}/scans${query}`)).items
    const findings = async (repositoryId: string, query = "") =>
      expectJson(await host.request("GET", `${api}/repositories/${repositoryId}/findings${query}`), 200)
    /** file:line reference -> image (toImage when a mapping applies) */
    const summary = (items: ReadonlyArray<any>) =>
      items.map((f) => `${f.file}:${f.line}:${f.column} ${f.reference}${f.resolution ? ` -> ${f.resolution.toImage}` : ""}`)

    describe("onboarding scans", () => {
      it("onboarding queues one scan per branch; the worker runs them and the repository shows them succeeded", async () => {
        const onboarded = await onboard("1001", ["main", "release", "develop"])
        apiId = onboarded.repository.id
        expect(onboarded.scans).toEqual([
          { branchName: "main", status: "queued" },
          { branchName: "release", status: "queued" },
          { branchName: "develop", status: "queued" }
        ])
        await settled(apiId, { main: "succeeded", release: "succeeded", develop: "succeeded" })
      })

      it("GET scans lists each branch's scan with its trigger, commit and counts; ?branch= filters", async () => {
        const all = await scans(apiId)
        expect(all).toHaveLength(3)
        const byBranch = Object.fromEntries(all.map((s: any) => [s.branchName, s]))
        for (const s of all) {
          expect(s).toMatchObject({
            id: expect.stringMatching(/^scan_[0-9a-z]+$/),
            repositoryId: apiId,
            trigger: "onboarding",
            status: "succeeded",
            failure: null,
            commitSha: expect.stringMatching(/^[0-9a-f]{40}$/)
          })
          expect(Date.parse(s.queuedAt)).toBeLessThanOrEqual(Date.parse(s.startedAt))
          expect(Date.parse(s.startedAt)).toBeLessThanOrEqual(Date.parse(s.finishedAt))
        }
        // main: Dockerfile, compose and the Deployment are read; the README is not a scannable file
        expect(byBranch["main"]).toMatchObject({ fileCount: 3, findingCount: 6 })
        expect(byBranch["release"]).toMatchObject({ fileCount: 1, findingCount: 1 })
        expect(byBranch["develop"]).toMatchObject({ fileCount: 0, findingCount: 0 })
        expect((await scans(apiId, "?branch=release")).map((s: any) => s.id)).toEqual([byBranch["release"].id])
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/scans?branch=feature`), 400, { paths: ["branch"] })
      })

      it("the findings route lists the default branch's references by file, line and column, none resolved yet", async () => {
        const main = await findings(apiId)
        const mainScan = (await scans(apiId, "?branch=main"))[0]
        expect(main.branchName).toBe("main")
        expect(main.scan).toEqual(mainScan)
        expect(main.nextCursor).toBeUndefined()
        expect(summary(main.items)).toEqual([
          "Dockerfile:2:6 node:${TAG}",
          "Dockerfile:4:6 node:20-slim",
          "deploy/api.yaml:10:18 busybox:1.36",
          "deploy/api.yaml:13:18 nginx:1.25",
          "docker-compose.yml:3:13 redis:7",
          "docker-compose.yml:5:12 postgres:16"
        ])
        expect(main.items[0]).toEqual({
          kind: "dockerfile",
          file: "Dockerfile",
          line: 2,
          column: 6,
          reference: "node:${TAG}",
          image: "node:20",
          normalized: "docker.io/library/node:20",
          stage: "build",
          resolution: null
        })
        expect(main.items[4]).toMatchObject({ kind: "compose", reference: "redis:7", normalized: "docker.io/library/redis:7" })
        const release = await findings(apiId, "?branch=release")
        expect(summary(release.items)).toEqual(["Dockerfile:1:6 node:18"])
        expect(await findings(apiId, "?branch=develop")).toMatchObject({ branchName: "develop", items: [] })
        // pages follow the same order
        const paged = await readAllPages(host, `${api}/repositories/${apiId}/findings`, { limit: 2 })
        expect(paged.pages).toBe(3)
        expect(paged.items).toEqual(main.items)
      })

      it("after a publish each finding shows the mapping that applies on its branch, and why; nothing is remediated", async () => {
        const group = host.org.policyGroups["Base images"]!
        expectJson(
          await host.request("POST", `${api}/repositories/${apiId}/policy-groups`, {
            body: { assignments: [{ policyGroupId: group.id, branchNames: ["main"] }] }
          }),
          200
        )
        const mappings = [
          { fromImage: "node:20", toImage: "node:20.11.1" },
          { fromImage: "redis:7", toImage: "redis:7.2.4" },
          { fromImage: "node:18", toImage: "node:18.19.0" }
        ]
        const created: Array<any> = []
        for (const body of mappings) {
          created.push(
            expectJson(
              await host.request("POST", `${api}/policy-groups/${group.id}/phases/${group.phases["Curated"]}/mappings`, { body }),
              201
            )
          )
        }
        expectJson(await host.request("POST", `${api}/policy-groups/${group.id}/publish`), 200)

        const main = await findings(apiId)
        expect(summary(main.items)).toEqual([
          "Dockerfile:2:6 node:${TAG} -> node:20.11.1",
          "Dockerfile:4:6 node:20-slim",
          "deploy/api.yaml:10:18 busybox:1.36",
          "deploy/api.yaml:13:18 nginx:1.25",
          "docker-compose.yml:3:13 redis:7 -> redis:7.2.4",
          "docker-compose.yml:5:12 postgres:16"
        ])
        const details = expectJson(await host.request("GET", `${api}/policy-groups/${group.id}/details`), 200)
        const published = (from: string) => details.publishedMappings.find((m: any) => m.fromImage === from)
        expect(main.items[0].resolution).toEqual({
          toImage: "node:20.11.1",
          policyGroupId: group.id,
          phaseId: group.phases["Curated"],
          mappingId: published("node:20").id,
          fromImage: "node:20",
          reason: expect.any(String)
        })
        expect(main.items[0].resolution.reason.length).toBeGreaterThan(0)
        expect(main.items[4].resolution).toMatchObject({ toImage: "redis:7.2.4", fromImage: "redis:7", mappingId: published("redis:7").id })
        // the same answer as /resolve gives for that image on that branch
        const resolved = expectJson(await host.request("GET", `${api}/repositories/${apiId}/resolve?image=redis:7&branch=main`), 200)
        expect(resolved.resolved).toMatchObject({
          toImage: main.items[4].resolution.toImage,
          mapping: { id: main.items[4].resolution.mappingId }
        })
        // the group is assigned to main only: release's node:18 has no mapping
        expect(summary((await findings(apiId, "?branch=release")).items)).toEqual(["Dockerfile:1:6 node:18"])
        // publish never opens a remediation request (spec 3)
        expect(expectJson(await host.request("GET", `${api}/repositories/${apiId}/remediation-requests`), 200)).toEqual({ items: [] })
        expect(fixture.remediations("acme/api")).toEqual([])
      })

      it("an untracked branch is a 400 naming branch; an unknown repository a 404; findings need repositories:read", async () => {
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/findings?branch=feature`), 400, { paths: ["branch"] })
        expectProblem(await host.request("GET", `${api}/repositories/repo_00000000000000000000000000/findings`), 404)
        expectProblem(await host.request("GET", `${api}/repositories/repo_00000000000000000000000000/scans`), 404)
        expectProblem(await host.request("GET", `${api}/repositories/repo_00000000000000000000000000/remediation-requests`), 404)
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/findings?limit=0`), 400, { paths: ["limit"] })
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/findings?cursor=nope`), 400, { paths: ["cursor"] })
        // well-formed cursors no client was given: a NUL is a 400; a position past every line pages on, never a 500
        const forged = (sortKey: string, id: string) => encodeURIComponent(Cursor.encodeCursor({ sortKey, id }))
        expectProblem(
          await host.request("GET", `${api}/repositories/${apiId}/findings?cursor=${forged("Dockerfile\u0000", "1:1:0")}`),
          400,
          { paths: ["cursor"] }
        )
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/scans?cursor=${forged("2026", "scan_\ud800")}`), 400, {
          paths: ["cursor"]
        })
        expect(
          expectJson(
            await host.request(
              "GET",
              `${api}/repositories/${apiId}/findings?cursor=${forged("Dockerfile", "9999999999:9999999999:9999999999")}`
            ),
            200
          ).items.length
        )
          .toBeLessThan(6)
        expect(expectJson(await host.request("GET", `${api}/repositories/${apiId}/findings`, { key: secrets.readOnly }), 200).items)
          .toHaveLength(6)
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/findings`, { key: secrets.draftsOnly }), 403)
        expectProblem(await host.request("GET", `${api}/repositories/${apiId}/remediation-requests`, { key: secrets.draftsOnly }), 403)
      })
    })

    describe("POST scans", () => {
      it("queues a manual scan of every tracked branch (202), which the worker runs", async () => {
        const before = await scans(apiId)
        const answer = await host.request("POST", `${api}/repositories/${apiId}/scans`, { body: {} })
        const body = expectJson(answer, 202)
        expect(body.scans.map((s: any) => [s.branchName, s.trigger, s.status])).toEqual([
          ["main", "manual", "queued"],
          ["release", "manual", "queued"],
          ["develop", "manual", "queued"]
        ])
        for (const s of body.scans) expect(before.map((b: any) => b.id)).not.toContain(s.id)
        await until("the manual scans", async () => {
          const list = await scans(apiId)
          return list.filter((s: any) => s.trigger === "manual" && s.status === "succeeded").length === 3
        })
        const list = await scans(apiId)
        // newest first
        expect(list.slice(0, 3).map((s: any) => s.trigger)).toEqual(["manual", "manual", "manual"])
        expect((await findings(apiId)).scan.trigger).toBe("manual")
        const rows = (await auditRows(host)).filter((r) => r.action === "repository.scan")
        expect(rows[0]).toMatchObject({ resourceType: "repository", resourceId: apiId, outcome: "success" })
      })

      it("without a body, or with branchNames, queues those branches", async () => {
        const all = await host.request("POST", `${api}/repositories/${apiId}/scans`)
        expect(expectJson(all, 202).scans.map((s: any) => s.branchName)).toEqual(["main", "release", "develop"])
        const some = expectJson(
          await host.request("POST", `${api}/repositories/${apiId}/scans`, { body: { branchNames: ["release"] } }),
          202
        )
        expect(some.scans.map((s: any) => s.branchName)).toEqual(["release"])
        await until("every scan finished", async () => (await scans(apiId)).every((s: any) => s.status === "succeeded"))
      })

      it("an untracked branch is a 400 naming branchNames[i]; unknown fields, empty lists and bad bodies too; nothing is queued", async () => {
        const count = (await scans(apiId)).length
        const post = (body: unknown, key?: string) =>
          host.request("POST", `${api}/repositories/${apiId}/scans`, { body, ...(key !== undefined ? { key } : {}) })
        expectProblem(await post({ branchNames: ["main", "feature"] }), 400, { paths: ["branchNames[1]"] })
        expectProblem(await post({ branchNames: [] }), 400, { paths: ["branchNames"] })
        expectProblem(await post({ branchNames: ["main", 3] }), 400, { paths: ["branchNames[1]"] })
        expectProblem(await post({ branch: "main" }), 400, { paths: ["branch"] })
        expectProblem(await post([]), 400)
        expectProblem(
          await host.request("POST", `${api}/repositories/${apiId}/scans`, { raw: "{", headers: { "content-type": "application/json" } }),
          400,
          {
            type: "/problems/malformed-json"
          }
        )
        expectProblem(await host.request("POST", `${api}/repositories/repo_00000000000000000000000000/scans`, { body: {} }), 404)
        expectProblem(await post({}, secrets.readOnly), 403)
        expectProblem(await post({}, secrets.draftsOnly), 403)
        // Policy Automation may request scans
        expectJson(await post({ branchNames: ["develop"] }, secrets.automation), 202)
        await until("the automation's scan", async () => (await scans(apiId)).every((s: any) => s.status === "succeeded"))
        expect((await scans(apiId)).length).toBe(count + 1)
        const rejected = (await auditRows(host)).filter((r) => r.action === "requestScans")
        expect(rejected[0]).toMatchObject({ outcome: "rejected", resourceType: "repository" })
      })
    })

    describe("a scan that is pending, that fails, that fails later", () => {
      it("a branch with a scan queued or running gets no second one: POST answers the pending scan", async () => {
        webGate.close()
        const onboarded = await onboard("1002", ["main"])
        webId = onboarded.repository.id
        await settled(webId, { main: "running" })
        const first = expectJson(await host.request("POST", `${api}/repositories/${webId}/scans`), 202)
        expect(first.scans).toEqual([expect.objectContaining({ branchName: "main", trigger: "onboarding", status: "running" })])
        const again = expectJson(await host.request("POST", `${api}/repositories/${webId}/scans`, { body: { branchNames: ["main"] } }), 202)
        expect(again.scans.map((s: any) => s.id)).toEqual(first.scans.map((s: any) => s.id))
        expect(await scans(webId)).toHaveLength(1)
        expect(await findings(webId)).toEqual({ branchName: "main", scan: null, items: [] })
      })

      it("a provider that cannot answer fails the scan with a reason; the repository shows it failed", async () => {
        webUnavailable = true
        webGate.open()
        await settled(webId, { main: "failed" })
        const [failed] = await scans(webId)
        expect(failed).toMatchObject({
          trigger: "onboarding",
          status: "failed",
          failure: "provider-unavailable",
          commitSha: null,
          fileCount: 0,
          findingCount: 0,
          finishedAt: expect.any(String)
        })
        expect(await findings(webId)).toEqual({ branchName: "main", scan: null, items: [] })
      })

      it("a later failure keeps the findings of the last scan that succeeded", async () => {
        webUnavailable = false
        expectJson(await host.request("POST", `${api}/repositories/${webId}/scans`), 202)
        await settled(webId, { main: "succeeded" })
        const succeeded = await findings(webId)
        expect(summary(succeeded.items)).toEqual(["Dockerfile:1:6 python:3.12"])
        webUnavailable = true
        expectJson(await host.request("POST", `${api}/repositories/${webId}/scans`), 202)
        await settled(webId, { main: "failed" })
        const after = await findings(webId)
        expect(after).toEqual(succeeded)
        expect((await scans(webId)).map((s: any) => s.status)).toEqual(["failed", "succeeded", "failed"])
      })

      it("a branch with more scannable files than the limit fails with too-large", async () => {
        const at = { orgId: "org_acme", vcsConnectionId: host.org.vcsConnections["acme"]!, fullName: "acme/policy", branch: "main" }
        for (let i = 0; i <= 5_000; i++) fixture.files.setFile({ ...at, path: `services/s${i}/Dockerfile` }, "FROM alpine:3.19\n")
        const onboarded = await onboard("1003", ["main"])
        await settled(onboarded.repository.id, { main: "failed" })
        expect((await scans(onboarded.repository.id))[0]).toMatchObject({ status: "failed", failure: "too-large", fileCount: 0 })
      })
    })
  }))
