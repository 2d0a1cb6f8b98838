/**
 * Routine scans and remediation requests end to end over HTTP, on the memory store and PostgreSQL
 * (issue 7; spec 3: never on publish; spec 6: the remediation family). A real host with its scan,
 * routine and delivery workers runs on a clock the test moves ahead (support/clock.ts), so a
 * weekly routine comes due without waiting. A repository on the fixture provider is onboarded and
 * scanned, mappings are published (nothing is opened), then each routine run is checked from the
 * outside: the requests route, the files the fixture received (only the references rewritten,
 * every other byte kept), the webhook events a team-scoped destination receives, the audit trail;
 * an approved snooze suppresses its change until it expires, a pending one does not, a mapping in
 * cooldown is left alone until it is active, a second run updates the open request instead of
 * opening another, failing writes record `failed` requests with their `failure_kind`, and a
 * closed request is superseded by a new one.
 */
import { FixtureVcs } from "@image-policy/adapters"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Receiver from "../../adapters/test/support/receiver.js"
import { dayMs, shiftedClock } from "./support/clock.js"
import { startTestHost, type TestHost, testSeed } from "./support/harness.js"
import { auditRows, expectJson, onEveryStore, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const api = "/api/v1/org/org_acme"

// CRLF line endings, a comment and a syntax directive: all of it must survive the rewrite
const dockerfile =
  "# syntax=docker/dockerfile:1\r\nFROM node:20 AS build\r\nRUN npm ci\r\nFROM gcr.io/distroless/nodejs20-debian12\r\nCOPY --from=build /app /app\r\n"
// built from an ARG: resolved for the findings route, never rewritten
const toolsDockerfile = "ARG BASE=node:20\nFROM ${BASE}\n"
const compose = [
  "services:",
  "  cache:",
  "    image: \"redis:7\"   # keep: quotes and this comment",
  "  queue:",
  "    image: rabbitmq:3.12",
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
  "          image: 'nginx:1.25'",
  ""
].join("\n")

const delayedPath = "delayed/mappings.json"

/** The test seed, acme/api with files on main and release, and a group whose file mappings wait 20 days. */
const remediationSeed = () => {
  const seed = structuredClone(testSeed) as any
  const acme = seed.organizations[0]
  acme.vcsConnections[0].fixture.repositories[0].files = {
    main: { "Dockerfile": dockerfile, "Dockerfile.tools": toolsDockerfile, "docker-compose.yml": compose, "deploy/api.yaml": deployment },
    release: { "Dockerfile": "FROM node:20\n" }
  }
  acme.policyGroups.push({
    name: "Delayed",
    cooldownSeconds: 20 * 86_400,
    phases: [
      {
        name: "Delayed file",
        source: "external",
        file: { connection: "acme", repository: "acme/policy", branch: "main", path: delayedPath }
      }
    ]
  })
  return seed
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

await onEveryStore("remediation", (storeName, makeStore) =>
  describe(`routine remediation over HTTP (${storeName})`, () => {
    const time = shiftedClock()
    let host: TestHost
    let fixture: ReturnType<typeof FixtureVcs.make>
    let receiver: Receiver.Receiver
    let repositoryId = ""

    beforeAll(async () => {
      fixture = FixtureVcs.make()
      // plain: the host's clock runs days ahead, so its signatures carry timestamps a verifying
      // receiver would refuse as stale; signing is covered by webhooks.test.ts
      receiver = await Receiver.start({ mode: "plain" })
      host = await startTestHost({
        store: makeStore(),
        seed: remediationSeed(),
        vcs: { fixture: fixture.provider },
        services: { allowUnsafeWebhookTargets: true },
        deliveryWorker: { pollIntervalMs: 20, timeoutMs: 2_000 },
        scanWorker: { pollIntervalMs: 20 },
        routineWorker: { intervalMs: 50 },
        clock: time.clock
      })
    })
    afterAll(async () => {
      await host?.stop()
      await receiver?.close()
    })

    const group = (name: string) => host.org.policyGroups[name]!
    const requests = async () => (await readAllPages(host, `${api}/repositories/${repositoryId}/remediation-requests`)).items
    const ofBranch = async (branch: string) => (await requests()).filter((r: any) => r.branchName === branch)
    const scans = async () => (await readAllPages(host, `${api}/repositories/${repositoryId}/scans`)).items
    /** Events the team's destination received: type and data, in the order they arrived. */
    const events = (path = "/platform") =>
      receiver.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.rawBody)).map((e) => ({
        type: e.type as string,
        data: e.data
      }))
    const fixtureRequest = (head: string) => {
      const found = fixture.remediations("acme/api").filter((r) => r.head === head)
      expect(found.filter((r) => r.state === "open").length, `open requests of ${head}`).toBeLessThanOrEqual(1)
      return found.find((r) => r.state === "open")
    }
    const fileOf = (request: { readonly files: ReadonlyArray<{ path: string; content: string }> } | undefined, path: string) =>
      request?.files.find((f) => f.path === path)?.content
    /** Moves the host's time on by `days` and a minute: the weekly routine is due again. */
    const advance = (days: number) => time.advance(days * dayMs + 60_000)
    const publish = async (name: string, mappings: ReadonlyArray<Record<string, unknown>>) => {
      const g = group(name)
      for (const body of mappings) {
        const answer = await host.request("POST", `${api}/policy-groups/${g.id}/phases/${g.phases["Curated"]}/mappings`, { body })
        expect([200, 201], answer.text).toContain(answer.status)
      }
      expectJson(await host.request("POST", `${api}/policy-groups/${g.id}/publish`), 200)
    }

    it("onboarding scans the branches; publishing and syncing mappings open nothing", async () => {
      for (const [name, team] of [["/platform", "Platform"], ["/payments", "Payments"]] as const) {
        expectJson(
          await host.request("POST", `${api}/webhooks`, {
            body: {
              name: `remediation ${team}`,
              type: "generic",
              endpointUrl: receiver.url(name),
              scope: { kind: "team", teamId: host.org.teams[team] },
              events: ["service.remediation_pull_request.created", "service.remediation_pull_request.failed"]
            }
          }),
          201
        )
      }
      const onboarded = expectJson(
        await host.request("POST", `${api}/repositories`, {
          body: {
            vcsConnectionId: host.org.vcsConnections["acme"],
            externalRepoId: "1001",
            assignedTeamId: host.org.teams["Platform"],
            assignedRoutineId: host.org.routines["Platform/Weekly"],
            branchNames: ["main", "release"]
          }
        }),
        201
      )
      repositoryId = onboarded.repository.id
      await until("the onboarding scans", async () => {
        const list = await scans()
        return list.length === 2 && list.every((s: any) => s.status === "succeeded")
      })
      expectJson(
        await host.request("POST", `${api}/repositories/${repositoryId}/policy-groups`, {
          body: {
            assignments: [
              { policyGroupId: group("Base images").id, branchNames: ["main", "release"] },
              { policyGroupId: group("Delayed").id, branchNames: ["main"] }
            ]
          }
        }),
        200
      )
      await publish("Base images", [
        { fromImage: "node:20", toImage: "node:20.11.1", reason: "LTS pin" },
        { fromImage: "redis:7", toImage: "redis:7.2.4" },
        { fromImage: "nginx:1.25", toImage: "nginx:1.27.0" },
        { fromImage: "rabbitmq:3.12", toImage: "rabbitmq:3.13.1" }
      ])
      // a file mapping in a group with a 20-day cooldown: published now, active in 20 days
      fixture.files.setFile(
        {
          orgId: "org_acme",
          vcsConnectionId: host.org.vcsConnections["acme"]!,
          fullName: "acme/policy",
          branch: "main",
          path: delayedPath
        },
        JSON.stringify({ mappings: [{ fromImage: "busybox:1.36", toImage: "busybox:1.36.1" }] })
      )
      const delayed = group("Delayed")
      expect(
        expectJson(await host.request("POST", `${api}/policy-groups/${delayed.id}/phases/${delayed.phases["Delayed file"]}/sync`), 200)
      )
        .toMatchObject({ changed: true, created: 1 })

      // an approved snooze of rabbitmq:3.12 for ten days, and a pending one of nginx:1.25
      const snooze = async (fromImage: string, days: number) =>
        expectJson(
          await host.request("POST", `${api}/snooze-requests`, {
            body: { repositoryId, fromImage, reason: "migration under way", until: new Date(time.now() + days * dayMs).toISOString() }
          }),
          201
        ).id as string
      const rabbit = await snooze("docker.io/library/rabbitmq:3.12", 10)
      expectJson(await host.request("POST", `${api}/snooze-requests/${rabbit}/review`, { body: { decision: "approve" } }), 200)
      await snooze("nginx:1.25", 10)

      // the findings show what applies now; several routine ticks pass and nothing is opened
      const findings = expectJson(await host.request("GET", `${api}/repositories/${repositoryId}/findings`), 200)
      expect(findings.items.filter((f: any) => f.resolution !== null).map((f: any) => f.reference).sort()).toEqual(
        ["${BASE}", "nginx:1.25", "node:20", "rabbitmq:3.12", "redis:7"].sort()
      )
      await sleep(300)
      expect(await requests()).toEqual([])
      expect(fixture.remediations("acme/api")).toEqual([])
      expect((await scans()).map((s: any) => s.trigger)).toEqual(["onboarding", "onboarding"])
      expect(events()).toEqual([])
    })

    it("when the routine is due, each branch gets a routine scan and one request with the expected changes", async () => {
      advance(7)
      const [main, release] = await until("a request per branch", async () => {
        const m = await ofBranch("main")
        const r = await ofBranch("release")
        return m.length === 1 && r.length === 1 && [m[0], r[0]]
      })
      // a request is written while its scan is still being finished: wait for both scans to end
      // (whatever their outcome) before asserting how they ended
      const routineScans = await until("the routine scans to finish", async () => {
        const list = (await scans()).filter((s: any) => s.trigger === "routine")
        return list.length === 2 && list.every((s: any) => s.status !== "queued" && s.status !== "running") && list
      })
      expect(routineScans.map((s: any) => [s.branchName, s.status]).sort()).toEqual([
        ["main", "succeeded"],
        ["release", "succeeded"]
      ])
      const base = group("Base images")
      const change = (file: string, line: number, column: number, from: string, to: string) => ({
        file,
        line,
        column,
        from,
        to,
        policyGroupId: base.id,
        phaseId: base.phases["Curated"],
        mappingId: expect.stringMatching(/^map_/),
        // the mapping's own reason first when it has one ("LTS pin"), then why it won
        reason: from === "node:20" ? expect.stringMatching(/^LTS pin \(selected: .+\)$/) : expect.stringMatching(/^selected: /)
      })
      const opened = fixtureRequest("image-policy/remediate/main")!
      expect(main).toEqual({
        id: expect.stringMatching(/^rem_[0-9a-z]+$/),
        repositoryId,
        branchName: "main",
        headBranch: "image-policy/remediate/main",
        status: "open",
        failure: null,
        number: opened.number,
        url: opened.url,
        scanId: routineScans.find((s: any) => s.branchName === "main").id,
        // busybox waits for its cooldown, rabbitmq is snoozed, ${BASE} is not written literally,
        // postgres has no mapping; the pending nginx snooze suppresses nothing
        changes: [
          change("Dockerfile", 2, 6, "node:20", "node:20.11.1"),
          change("deploy/api.yaml", 13, 19, "nginx:1.25", "nginx:1.27.0"),
          change("docker-compose.yml", 3, 13, "redis:7", "redis:7.2.4")
        ],
        createdAt: main.updatedAt,
        updatedAt: expect.any(String),
        mergedAt: null
      })
      expect(release).toMatchObject({
        headBranch: "image-policy/remediate/release",
        status: "open",
        changes: [change("Dockerfile", 1, 6, "node:20", "node:20.11.1")]
      })
      // what the provider received: only the references changed, every other byte as it was
      expect(opened).toMatchObject({ base: "main", title: "Update container images on main", state: "open", writes: 1 })
      expect(opened.files.map((f) => f.path).sort()).toEqual(["Dockerfile", "deploy/api.yaml", "docker-compose.yml"])
      expect(fileOf(opened, "Dockerfile")).toBe(dockerfile.replace("FROM node:20 AS", "FROM node:20.11.1 AS"))
      expect(fileOf(opened, "docker-compose.yml")).toBe(compose.replace("\"redis:7\"", "\"redis:7.2.4\""))
      expect(fileOf(opened, "deploy/api.yaml")).toBe(deployment.replace("'nginx:1.25'", "'nginx:1.27.0'"))
      for (
        const line of [
          "`Dockerfile:2`",
          "`node:20` -> `node:20.11.1`",
          "`docker-compose.yml:3`",
          "`deploy/api.yaml:13`",
          "selected: exact match"
        ]
      ) {
        expect(opened.body).toContain(line)
      }
      expect(opened.body).toContain(base.id)
      expect(fileOf(fixtureRequest("image-policy/remediate/release"), "Dockerfile")).toBe("FROM node:20.11.1\n")
      // the events reach the repository's team, not another team
      const received = await until("two created events", async () => events().length >= 2 && events())
      expect(received.map((e) => e.data).sort((a, b) => a.pull_request_url.localeCompare(b.pull_request_url))).toEqual(
        [main, release].map((r) => ({ repository_id: repositoryId, pull_request_url: r.url, action: "created", changed_at: r.createdAt }))
          .sort((a, b) => a.pull_request_url.localeCompare(b.pull_request_url))
      )
      expect(new Set(received.map((e) => e.type))).toEqual(new Set(["service.remediation_pull_request.created"]))
      expect(events("/payments")).toEqual([])
      const rows = (await auditRows(host)).filter((r) => r.action.startsWith("remediation."))
      expect(rows.map((r) => [r.action, r.resourceType, r.outcome]).sort()).toEqual([
        ["remediation.open", "remediation_request", "success"],
        ["remediation.open", "remediation_request", "success"]
      ])
      for (const row of rows) expect(row.actor).toEqual({ kind: "system", name: "routine-worker" })
    })

    it("the next run updates the open request (same number) with a newer mapping and the change whose snooze expired", async () => {
      const [before] = await ofBranch("main")
      await publish("Base images", [{ fromImage: "node:20", toImage: "node:20.12.0", reason: "LTS pin" }])
      // 14 days in: the snooze (10 days) has expired, the cooldown (20 days) has not passed
      advance(7)
      const [main] = await until("main's request updated", async () => {
        const list = await ofBranch("main")
        return list[0]?.updatedAt !== before.updatedAt && list
      })
      expect(await ofBranch("main")).toHaveLength(1)
      expect(main).toMatchObject({ id: before.id, number: before.number, url: before.url, createdAt: before.createdAt, status: "open" })
      expect(main.changes.map((c: any) => `${c.file}:${c.line} ${c.from} -> ${c.to}`)).toEqual([
        "Dockerfile:2 node:20 -> node:20.12.0",
        "deploy/api.yaml:13 nginx:1.25 -> nginx:1.27.0",
        "docker-compose.yml:3 redis:7 -> redis:7.2.4",
        "docker-compose.yml:5 rabbitmq:3.12 -> rabbitmq:3.13.1"
      ])
      const updated = fixtureRequest("image-policy/remediate/main")!
      expect(updated).toMatchObject({ number: before.number, writes: 2 })
      expect(fixture.remediations("acme/api")).toHaveLength(2)
      expect(fileOf(updated, "docker-compose.yml")).toBe(
        compose.replace("\"redis:7\"", "\"redis:7.2.4\"").replace("rabbitmq:3.12", "rabbitmq:3.13.1")
      )
      expect(fileOf(updated, "Dockerfile")).toBe(dockerfile.replace("FROM node:20 AS", "FROM node:20.12.0 AS"))
      await until("two more created events", async () => events().length >= 4)
      const rows = (await auditRows(host)).filter((r) => r.action === "remediation.update")
      expect(rows).toHaveLength(2)
    })

    it("failing writes record failed requests with their failure_kind and emit .failed; the open requests stay", async () => {
      const openBefore = (await requests()).filter((r: any) => r.status === "open")
      fixture.failNextWrite("forbidden")
      fixture.failNextWrite("rate-limited")
      advance(7)
      const failed = await until("two failed requests", async () => {
        const list = (await requests()).filter((r: any) => r.status === "failed")
        return list.length === 2 && list
      })
      expect(failed.map((r: any) => r.failure).sort()).toEqual(["permission-denied", "rate-limited"])
      for (const r of failed) {
        expect(r).toMatchObject({ number: null, url: null, headBranch: `image-policy/remediate/${r.branchName}` })
        expect(r.changes.length).toBeGreaterThan(0)
      }
      expect(failed.map((r: any) => r.branchName).sort()).toEqual(["main", "release"])
      expect((await requests()).filter((r: any) => r.status === "open")).toEqual(openBefore)
      const failedEvents = await until("two failed events", async () => {
        const list = events().filter((e) => e.type === "service.remediation_pull_request.failed")
        return list.length === 2 && list
      })
      expect(failedEvents.map((e) => e.data.failure_kind).sort()).toEqual(["permission-denied", "rate-limited"])
      for (const e of failedEvents) {
        expect(e.data).toEqual({
          repository_id: repositoryId,
          action: "failed",
          failure_kind: e.data.failure_kind,
          changed_at: expect.any(String)
        })
      }
      const rows = (await auditRows(host)).filter((r) => r.action === "remediation.fail")
      expect(rows.map((r) => [r.outcome, r.detail]).sort()).toEqual([["rejected", "permission-denied"], ["rejected", "rate-limited"]])
      expect(fixture.remediations("acme/api").map((r) => r.writes)).toEqual([2, 2])
    })

    it("after its request was closed, a branch gets a new one and the old one reads superseded; an active mapping past its cooldown joins", async () => {
      const [previous] = (await ofBranch("main")).filter((r: any) => r.status === "open")
      fixture.closeRemediation("acme/api", previous.number)
      // 31 days in: the Delayed group's file mapping is active now
      advance(10)
      const main = await until("a new request on main", async () => {
        const open = (await ofBranch("main")).filter((r: any) => r.status === "open")
        return open.length === 1 && open[0].id !== previous.id && open[0]
      })
      expect(main.number).not.toBe(previous.number)
      expect((await ofBranch("main")).find((r: any) => r.id === previous.id)).toMatchObject({
        status: "superseded",
        number: previous.number
      })
      expect(main.changes.map((c: any) => `${c.file}:${c.line} ${c.from} -> ${c.to}`)).toContain(
        "deploy/api.yaml:10 busybox:1.36 -> busybox:1.36.1"
      )
      const delayed = group("Delayed")
      expect(main.changes.find((c: any) => c.from === "busybox:1.36")).toMatchObject({
        policyGroupId: delayed.id,
        phaseId: delayed.phases["Delayed file"]
      })
      const opened = fixtureRequest("image-policy/remediate/main")!
      expect(opened.number).toBe(main.number)
      expect(fileOf(opened, "deploy/api.yaml")).toBe(
        deployment.replace("busybox:1.36", "busybox:1.36.1").replace("'nginx:1.25'", "'nginx:1.27.0'")
      )
      // release's request was still open: updated in place (its routine run ends on its own time:
      // wait for its write, not only for main's)
      await until("release's request written a third time", async () => fixtureRequest("image-policy/remediate/release")?.writes === 3)
      const release = (await ofBranch("release")).filter((r: any) => r.status === "open")
      expect(release).toHaveLength(1)
      expect(fixtureRequest("image-policy/remediate/release")).toMatchObject({ number: release[0].number, writes: 3 })
    })

    it("POST scans with remediate: true runs the routine now for the named branch: a routine scan, then its request updated", async () => {
      // the routine runs of the previous step may still be scanning release: this call must queue its own scan
      await until("no pending scan of release", async () =>
        (await scans()).every((s: any) => s.branchName !== "release" || (s.status !== "queued" && s.status !== "running")))
      fixture.files.setFile(
        {
          orgId: "org_acme",
          vcsConnectionId: host.org.vcsConnections["acme"]!,
          fullName: "acme/api",
          branch: "release",
          path: "Dockerfile"
        },
        "FROM node:20\nFROM redis:7 AS cache\n"
      )
      const queued = expectJson(
        await host.request("POST", `${api}/repositories/${repositoryId}/scans`, { body: { branchNames: ["release"], remediate: true } }),
        202
      )
      expect(queued.scans.map((s: any) => [s.branchName, s.trigger, s.status])).toEqual([["release", "routine", "queued"]])
      const [release] = await until("the release request with the new change", async () => {
        const open = (await ofBranch("release")).filter((r: any) =>
          r.status === "open"
        )
        return open.length === 1 && open[0].changes.some((c: any) => c.from === "redis:7") && open
      })
      expect(release.changes.map((c: any) => `${c.file}:${c.line} ${c.from} -> ${c.to}`)).toEqual([
        "Dockerfile:1 node:20 -> node:20.12.0",
        "Dockerfile:2 redis:7 -> redis:7.2.4"
      ])
      expect(fileOf(fixtureRequest("image-policy/remediate/release"), "Dockerfile")).toBe("FROM node:20.12.0\nFROM redis:7.2.4 AS cache\n")
      // main was not named: no scan of it was queued by this call
      expect((await scans()).filter((s: any) => s.branchName === "main" && s.status === "queued")).toEqual([])
    })
  }))
