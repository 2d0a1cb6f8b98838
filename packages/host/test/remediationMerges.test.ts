/**
 * Remediation requests learn that the provider merged them (issue 17: requests opened/merged over
 * time), over HTTP on the memory store and PostgreSQL: a routine opens a request on a GitHub and on
 * a GitLab repository, then each provider's signed webhook tells the merge (GitHub `pull_request`
 * closed as merged, GitLab `Merge Request Hook` with action `merge`). The request becomes `merged`
 * with the provider's merge time and an audit row; an unsigned delivery, a replay and a stale merge
 * answer 401 and change nothing; an unknown number or another action is acknowledged and changes
 * nothing; the compliance history counts the day's opened and merged requests.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"
import { auditRows, expectJson, expectProblem, onEveryStore, readAllPages } from "./support/suites.js"
import { api, githubEventTo, githubSecret, gitlabSecret, syncSeed } from "./support/sync.js"
import { until } from "./support/until.js"

/** The sync seed (webhook secrets on `acme` and `acme-lab`) with a Dockerfile on acme/api and on a GitLab project. */
const mergeSeed = () => {
  const seed = syncSeed()
  const acme = seed.organizations[0]
  acme.vcsConnections[0].fixture.repositories[0].files = { main: { Dockerfile: "FROM node:20\n" } }
  acme.vcsConnections.find((c: any) => c.externalAccountName === "acme-lab").fixture.repositories.push({
    externalRepoId: "502",
    fullName: "acme/lab-api",
    defaultBranch: "main",
    branches: ["main"],
    files: { main: { Dockerfile: "FROM node:20\n" } }
  })
  return seed
}

const pullRequest = (
  number: number,
  options: { readonly action?: string; readonly merged?: boolean; readonly mergedAt?: string } = {}
) => ({
  action: options.action ?? "closed",
  number,
  pull_request: {
    number,
    state: "closed",
    merged: options.merged ?? true,
    merged_at: options.mergedAt ?? new Date().toISOString()
  },
  repository: { full_name: "acme/api" }
})

const mergeRequest = (iid: number, action = "merge") => ({
  object_kind: "merge_request",
  event_type: "merge_request",
  project: { path_with_namespace: "acme/lab-api" },
  object_attributes: { iid, action, state: action === "merge" ? "merged" : "opened" }
})

await onEveryStore(
  "remediation-merges",
  (storeName, makeStore) =>
    describe(`remediation requests merged by the provider (${storeName})`, () => {
      let host: TestHost
      const repositories: Record<string, string> = {}

      beforeAll(async () => {
        host = await startTestHost({
          store: makeStore(),
          seed: mergeSeed(),
          scanWorker: { pollIntervalMs: 20 },
          snapshotWorker: { tickMs: 100 }
        })
      })
      afterAll(async () => {
        await host?.stop()
      })

      const connection = (name: string) => host.org.vcsConnections[name]!
      const requestsOf = async (name: string) =>
        (await readAllPages(host, `${api}/repositories/${repositories[name]}/remediation-requests`)).items
      const githubEvent = (body: unknown, headers: Record<string, string | undefined> = {}) =>
        githubEventTo(host, "pull_request", body, headers, connection("acme"))
      const gitlabEvent = (body: unknown, token = gitlabSecret) =>
        host.request("POST", `/api/v1/vcs-events/gitlab/${connection("acme-lab")}`, {
          key: null,
          raw: JSON.stringify(body),
          headers: {
            "x-gitlab-event": "Merge Request Hook",
            "x-gitlab-token": token,
            "x-gitlab-event-uuid": randomUUID(),
            "content-type": "application/json"
          }
        })
      const history = async () => expectJson(await host.request("GET", `${api}/reports/compliance/history?days=1`), 200).items

      it("a routine opens one request on each repository; the history counts them opened today", async () => {
        for (const [name, connectionName, externalRepoId] of [["github", "acme", "1001"], ["gitlab", "acme-lab", "502"]] as const) {
          const onboarded = expectJson(
            await host.request("POST", `${api}/repositories`, {
              body: {
                vcsConnectionId: connection(connectionName),
                externalRepoId,
                assignedTeamId: host.org.teams["Platform"],
                assignedRoutineId: host.org.routines["Platform/Weekly"],
                branchNames: ["main"]
              }
            }),
            201
          )
          repositories[name] = onboarded.repository.id
        }
        const everywhere = host.org.policyGroups["Everywhere"]!
        expectJson(
          await host.request("POST", `${api}/policy-groups/${everywhere.id}/phases/${everywhere.phases["Baseline"]}/mappings`, {
            body: { fromImage: "node:20", toImage: "node:20.11.1" }
          }),
          201
        )
        expectJson(await host.request("POST", `${api}/policy-groups/${everywhere.id}/publish`), 200)
        for (const name of ["github", "gitlab"]) {
          // the onboarding scan first: a remediating scan asked for meanwhile would join it
          await until(`${name}'s onboarding scan`, async () => {
            const scans = (await readAllPages(host, `${api}/repositories/${repositories[name]}/scans`)).items
            return scans.length > 0 && scans.every((s: any) => s.status === "succeeded")
          })
          expectJson(
            await host.request("POST", `${api}/repositories/${repositories[name]}/scans`, {
              body: { branchNames: ["main"], remediate: true }
            }),
            202
          )
          await until(`${name}'s remediation request`, async () => (await requestsOf(name)).some((r: any) => r.status === "open"))
          const [request] = await requestsOf(name)
          expect(request).toMatchObject({ status: "open", number: expect.any(Number), mergedAt: null })
        }
        const [today] = await until("today's snapshot", async () => {
          const items = await history()
          return items.length === 1 ? items : undefined
        })
        // counted from the requests, not from the snapshot (taken at start, before they were opened)
        expect(today).toMatchObject({ remediationRequestsOpened: 2, remediationRequestsMerged: 0, openRemediationRequests: 0 })
      })

      it("GitHub: an unsigned delivery answers 401; an unknown number or a pull request closed unmerged is acknowledged and changes nothing", async () => {
        const [request] = await requestsOf("github")
        expectProblem(await githubEvent(pullRequest(request.number), { "x-hub-signature-256": "sha256=" + "0".repeat(64) }), 401)
        expectProblem(await githubEvent(pullRequest(request.number), { "x-hub-signature-256": undefined }), 401)
        for (
          const body of [
            pullRequest(request.number + 1000),
            pullRequest(request.number, { merged: false }),
            pullRequest(request.number, { action: "opened", merged: false })
          ]
        ) {
          expect(expectJson(await githubEvent(body), 202)).toEqual({ synced: [], merged: [] })
        }
        expect(await requestsOf("github")).toEqual([request])
        expect((await auditRows(host)).filter((r: any) => r.action === "remediation.merge")).toEqual([])
      })

      it("GitHub: a pull_request closed as merged marks our request merged at the provider's time, with an audit row; a replay or a stale merge answers 401", async () => {
        const [request] = await requestsOf("github")
        const mergedAt = new Date(Date.now() - 60_000).toISOString()
        const deliveryId = randomUUID()
        const answer = expectJson(await githubEvent(pullRequest(request.number, { mergedAt }), { "x-github-delivery": deliveryId }), 202)
        expect(answer).toEqual({ synced: [], merged: [{ id: request.id, repositoryId: repositories["github"], number: request.number }] })
        const [merged] = await requestsOf("github")
        expect(merged).toEqual({ ...request, status: "merged", mergedAt, updatedAt: expect.any(String) })
        const rows = (await auditRows(host)).filter((r: any) => r.action === "remediation.merge")
        expect(rows).toHaveLength(1)
        expect(rows[0]).toMatchObject({
          resourceType: "remediation_request",
          resourceId: request.id,
          outcome: "success",
          actor: { kind: "system", name: "github-webhook" }
        })
        expect(JSON.stringify(rows)).not.toContain(githubSecret)

        // the same delivery again: refused as a replay, nothing written
        expectProblem(await githubEvent(pullRequest(request.number, { mergedAt }), { "x-github-delivery": deliveryId }), 401)
        // a merge the provider dates more than 5 minutes ago: refused as stale
        const old = new Date(Date.now() - 10 * 60_000).toISOString()
        expectProblem(await githubEvent(pullRequest(request.number, { mergedAt: old })), 401)
        // a new delivery of the same merge: acknowledged, the request is merged already
        expect(expectJson(await githubEvent(pullRequest(request.number)), 202)).toEqual({ synced: [], merged: [] })
        expect(await requestsOf("github")).toEqual([merged])
        expect((await auditRows(host)).filter((r: any) => r.action === "remediation.merge")).toHaveLength(1)
      })

      it("GitLab: a wrong token answers 401; another action changes nothing; a Merge Request Hook with action merge marks the request merged", async () => {
        const [request] = await requestsOf("gitlab")
        expectProblem(await gitlabEvent(mergeRequest(request.number), "not-the-token"), 401)
        expect(expectJson(await gitlabEvent(mergeRequest(request.number, "update")), 202)).toEqual({ synced: [], merged: [] })
        expect(expectJson(await gitlabEvent(mergeRequest(request.number + 1000)), 202)).toEqual({ synced: [], merged: [] })
        expect(await requestsOf("gitlab")).toEqual([request])
        const before = Date.now()
        const answer = expectJson(await gitlabEvent(mergeRequest(request.number)), 202)
        expect(answer.merged).toEqual([{ id: request.id, repositoryId: repositories["gitlab"], number: request.number }])
        const [merged] = await requestsOf("gitlab")
        expect(merged.status).toBe("merged")
        // GitLab's event names no merge time here: the receipt's
        expect(Date.parse(merged.mergedAt)).toBeGreaterThanOrEqual(before - 1_000)
        expect((await auditRows(host)).filter((r: any) => r.action === "remediation.merge").map((r: any) => r.actor.name)).toEqual([
          "gitlab-webhook",
          "github-webhook"
        ])
      })

      it("a request event not of the provider's shape answers 400 naming the field", async () => {
        expectProblem(await githubEvent({ action: "closed", number: "7", pull_request: {}, repository: { full_name: "acme/api" } }), 400, {
          paths: ["number"]
        })
      })

      it("the history counts today's merges beside the requests opened; open requests no longer count them", async () => {
        const [today] = await history()
        expect(today).toMatchObject({ remediationRequestsOpened: 2, remediationRequestsMerged: 2 })
        const report = expectJson(await host.request("GET", `${api}/reports/compliance`), 200)
        expect(report.organization.openRemediationRequests).toBe(0)
      })
    })
)
