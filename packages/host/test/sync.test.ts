/**
 * External phases follow their mappings files, over HTTP, on the memory store and on PostgreSQL
 * (spec 2 "External mappings file", 3 "external phase" row; contracts 5, 6): files added, changed
 * and removed across versions through the fixture provider, wildcards, cooldown, invalid and
 * missing files, idempotent re-syncs (no new events), racing syncs, the provider push webhooks
 * (signatures good, bad, missing, replayed, stale; other branches and files). The poll worker is in
 * sync.pollWorker.test.ts (its per-phase intervals with a TestClock in syncWorker.test.ts), the
 * stubbed GitHub and GitLab APIs read end to end in sync.github.test.ts and sync.gitlab.test.ts.
 */
import { FixtureVcs } from "@image-policy/adapters"
import { createHmac, randomUUID } from "node:crypto"
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, onEveryStore, readAllPages } from "./support/suites.js"
import { api, file, githubPush, githubSecret, gitlabSecret, pushGithubTo, sign, syncSeed } from "./support/sync.js"

await onEveryStore("sync", (storeName, makeStore) =>
  describe(`external phase sync over HTTP (${storeName})`, () => {
    let host: TestHost
    let fixture: ReturnType<typeof FixtureVcs.make>
    let hookId: string
    let repositoryId: string

    beforeAll(async () => {
      fixture = FixtureVcs.make()
      host = await startTestHost({
        store: makeStore(),
        seed: syncSeed(),
        vcs: { fixture: fixture.provider },
        services: { allowUnsafeWebhookTargets: true },
        deliveryWorker: false
      })
      // an organization-scoped destination: its deliveries list every event the syncs emit
      const hook = await host.request("POST", `${api}/webhooks`, {
        body: {
          name: "policy events",
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
      const onboarded = await host.request("POST", `${api}/repositories`, {
        body: {
          vcsConnectionId: host.org.vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: host.org.teams["Platform"],
          assignedRoutineId: host.org.routines["Platform/Weekly"],
          branchNames: ["main"]
        }
      })
      repositoryId = expectJson(onboarded, 201).repository.id
      const assigned = await host.request("POST", `${api}/repositories/${repositoryId}/policy-groups`, {
        body: {
          assignments: ["Base images", "Delayed"].map((name) => ({ policyGroupId: host.org.policyGroups[name]!.id, branchNames: ["main"] }))
        }
      })
      expectJson(assigned, 200)
    })
    afterAll(() => host?.stop())

    const group = (name = "Base images") => host.org.policyGroups[name]!
    const phaseOf = (name: string, phase: string) => group(name).phases[phase]!
    const fromRepo = () => phaseOf("Base images", "From repo")
    const setFile = (content: string | null, at: { connection?: string; fullName?: string; path?: string } = {}) =>
      fixture.files.setFile({
        orgId: "org_acme",
        vcsConnectionId: host.org.vcsConnections[at.connection ?? "acme"]!,
        fullName: at.fullName ?? "acme/policy",
        branch: "main",
        path: at.path ?? "service-mappings.json"
      }, content)
    const sync = (groupName = "Base images", phase = "From repo", key?: string) =>
      host.request(
        "POST",
        `${api}/policy-groups/${group(groupName).id}/phases/${phaseOf(groupName, phase)}/sync`,
        key !== undefined ? { key } : {}
      )
    const details = async (groupName = "Base images") =>
      expectJson(await host.request("GET", `${api}/policy-groups/${group(groupName).id}/details`), 200)
    const externalOf = async (groupName = "Base images", phase = "From repo") =>
      (await details(groupName)).phases.find((p: any) => p.id === phaseOf(groupName, phase)).external
    const publishedOf = async (groupName = "Base images", phase = "From repo") =>
      (await details(groupName)).publishedMappings.filter((m: any) => m.phaseId === phaseOf(groupName, phase))
    const eventTypes = async () =>
      (await readAllPages(host, `${api}/webhooks/${hookId}/deliveries`, { limit: 200 })).items.map((d: any) => d.type as string)
    const count = (types: ReadonlyArray<string>, type: string) => types.filter((t) => t === type).length
    const resolve = async (image: string) =>
      expectJson(
        await host.request("GET", `${api}/repositories/${repositoryId}/resolve?image=${encodeURIComponent(image)}&branch=main`),
        200
      )
    const pushGithub = (body: unknown, headers: Record<string, string | undefined> = {}, connectionId = host.org.vcsConnections["acme"]!) =>
      pushGithubTo(host, body, headers, connectionId)

    describe("POST .../phases/{phaseId}/sync", () => {
      it("a first file version becomes the phase's published mappings, wildcards included, with events", async () => {
        const eventsBefore = await eventTypes()
        setFile(file(
          { fromImage: "node:20", toImage: "node:20.11.1", reason: "LTS pin" },
          { fromImage: "node:20", toImage: "node:20.11.1-arm", platformScope: "linux/arm64" },
          { fromImage: "redis:*", toImage: "redis:7.2.4", order: 10 }
        ))
        const answer = expectJson(await sync(), 200)
        expect(answer).toEqual({
          phaseId: fromRepo(),
          version: expect.stringMatching(/^[0-9a-f]{40}$/),
          changed: true,
          created: 3,
          updated: 0,
          removed: 0
        })
        const published = await publishedOf()
        expect(published.map((m: any) => `${m.fromImage} ${m.platformScope ?? "(any)"}`).sort()).toEqual([
          "node:20 (any)",
          "node:20 linux/arm64",
          "redis:* (any)"
        ])
        // no cooldown on this group or its organization: active at once
        for (const m of published) expect(Date.parse(m.activeFrom)).toBeLessThanOrEqual(Date.now())
        const external = await externalOf()
        expect(external.lastError).toBeNull()
        expect(Date.now() - Date.parse(external.lastSyncedAt)).toBeLessThan(60_000)
        expect(external).not.toHaveProperty("lastVersion")

        expect((await resolve("redis:7.0")).resolved).toMatchObject({ toImage: "redis:7.2.4", phaseId: fromRepo() })
        expect((await resolve("node:20")).resolved).toMatchObject({ toImage: "node:20.11.1" })

        const events = (await eventTypes()).slice(eventsBefore.length)
        expect(count(events, "service.policy_mapping.created")).toBe(3)
        expect(count(events, "service.policy_group.updated")).toBe(1)
        expect(events).toHaveLength(4)
        const rows = (await auditRows(host)).filter((r) => r.action === "policy_group.sync")
        expect(rows[0]).toMatchObject({ resourceType: "phase", resourceId: fromRepo(), outcome: "success" })
      })

      it("the same file version synced again changes nothing and emits nothing", async () => {
        const before = await details()
        const events = await eventTypes()
        const audit = await auditRows(host)
        const answer = expectJson(await sync(), 200)
        expect(answer).toMatchObject({ changed: false, created: 0, updated: 0, removed: 0 })
        expect(answer.error).toBeUndefined()
        expect(await details()).toEqual(before)
        expect(await eventTypes()).toEqual(events)
        expect((await auditRows(host)).length).toBe(audit.length)
      })

      it("a later version adds, changes and removes: the file is the complete source", async () => {
        const [kept] = (await publishedOf()).filter((m: any) => m.fromImage === "node:20" && m.platformScope === undefined)
        const eventsBefore = await eventTypes()
        setFile(file(
          { fromImage: "node:20", toImage: "node:20.12.0", reason: "LTS pin" },
          { fromImage: "redis:*", toImage: "redis:7.2.4", order: 10 },
          { fromImage: "ghcr.io/acme/base:*", toImage: "ghcr.io/acme/base:2026.02" }
        ))
        const answer = expectJson(await sync(), 200)
        expect(answer).toMatchObject({ changed: true, created: 1, updated: 1, removed: 1 })
        const published = await publishedOf()
        expect(published.map((m: any) => m.fromImage).sort()).toEqual(["ghcr.io/acme/base:*", "node:20", "redis:*"])
        const changed = published.find((m: any) => m.fromImage === "node:20")
        expect(changed).toMatchObject({ id: kept.id, createdAt: kept.createdAt, toImage: "node:20.12.0" })
        expect((await resolve("node:20")).resolved).toMatchObject({ toImage: "node:20.12.0" })
        expect((await resolve("ghcr.io/acme/base:2025.12")).resolved).toMatchObject({ toImage: "ghcr.io/acme/base:2026.02" })
        expect((await resolve("node:20")).considered.some((c: any) => c.mapping?.platformScope === "linux/arm64")).toBe(false)
        const events = (await eventTypes()).slice(eventsBefore.length)
        expect([...events].sort()).toEqual([
          "service.policy_group.updated",
          "service.policy_mapping.created",
          "service.policy_mapping.removed",
          "service.policy_mapping.updated"
        ])
      })

      it("an invalid file changes no mapping, shows lastError with its JSON paths and tells subscribers once", async () => {
        const before = await publishedOf()
        const eventsBefore = await eventTypes()
        setFile(
          file({ fromImage: "node:20", toImage: "node:*" }, { fromImage: "a:1", toImage: "a:2" }, {
            fromImage: "docker.io/library/a:1",
            toImage: "a:3"
          })
        )
        const answer = expectJson(await sync(), 200)
        expect(answer).toMatchObject({ phaseId: fromRepo(), changed: false, created: 0, updated: 0, removed: 0 })
        expect(answer.error).toMatch(/^service-mappings\.json is not valid and was not applied: /)
        expect(answer.error).toContain("mappings[0].toImage")
        expect(answer.error).toContain("mappings[2]: duplicates mappings[1]")
        expect(await publishedOf()).toEqual(before)
        expect((await resolve("node:20")).resolved).toMatchObject({ toImage: "node:20.12.0" })
        const external = await externalOf()
        expect(external.lastError).toBe(answer.error)
        expect(external.lastSyncedAt).not.toBeNull()
        expect((await eventTypes()).slice(eventsBefore.length)).toEqual(["service.policy_group.updated"])

        // the same invalid version again: nothing new
        const again = expectJson(await sync(), 200)
        expect(again).toMatchObject({ changed: false, error: answer.error })
        expect((await eventTypes()).length).toBe(eventsBefore.length + 1)

        // an unknown field, then not JSON at all
        setFile(file({ fromImage: "node:20", toImage: "node:20.12.0", fromimage: "x" }))
        expect(expectJson(await sync(), 200).error).toContain("mappings[0].fromimage: is unexpected")
        setFile("{ not json")
        expect(expectJson(await sync(), 200).error).toMatch(/\(root\): not valid JSON/)
        expect(await publishedOf()).toEqual(before)

        // text no store can hold (a NUL, a lone surrogate) is a problem of the file, never a 5xx
        setFile(
          file({ fromImage: "node:20", toImage: "node:20.12.0", reason: "pinned\u0000" }, {
            fromImage: "a:1",
            toImage: "a:2",
            mappingContext: "x\uD800"
          })
        )
        const unstorable = expectJson(await sync(), 200)
        expect(unstorable.error).toContain("mappings[0].reason")
        expect(unstorable.error).toContain("mappings[1].mappingContext")
        expect(await publishedOf()).toEqual(before)
      })

      it("a missing file keeps the published mappings; its return with the old content applies again and clears the error", async () => {
        const before = await publishedOf()
        setFile(null)
        const missing = expectJson(await sync(), 200)
        expect(missing).toMatchObject({ version: null, changed: false })
        expect(missing.error).toBe("service-mappings.json was not found on the branch; the published mappings were kept")
        expect(await publishedOf()).toEqual(before)
        expect((await externalOf()).lastError).toBe(missing.error)

        setFile(file(
          { fromImage: "node:20", toImage: "node:20.12.0", reason: "LTS pin" },
          { fromImage: "redis:*", toImage: "redis:7.2.4", order: 10 },
          { fromImage: "ghcr.io/acme/base:*", toImage: "ghcr.io/acme/base:2026.02" }
        ))
        const back = expectJson(await sync(), 200)
        expect(back).toMatchObject({ changed: false, created: 0, updated: 0, removed: 0 })
        expect(back.error).toBeUndefined()
        expect((await externalOf()).lastError).toBeNull()
        expect(await publishedOf()).toEqual(before)
      })

      it("cooldown delays activation: details show activeFrom in the future and resolve ignores the mapping until then", async () => {
        setFile(
          file(
            { fromImage: "busybox:1", toImage: "busybox:1.36.1" },
            { fromImage: "alpine:3.19", toImage: "alpine:3.20", bypassCooldown: true },
            { fromImage: "debian:12", toImage: "debian:12.5", bypassCooldown: true, applicableDateTime: "2999-01-01T00:00:00Z" }
          ),
          { path: "delayed/mappings.json" }
        )
        const started = Date.now()
        expect(expectJson(await sync("Delayed", "Delayed file"), 200)).toMatchObject({ changed: true, created: 3 })
        const published = await publishedOf("Delayed", "Delayed file")
        const activeFrom = (image: string) => Date.parse(published.find((m: any) => m.fromImage === image).activeFrom)
        // the group's cooldown (3600 s) applies
        expect(activeFrom("busybox:1") - started).toBeGreaterThan(3_500_000)
        expect(activeFrom("busybox:1") - started).toBeLessThan(3_700_000)
        // bypassCooldown skips it, an explicit applicableDateTime still holds
        expect(activeFrom("alpine:3.19")).toBeLessThanOrEqual(Date.now())
        expect(activeFrom("debian:12")).toBe(Date.parse("2999-01-01T00:00:00Z"))

        const busybox = await resolve("busybox:1")
        expect(busybox.resolved).toBeNull()
        expect(busybox.considered.map((c: any) => c.reason).join(" ")).toMatch(/not yet active/)
        expect((await resolve("alpine:3.19")).resolved).toMatchObject({ toImage: "alpine:3.20" })
        expect((await resolve("debian:12")).resolved).toBeNull()
      })

      it("two syncs of one new version at once apply it once: one answers changed, the events are emitted once", async () => {
        setFile(file({ fromImage: "busybox:1", toImage: "busybox:1.36.1" }, { fromImage: "python:3.12", toImage: "python:3.12.2" }), {
          path: "delayed/mappings.json"
        })
        const eventsBefore = await eventTypes()
        const answers = await Promise.all([
          sync("Delayed", "Delayed file"),
          sync("Delayed", "Delayed file"),
          sync("Delayed", "Delayed file")
        ])
        const bodies = answers.map((a) => expectJson(a, 200))
        expect(bodies.filter((b) => b.changed)).toHaveLength(1)
        expect(new Set(bodies.map((b) => b.version)).size).toBe(1)
        const events = (await eventTypes()).slice(eventsBefore.length)
        expect(count(events, "service.policy_mapping.created")).toBe(1)
        expect(count(events, "service.policy_mapping.removed")).toBe(2)
        expect(count(events, "service.policy_group.updated")).toBe(1)
      })

      it("an internal phase answers 409, an unknown phase 404, a key without policy:publish 403; nothing changes", async () => {
        expectProblem(await sync("Base images", "Curated"), 409, { type: "/problems/phase-not-external" })
        expectProblem(await host.request("POST", `${api}/policy-groups/${group().id}/phases/ph_unknown/sync`), 404)
        expectProblem(await host.request("POST", `${api}/policy-groups/pg_unknown/phases/${fromRepo()}/sync`), 404)
        expectProblem(await sync("Base images", "From repo", secrets.draftsOnly), 403)
        const globex = host.ids[1]!.policyGroups["Globex images"]!
        expectProblem(await host.request("POST", `${api}/policy-groups/${globex.id}/phases/${globex.phases["Main"]}/sync`), 404)
      })
    })

    describe("provider push webhooks", () => {
      it("a signed GitHub push that changes the phase's file syncs it (202, no API key)", async () => {
        setFile(file({ fromImage: "node:20", toImage: "node:20.13.0" }))
        const answer = await pushGithub(githubPush())
        const body = expectJson(answer, 202)
        expect(body.synced).toEqual([
          { phaseId: fromRepo(), version: expect.any(String), changed: true, created: 0, updated: 1, removed: 2 }
        ])
        expect((await publishedOf()).map((m: any) => m.toImage)).toEqual(["node:20.13.0"])
        expect(answer.text).not.toContain(githubSecret)
        const rows = (await auditRows(host)).filter((r) => r.action === "policy_group.sync")
        expect(rows[0]).toMatchObject({ actor: { kind: "system", name: "github-push" }, resourceId: fromRepo() })
      })

      it("a bad, missing or foreign signature is a 401 problem and changes nothing", async () => {
        setFile(file({ fromImage: "node:20", toImage: "node:20.14.0" }))
        const before = await details()
        const push = githubPush()
        for (
          const headers of [
            { "x-hub-signature-256": sign("another-secret-0123456789abcdef", JSON.stringify(push)) },
            { "x-hub-signature-256": undefined },
            { "x-hub-signature-256": "sha256=" + "0".repeat(64) },
            { "x-hub-signature-256": "sha1=abc" },
            { "x-hub-signature-256": sign(githubSecret, JSON.stringify(push) + " ") }
          ]
        ) {
          const answer = await pushGithub(push, headers)
          expectProblem(answer, 401, { type: "/problems/push-not-authenticated" })
          expect(answer.text).not.toContain(githubSecret)
        }
        // an unknown connection, and a GitHub delivery sent to another organization's GitLab connection, read the same
        expectProblem(await pushGithub(push, {}, "vcs_00000000000000000000000000"), 401, { type: "/problems/push-not-authenticated" })
        expectProblem(await pushGithub(push, {}, host.ids[1]!.vcsConnections["globex"]!), 401, { type: "/problems/push-not-authenticated" })
        // a connection without a webhook secret accepts nothing
        expectProblem(await pushGithub(push, {}, host.org.vcsConnections["acme-enterprise"]!), 401, {
          type: "/problems/push-not-authenticated"
        })
        expect(await details()).toEqual(before)
      })

      it("a replayed delivery id or a stale push is refused (401); a GitHub delivery without an id too", async () => {
        const delivery = randomUUID()
        setFile(file({ fromImage: "node:20", toImage: "node:20.14.0" }))
        expectJson(await pushGithub(githubPush(), { "x-github-delivery": delivery }), 202)
        setFile(file({ fromImage: "node:20", toImage: "node:20.15.0" }))
        expectProblem(await pushGithub(githubPush(), { "x-github-delivery": delivery }), 401, { type: "/problems/push-replayed" })
        expectProblem(await pushGithub(githubPush(), { "x-github-delivery": undefined }), 401, { type: "/problems/push-replayed" })
        const stale = githubPush({ pushedAt: Math.floor(Date.now() / 1000) - 10 * 60 })
        expectProblem(await pushGithub(stale), 401, { type: "/problems/push-stale" })
        expect((await publishedOf()).map((m: any) => m.toImage)).toEqual(["node:20.14.0"])
      })

      it("a push to another branch, another repository or other files does nothing (202, synced: [])", async () => {
        const before = await details()
        const events = await eventTypes()
        for (
          const push of [
            githubPush({ ref: "refs/heads/develop" }),
            githubPush({ ref: "refs/tags/main" }),
            githubPush({ repository: "acme/api" }),
            githubPush({ paths: ["README.md", "other/service-mappings.json"] })
          ]
        ) {
          expect(expectJson(await pushGithub(push), 202)).toEqual({ synced: [], merged: [] })
        }
        // a ping (sent when the webhook is created) is acknowledged too
        expect(expectJson(await pushGithub({ zen: "Keep it logically awesome.", hook_id: 1 }, { "x-github-event": "ping" }), 202)).toEqual({
          synced: [],
          merged: []
        })
        expect(await details()).toEqual(before)
        expect(await eventTypes()).toEqual(events)
      })

      it("a push whose file list may be incomplete syncs every phase of the branch; unchanged ones change nothing", async () => {
        const push = { ...githubPush(), forced: true }
        const body = expectJson(await pushGithub(push), 202)
        expect(body.synced.map((s: any) => s.phaseId).sort()).toEqual([fromRepo(), phaseOf("Delayed", "Delayed file")].sort())
        expect(body.synced.find((s: any) => s.phaseId === fromRepo())).toMatchObject({ changed: true, updated: 1 })
        expect(body.synced.find((s: any) => s.phaseId === phaseOf("Delayed", "Delayed file"))).toMatchObject({ changed: false })
      })

      it("a malformed push event is a 400 problem after the signature check; a body over 1 MiB a 413", async () => {
        const raw = "{ not json"
        const answer = await host.request("POST", `/api/v1/vcs-events/github/${host.org.vcsConnections["acme"]}`, {
          key: null,
          raw,
          headers: {
            "content-type": "application/json",
            "x-github-event": "push",
            "x-github-delivery": randomUUID(),
            "x-hub-signature-256": sign(githubSecret, raw)
          }
        })
        expectProblem(answer, 400, { type: "/problems/malformed-json" })
        // the signature covers the exact bytes, also bytes that are not UTF-8 (no round trip through text)
        const bytes = Buffer.concat([Buffer.from("{\"ref\":\""), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from("\"}")])
        const notUtf8 = await fetch(`http://127.0.0.1:${host.port}/api/v1/vcs-events/github/${host.org.vcsConnections["acme"]}`, {
          method: "POST",
          body: bytes,
          headers: {
            "content-type": "application/json",
            "x-github-event": "push",
            "x-github-delivery": randomUUID(),
            "x-hub-signature-256": `sha256=${createHmac("sha256", githubSecret).update(bytes).digest("hex")}`
          }
        })
        expect(notUtf8.status, await notUtf8.text()).toBe(400)
        // the same bytes sent chunked (no content-length, as a proxy may re-send them)
        const chunked = await new Promise<number>((resolve, reject) => {
          const sent = httpRequest({
            host: "127.0.0.1",
            port: host.port,
            method: "POST",
            path: `/api/v1/vcs-events/github/${host.org.vcsConnections["acme"]}`,
            headers: {
              "content-type": "application/json",
              "x-github-event": "push",
              "x-github-delivery": randomUUID(),
              "x-hub-signature-256": `sha256=${createHmac("sha256", githubSecret).update(bytes).digest("hex")}`
            }
          }, (answer) => {
            answer.resume()
            answer.on("end", () => resolve(answer.statusCode ?? 0))
          })
          sent.on("error", reject)
          sent.write(bytes.subarray(0, 4))
          sent.end(bytes.subarray(4))
        })
        expect(chunked).toBe(400)
        expectProblem(await pushGithub({ ref: 3 }), 400, { type: "/problems/validation-error", paths: ["ref", "repository"] })
        expectProblem(await pushGithub({ ...githubPush(), padding: "x".repeat(1024 * 1024) }), 413)
      })

      it("GitLab: X-Gitlab-Token must equal the connection's secret; a push of the file syncs it", async () => {
        const lab = host.org.vcsConnections["acme-lab"]!
        setFile(file({ fromImage: "postgres:16", toImage: "postgres:16.2" }), { connection: "acme-lab", fullName: "acme/lab-policy" })
        const push = {
          object_kind: "push",
          ref: "refs/heads/main",
          before: "1".repeat(40),
          after: "2".repeat(40),
          project: { path_with_namespace: "acme/lab-policy" },
          total_commits_count: 1,
          commits: [{ id: "2".repeat(40), added: ["service-mappings.json"], modified: [], removed: [] }]
        }
        const send = (token: string | undefined, uuid = randomUUID(), body: unknown = push) =>
          host.request("POST", `/api/v1/vcs-events/gitlab/${lab}`, {
            key: null,
            body,
            headers: {
              "x-gitlab-event": "Push Hook",
              "x-gitlab-event-uuid": uuid,
              ...(token !== undefined ? { "x-gitlab-token": token } : {})
            }
          })
        expectProblem(await send(undefined), 401, { type: "/problems/push-not-authenticated" })
        expectProblem(await send("wrong-token"), 401, { type: "/problems/push-not-authenticated" })
        expectProblem(await send(gitlabSecret + "x"), 401, { type: "/problems/push-not-authenticated" })
        // a GitLab delivery to a GitHub connection
        expectProblem(
          await host.request("POST", `/api/v1/vcs-events/gitlab/${host.org.vcsConnections["acme"]}`, {
            key: null,
            body: push,
            headers: { "x-gitlab-event": "Push Hook", "x-gitlab-token": githubSecret }
          }),
          401
        )
        const uuid = randomUUID()
        const ok = expectJson(await send(gitlabSecret, uuid), 202)
        expect(ok.synced).toEqual([{
          phaseId: phaseOf("Lab", "Lab file"),
          version: expect.any(String),
          changed: true,
          created: 1,
          updated: 0,
          removed: 0
        }])
        expect((await publishedOf("Lab", "Lab file")).map((m: any) => m.toImage)).toEqual(["postgres:16.2"])
        expectProblem(await send(gitlabSecret, uuid), 401, { type: "/problems/push-replayed" })
        expect(expectJson(await send(gitlabSecret, randomUUID(), { ...push, ref: "refs/heads/feature" }), 202)).toEqual({
          synced: [],
          merged: []
        })
      })
    })
  }))
