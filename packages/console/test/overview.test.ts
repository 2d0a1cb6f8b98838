/**
 * The Overview page (issue 17 "Console" 2): the compliance report now and its daily history as
 * charts with their numbers as tables, every number leading to its list; remediation requests
 * opened and merged per day, a merge told by the provider's signed webhook (also shown on the
 * repository page); axe and screenshots at 1280x800 and 390x844.
 */
import { createHmac, randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import {
  axeCheck,
  type ConsoleHost,
  consoleSeed,
  consoleSuite,
  phone,
  screenshots,
  signIn,
  type TestBrowser,
  users
} from "./support/index.js"

describe("overview", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  // the snapshot worker's first pass writes today's point of the history
  consoleSuite({ snapshotWorker: {} }, (started) => ({ host, browser } = started))

  it("shows the report by policy group and team, and the history as charts with a table of the numbers", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner)
    const main = page.getByRole("main")
    await expect.poll(() => main.getByRole("heading", { level: 1 }).textContent()).toBe("Overview")
    const outOfPolicy = main.getByRole("link", { name: /Findings out of policy/ })
    await expect.poll(() => outOfPolicy.textContent()).toBe("0Findings out of policy")
    expect(await main.getByRole("link", { name: /Branches scanned/ }).textContent()).toBe("0 / 0Branches scanned")

    const byGroup = main.getByRole("region", { name: "Out of policy by policy group" })
    expect(await byGroup.getByRole("listitem").allTextContents()).toEqual([
      "Base images0 findings out of policy0 of 0 branches scanned",
      "Everywhere0 findings out of policy0 of 0 branches scanned"
    ])
    const byTeam = main.getByRole("region", { name: "Out of policy by team" })
    expect(await byTeam.getByRole("link").allTextContents()).toEqual(["Payments", "Platform"])

    // today's snapshot is the history's one point
    const chart = main.getByRole("figure", { name: "Findings" })
    await expect.poll(() => chart.count()).toBe(1)
    expect(await chart.getByRole("img").getAttribute("aria-label")).toMatch(
      /^Findings: 1 days from \d{4}-\d{2}-\d{2} to .*latest Out of policy 0, Without a mapping 0/
    )
    await chart.getByText("Show the numbers").click()
    const rows = await chart.getByRole("table").getByRole("row").allTextContents()
    expect(rows).toHaveLength(2)
    expect(rows[1]).toMatch(/^\d{4}-\d{2}-\d{2}00$/)
    for (const name of ["Remediation requests", "Snoozes", "Branches"]) {
      expect(await main.getByRole("figure", { name }).count(), name).toBe(1)
    }
    // findings out of policy per team over time: one line per team, named in the numbers table
    const teamsOverTime = main.getByRole("figure", { name: "Out of policy by team over time" })
    await teamsOverTime.getByText("Show the numbers").click()
    const header = await teamsOverTime.getByRole("table").getByRole("columnheader").allTextContents()
    expect(header.slice(1).sort()).toEqual(["Payments", "Platform"])
    expect(await main.getByRole("figure", { name: "Out of policy by policy group over time" }).count()).toBe(1)

    const week = main.getByRole("button", { name: "7 days" })
    await week.click()
    await expect.poll(() => week.getAttribute("aria-pressed")).toBe("true")
    await axeCheck(page)
    await screenshots(page, "overview")
    await page.setViewportSize(phone)
    await axeCheck(page)

    // a group's bar leads to that group's page
    await byGroup.getByRole("link", { name: "Base images" }).click()
    await page.waitForURL(/\/policy-groups\/pg_[0-9a-z]+$/)
  })

  it("a Read Only user sees the report too (reports:read)", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly)
    await expect.poll(() => page.getByRole("region", { name: "Out of policy by policy group" }).getByRole("link").count()).toBe(2)
  })
})

// the harness's seed with a Dockerfile in acme/api and the connection's push/pull request webhook secret
const webhookSecret = "console-github-webhook-secret-0123456789"
const mergeSeed = structuredClone(consoleSeed) as typeof consoleSeed
{
  const connection = mergeSeed.organizations[0]!.vcsConnections![0]!
  const fixture = connection.fixture as Record<string, unknown> & { repositories: Array<Record<string, unknown>> }
  fixture.webhookSecret = webhookSecret
  fixture.repositories[0] = { ...fixture.repositories[0], files: { main: { Dockerfile: "FROM node:18\nRUN npm ci\n" } } }
}

describe("overview: remediation requests opened and merged", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  let repositoryId: string
  consoleSuite({ seed: mergeSeed, scanWorker: { pollIntervalMs: 200 }, snapshotWorker: {} }, (started) => ({ host, browser } = started))

  const org = () => `/api/v1/org/${host.orgId}`
  const waitFor = async <A>(what: string, f: () => Promise<A | undefined>): Promise<A> => {
    const deadline = Date.now() + 60_000
    for (;;) {
      const value = await f()
      if (value !== undefined) return value
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }

  it("a request the routine opened and the provider merged counts as opened and merged today, and reads merged on its repository", async () => {
    // set-up through the API: a mapping for every repository, acme/api tracked, its routine run now
    const everywhere = (await host.api("GET", `${org()}/policy-groups`)).body.items.find((g: any) => g.name === "Everywhere")
    const phase = (await host.api("GET", `${org()}/policy-groups/${everywhere.id}/details`)).body.phases[0]
    expect(
      (await host.api("POST", `${org()}/policy-groups/${everywhere.id}/phases/${phase.id}/mappings`, {
        body: { fromImage: "node:18", toImage: "node:20" }
      })).status
    ).toBe(201)
    expect((await host.api("POST", `${org()}/policy-groups/${everywhere.id}/publish`)).status).toBe(200)
    const connection = (await host.api("GET", `${org()}/vcs-connections`)).body.items[0]
    const team = (await host.api("GET", `${org()}/teams`)).body.items.find((t: any) => t.name === "Platform")
    const routine = (await host.api("GET", `${org()}/teams/${team.id}/routines`)).body.items[0]
    const onboarded = await host.api("POST", `${org()}/repositories`, {
      body: {
        vcsConnectionId: connection.id,
        externalRepoId: "1001",
        assignedTeamId: team.id,
        assignedRoutineId: routine.id,
        branchNames: ["main"]
      }
    })
    expect(onboarded.status).toBe(201)
    repositoryId = onboarded.body.repository.id
    const requests = async () => (await host.api("GET", `${org()}/repositories/${repositoryId}/remediation-requests`)).body.items
    await waitFor("the onboarding scan", async () => {
      const scans = (await host.api("GET", `${org()}/repositories/${repositoryId}/scans`)).body.items
      return scans.length > 0 && scans.every((s: any) => s.status === "succeeded") ? true : undefined
    })
    expect((await host.api("POST", `${org()}/repositories/${repositoryId}/scans`, { body: { remediate: true } })).status).toBe(202)
    const opened = await waitFor("the remediation request", async () => (await requests()).find((r: any) => r.status === "open"))

    // the provider merges it and tells us through its signed webhook, as GitHub does
    const mergedAt = new Date().toISOString()
    const raw = JSON.stringify({
      action: "closed",
      number: opened.number,
      pull_request: { number: opened.number, state: "closed", merged: true, merged_at: mergedAt },
      repository: { full_name: "acme/api" }
    })
    const delivered = await fetch(`${host.url}/api/v1/vcs-events/github/${connection.id}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": `sha256=${createHmac("sha256", webhookSecret).update(raw).digest("hex")}`
      },
      body: raw
    })
    expect(delivered.status).toBe(202)
    expect((await delivered.json()).merged).toEqual([{ id: opened.id, repositoryId, number: opened.number }])

    const page = await browser.newPage()
    await signIn(page, host.url, users.owner)
    const main = page.getByRole("main")
    const chart = main.getByRole("figure", { name: "Remediation requests" })
    await expect.poll(() => chart.count()).toBe(1)
    // today's snapshot was taken at start (none open then); opened and merged are counted from the requests
    expect(await chart.getByRole("img").getAttribute("aria-label")).toMatch(/latest Open 0, Opened 1, Merged 1\./)
    await chart.getByText("Show the numbers").click()
    const table = chart.getByRole("table")
    expect(await table.getByRole("columnheader").allTextContents()).toEqual(["Day", "Open", "Opened", "Merged"])
    expect(await table.getByRole("row").nth(1).textContent()).toMatch(/^\d{4}-\d{2}-\d{2}011$/)
    await axeCheck(page)
    await chart.scrollIntoViewIfNeeded()
    await screenshots(page, "overview-remediation-merged")

    // the repository page lists the request as merged, with the provider's merge time
    await page.goto(`${host.url}/repositories/${repositoryId}`)
    const list = page.getByRole("table", { name: "Remediation requests" })
    const row = list.getByRole("row").nth(1)
    await expect.poll(() => row.locator(".badge").textContent()).toBe("merged")
    expect(await row.locator(`time[datetime="${mergedAt}"]`).count()).toBe(1)
    await axeCheck(page)
    await screenshots(page, "repository-remediation-merged")
  })
})
