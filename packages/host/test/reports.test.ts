/**
 * Compliance reporting over HTTP, on the memory store and PostgreSQL (issue 15): the report counts
 * tracked and scanned branches, findings in and out of policy as the findings route resolves them,
 * open remediation requests and live snoozes, per organization, policy group and team; the history
 * answers the daily snapshots the snapshot worker stores; `reports:read` guards both.
 */
import { describe, expect, it } from "vitest"
import { afterAll, beforeAll } from "vitest"
import { secrets, startTestHost, type TestHost, testSeed } from "./support/harness.js"
import { expectJson, expectProblem, onEveryStore, readAllPages } from "./support/suites.js"
import { until } from "./support/until.js"

const api = "/api/v1/org/org_acme"

const reportSeed = () => {
  const seed = structuredClone(testSeed) as any
  const repositories = seed.organizations[0].vcsConnections[0].fixture.repositories
  repositories[0].files = {
    main: {
      "Dockerfile": "FROM node:20\nFROM nginx:1.25\n",
      "docker-compose.yml": "services:\n  cache:\n    image: redis:7\n  db:\n    image: postgres:16\n"
    },
    release: { "Dockerfile": "FROM node:18\n" }
  }
  repositories[1].files = { main: { "Dockerfile": "FROM python:3.12\nFROM ${BASE}\n" } }
  return seed
}

const counts = (overrides: Record<string, unknown> = {}) => ({
  trackedBranches: 0,
  scannedBranches: 0,
  outOfPolicyFindings: 0,
  findingsWithoutMapping: 0,
  openRemediationRequests: 0,
  pendingSnoozes: 0,
  approvedSnoozes: 0,
  oldestOutOfPolicyScanAt: null,
  ...overrides
})

await onEveryStore("reports", (storeName, makeStore) =>
  describe(`compliance reports over HTTP (${storeName})`, () => {
    let host: TestHost
    let apiId = ""
    let webId = ""
    beforeAll(async () => {
      host = await startTestHost({
        store: makeStore(),
        seed: reportSeed(),
        scanWorker: { pollIntervalMs: 20 },
        snapshotWorker: { tickMs: 100 }
      })
    })
    afterAll(() => host?.stop())

    const onboard = async (externalRepoId: string, team: string, routine: string, branchNames: ReadonlyArray<string>) =>
      expectJson(
        await host.request("POST", `${api}/repositories`, {
          body: {
            vcsConnectionId: host.org.vcsConnections["acme"],
            externalRepoId,
            assignedTeamId: host.org.teams[team],
            assignedRoutineId: host.org.routines[routine],
            branchNames
          }
        }),
        201
      ).repository.id as string
    const report = async (key?: string) =>
      expectJson(await host.request("GET", `${api}/reports/compliance`, key === undefined ? {} : { key }), 200)
    const mapping = async (group: string, phase: string, fromImage: string, toImage: string) => {
      const g = host.org.policyGroups[group]!
      expect(
        (await host.request("POST", `${api}/policy-groups/${g.id}/phases/${g.phases[phase]}/mappings`, { body: { fromImage, toImage } }))
          .status
      ).toBe(201)
      expectJson(await host.request("POST", `${api}/policy-groups/${g.id}/publish`), 200)
    }

    it("before anything is tracked every count is zero, and every group and team is listed by name", async () => {
      const r = await report()
      expect(Date.parse(r.generatedAt)).not.toBeNaN()
      expect(r.organization).toEqual(counts())
      expect(r.policyGroups.map((g: any) => g.name)).toEqual(["Base images", "Everywhere", "Security"])
      expect(r.teams.map((t: any) => t.name)).toEqual(["Payments", "Platform"])
      expect(r.teams[1]).toEqual({ teamId: host.org.teams["Platform"], name: "Platform", ...counts() })
    })

    it("counts tracked and scanned branches and findings without a mapping once the scans ran", async () => {
      apiId = await onboard("1001", "Platform", "Platform/Weekly", ["main", "release"])
      webId = await onboard("1002", "Payments", "Payments/Daily", ["main"])
      for (const id of [apiId, webId]) {
        await until("scans succeeded", async () => {
          const body = expectJson(await host.request("GET", `${api}/repositories?repositoryId=${id}`), 200)
          return body.items[0].branches.every((b: any) => b.scan.status === "succeeded")
        })
      }
      const r = await report()
      expect(r.organization).toEqual(counts({ trackedBranches: 3, scannedBranches: 3, findingsWithoutMapping: 7 }))
      const everywhere = r.policyGroups.find((g: any) => g.name === "Everywhere")
      expect(everywhere).toMatchObject(counts({ trackedBranches: 3, scannedBranches: 3, findingsWithoutMapping: 7 }))
      expect(r.policyGroups.find((g: any) => g.name === "Security")).toMatchObject(counts())
      expect(r.teams).toEqual([
        {
          teamId: host.org.teams["Payments"],
          name: "Payments",
          ...counts({ trackedBranches: 1, scannedBranches: 1, findingsWithoutMapping: 2 })
        },
        {
          teamId: host.org.teams["Platform"],
          name: "Platform",
          ...counts({ trackedBranches: 2, scannedBranches: 2, findingsWithoutMapping: 5 })
        }
      ])
    })

    it("a finding is out of policy when the mapping resolution picks for its branch applies, counted for that mapping's group", async () => {
      await mapping("Everywhere", "Baseline", "nginx:1.25", "nginx:1.25.4")
      await mapping("Security", "Pinned", "redis:7", "redis:7.2.4")
      // Security applies to acme/api's main only: its python mapping never applies to acme/web
      await mapping("Security", "Pinned", "python:3.12", "python:3.12.4")
      expectJson(
        await host.request("POST", `${api}/repositories/${apiId}/policy-groups`, {
          body: { assignments: [{ policyGroupId: host.org.policyGroups["Security"]!.id, branchNames: ["main"] }] }
        }),
        200
      )
      const mainScan = (await readAllPages(host, `${api}/repositories/${apiId}/scans?branch=main`)).items[0]
      const r = await report()
      expect(r.organization).toEqual(counts({
        trackedBranches: 3,
        scannedBranches: 3,
        outOfPolicyFindings: 2,
        findingsWithoutMapping: 5,
        oldestOutOfPolicyScanAt: mainScan.finishedAt
      }))
      const byName = (rows: Array<any>) => Object.fromEntries(rows.map(({ name, ...rest }) => [name, rest]))
      const groups = byName(r.policyGroups)
      expect(groups["Everywhere"]).toMatchObject(counts({
        trackedBranches: 3,
        scannedBranches: 3,
        outOfPolicyFindings: 1,
        findingsWithoutMapping: 5,
        oldestOutOfPolicyScanAt: mainScan.finishedAt
      }))
      expect(groups["Security"]).toMatchObject(counts({
        trackedBranches: 1,
        scannedBranches: 1,
        outOfPolicyFindings: 1,
        findingsWithoutMapping: 2,
        oldestOutOfPolicyScanAt: mainScan.finishedAt
      }))
      expect(groups["Base images"]).toMatchObject(counts())
      const teams = byName(r.teams)
      expect(teams["Platform"]).toMatchObject({ outOfPolicyFindings: 2, findingsWithoutMapping: 3 })
      expect(teams["Payments"]).toMatchObject({ outOfPolicyFindings: 0, findingsWithoutMapping: 2, oldestOutOfPolicyScanAt: null })

      // the same verdicts as the findings route, branch by branch
      let resolved = 0
      let unresolved = 0
      for (const [id, branch] of [[apiId, "main"], [apiId, "release"], [webId, "main"]] as const) {
        for (const f of (await readAllPages(host, `${api}/repositories/${id}/findings?branch=${branch}`)).items) {
          if (f.resolution === null) unresolved++
          else resolved++
        }
      }
      expect([resolved, unresolved]).toEqual([r.organization.outOfPolicyFindings, r.organization.findingsWithoutMapping])
    })

    it("counts pending and approved snoozes per repository's team and applying groups", async () => {
      const create = async (fromImage: string) =>
        expectJson(
          await host.request("POST", `${api}/snooze-requests`, {
            body: { repositoryId: apiId, fromImage, reason: "vendor image pending", until: "2999-01-01T00:00:00Z" }
          }),
          201
        ).id as string
      await create("nginx:1.25")
      const approved = await create("redis:7")
      const rejected = await create("node:18")
      expectJson(await host.request("POST", `${api}/snooze-requests/${approved}/review`, { body: { decision: "approve" } }), 200)
      expectJson(await host.request("POST", `${api}/snooze-requests/${rejected}/review`, { body: { decision: "reject" } }), 200)
      const r = await report()
      expect(r.organization).toMatchObject({ pendingSnoozes: 1, approvedSnoozes: 1 })
      expect(r.teams.find((t: any) => t.name === "Platform")).toMatchObject({ pendingSnoozes: 1, approvedSnoozes: 1 })
      expect(r.teams.find((t: any) => t.name === "Payments")).toMatchObject({ pendingSnoozes: 0, approvedSnoozes: 0 })
      expect(r.policyGroups.find((g: any) => g.name === "Security")).toMatchObject({ pendingSnoozes: 1, approvedSnoozes: 1 })
      expect(r.policyGroups.find((g: any) => g.name === "Base images")).toMatchObject({ pendingSnoozes: 0, approvedSnoozes: 0 })
    })

    it("needs reports:read: Read Only may, a key without it is 403, no key 401, another organization 404", async () => {
      await report(secrets.readOnly)
      for (const path of ["/reports/compliance", "/reports/compliance/history"]) {
        expectProblem(await host.request("GET", `${api}${path}`, { key: secrets.draftsOnly }), 403)
        expectProblem(await host.request("GET", `${api}${path}`, { key: null }), 401)
        expectProblem(await host.request("GET", `${api}${path}`, { key: secrets.otherOrg }), 404)
      }
      expect(
        expectJson(await host.request("GET", "/api/v1/org/org_globex/reports/compliance", { key: secrets.otherOrg }), 200).organization
      )
        .toEqual(counts())
    })

    it("history: the snapshot worker stores one point per day; days is 1..365 (default 30)", async () => {
      const history = await until("today's snapshot", async () => {
        const body = expectJson(await host.request("GET", `${api}/reports/compliance/history`), 200)
        return body.items.length > 0 && body
      })
      const today = new Date().toISOString().slice(0, 10)
      expect(history.days).toBe(30)
      expect(history.to).toBe(today)
      expect(Date.parse(history.to) - Date.parse(history.from)).toBe(29 * 86_400_000)
      expect(history.items).toHaveLength(1)
      expect(history.items[0]).toMatchObject({ day: today, generatedAt: expect.any(String), trackedBranches: expect.any(Number) })
      // each group and team with its findings out of policy of that day (the snapshot was taken before
      // this suite's later changes, so only who is listed is compared with the report now)
      const report = expectJson(await host.request("GET", `${api}/reports/compliance`), 200)
      const listed = (rows: ReadonlyArray<any>, key: string) => rows.map((row) => `${row[key]} ${row.name}`).sort()
      expect(listed(history.items[0].policyGroups, "policyGroupId")).toEqual(listed(report.policyGroups, "policyGroupId"))
      expect(listed(history.items[0].teams, "teamId")).toEqual(listed(report.teams, "teamId"))
      for (const row of [...history.items[0].policyGroups, ...history.items[0].teams]) {
        expect(Object.keys(row).sort()).toEqual([row.teamId ? "teamId" : "policyGroupId", "name", "outOfPolicyFindings"].sort())
        expect(Number.isInteger(row.outOfPolicyFindings)).toBe(true)
      }
      // later passes keep the day's first snapshot
      await new Promise((r) => setTimeout(r, 300))
      const again = expectJson(await host.request("GET", `${api}/reports/compliance/history?days=1`), 200)
      expect(again).toMatchObject({ days: 1, from: today, to: today })
      expect(again.items).toEqual(history.items)
      for (const days of ["0", "366", "1.5", "x"]) {
        expectProblem(await host.request("GET", `${api}/reports/compliance/history?days=${days}`), 400, { paths: ["days"] })
      }
      expectJson(await host.request("GET", `${api}/reports/compliance/history?days=365`), 200)
    })
  }), { pglite: true })
