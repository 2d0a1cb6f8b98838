/**
 * Repositories (issue 17 "Console" 4, "Tests": onboard a repository and assign a group): the list,
 * the onboarding wizard (connection -> repository with refresh -> branches with the default
 * pre-selected -> team -> routine -> review), the repository page (scan now, the assignments editor
 * and its replace semantics, the findings with which mapping applies and why, team and routine,
 * stop tracking), a Read Only user seeing no write action and the server refusing a forged one.
 * A real host on PGlite with its scan worker, so the onboarded branches are really scanned.
 */
import type { Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import {
  apiKeys,
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

// the harness's seed, with files in the fixture repositories so scans find image references
const seed = structuredClone(consoleSeed) as typeof consoleSeed
{
  const acme = seed.organizations[0]!
  const connection = acme.vcsConnections![0]!
  ;(connection.fixture.repositories as Array<Record<string, unknown>>) = [
    {
      externalRepoId: "1001",
      fullName: "acme/api",
      defaultBranch: "main",
      branches: ["main", "develop"],
      files: {
        main: { Dockerfile: "FROM node:18\nRUN npm ci\n", "deploy/compose.yaml": "services:\n  cache:\n    image: redis:7\n" },
        develop: { Dockerfile: "FROM node:18\n" }
      }
    },
    {
      externalRepoId: "1002",
      fullName: "acme/web",
      defaultBranch: "main",
      branches: ["main"],
      files: { main: { Dockerfile: "FROM nginx:1.25\n" } }
    }
  ]
}

const heading = (page: Page) => page.getByRole("heading", { level: 1 }).textContent()

describe("repositories", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  let org: string
  let repositoryId: string

  consoleSuite({ seed, scanWorker: { pollIntervalMs: 200 } }, (started) => ({ host, browser } = started))
  beforeAll(async () => {
    org = `/api/v1/org/${host.orgId}`
    // a published mapping in "Base images" (assigned per repository): node:18 -> node:20
    const groups = await host.api("GET", `${org}/policy-groups`)
    const base = groups.body.items.find((g: { name: string }) => g.name === "Base images")
    const details = await host.api("GET", `${org}/policy-groups/${base.id}/details`)
    const phase = details.body.phases[0]
    const upsert = await host.api("POST", `${org}/policy-groups/${base.id}/phases/${phase.id}/mappings`, {
      body: { fromImage: "node:18", toImage: "node:20", reason: "Node 18 is end of life" }
    })
    expect(upsert.status).toBe(201)
    expect((await host.api("POST", `${org}/policy-groups/${base.id}/publish`)).status).toBe(200)
  })

  it("an Owner onboards a repository through the wizard and lands on its page", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/repositories")
    await expect.poll(() => heading(page)).toBe("Repositories")
    await page.getByText("No repositories tracked yet").waitFor()
    await axeCheck(page)
    await screenshots(page, "repositories-empty")

    await page.getByRole("link", { name: "Onboard a repository" }).first().click()
    await expect.poll(() => heading(page)).toBe("Onboard a repository")
    // step 1: the only active connection is chosen already
    await page.getByRole("heading", { name: "Step 1 of 6: Connection" }).waitFor()
    await expect.poll(() => page.getByRole("radio", { name: /acme/ }).isChecked()).toBe(true)
    await page.getByRole("button", { name: "Next" }).click()

    // step 2: the repositories of the connection, refresh from the provider (spends quota)
    await page.getByRole("heading", { name: "Step 2 of 6: Repository" }).waitFor()
    await page.getByRole("radio", { name: /acme\/api/ }).waitFor()
    const refresh = page.getByRole("button", { name: "Refresh from provider" })
    expect(await page.locator("#refresh-hint").textContent()).toContain("spends the connection's API quota")
    expect(await refresh.getAttribute("aria-describedby")).toBe("refresh-hint")
    // Next without a choice says what is missing
    await page.getByRole("button", { name: "Next" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toBe("Choose a repository.")
    await refresh.click()
    await page.getByRole("radio", { name: /acme\/web/ }).waitFor()
    await axeCheck(page)
    await screenshots(page, "onboard-repository")
    await page.getByRole("radio", { name: /acme\/api/ }).check()
    await page.getByRole("button", { name: "Next" }).click()

    // step 3: the default branch pre-selected and kept
    await page.getByRole("heading", { name: "Step 3 of 6: Branches" }).waitFor()
    const main = page.getByRole("checkbox", { name: /^main/ })
    await main.waitFor()
    expect(await main.isChecked()).toBe(true)
    expect(await main.isDisabled()).toBe(true)
    const develop = page.getByRole("checkbox", { name: /^develop/ })
    expect(await develop.isChecked()).toBe(false)
    await develop.check()
    await screenshots(page, "onboard-branches")
    await page.getByRole("button", { name: "Next" }).click()

    // step 4 and 5: a team, then a routine of that team
    await page.getByRole("heading", { name: "Step 4 of 6: Team" }).waitFor()
    await page.getByRole("radio", { name: "Platform" }).check()
    await page.getByRole("button", { name: "Next" }).click()
    await page.getByRole("heading", { name: "Step 5 of 6: Routine" }).waitFor()
    await page.getByRole("radio", { name: /Weekly/ }).check()
    // the other team's routine is not offered
    expect(await page.getByRole("radio", { name: /Daily/ }).count()).toBe(0)
    await page.getByRole("button", { name: "Next" }).click()

    // review, then track
    await page.getByRole("heading", { name: "Step 6 of 6: Review" }).waitFor()
    const review = await page.locator(".repo-facts").textContent()
    expect(review).toContain("acme/api")
    expect(review).toContain("main, develop")
    expect(review).toContain("Platform")
    expect(review).toContain("Weekly")
    await axeCheck(page)
    await screenshots(page, "onboard-review")
    await page.getByRole("button", { name: "Track repository" }).click()
    await page.waitForURL(/\/repositories\/repo_/)
    await expect.poll(() => heading(page)).toBe("acme/api")
    await expect.poll(() => page.locator(".toasts").textContent()).toContain("acme/api is tracked: 2 scans queued")
    repositoryId = new URL(page.url()).pathname.split("/").pop()!

    const listed = await host.api("GET", `${org}/repositories`)
    expect(listed.body.items.map((r: { fullName: string }) => r.fullName)).toEqual(["acme/api"])
    expect(listed.body.items[0].branches.map((b: { branchName: string }) => b.branchName)).toEqual(["main", "develop"])
  })

  it("assigns a policy group (replace semantics shown) and sees its findings and why the mapping applies", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, `/repositories/${repositoryId}`)
    await expect.poll(() => heading(page)).toBe("acme/api")
    // the scan worker scans both branches
    const branches = page.getByRole("table", { name: "Tracked branches and their last scans" })
    await expect.poll(() => branches.getByText("Scanned", { exact: true }).count(), { timeout: 30_000 }).toBe(2)

    // before any assignment node:18 has no mapping
    const findings = page.getByRole("table", { name: "Findings on main" })
    await findings.getByText("node:18", { exact: true }).first().waitFor()
    expect(await findings.getByText("No mapping").count()).toBe(2)

    // the all-repositories group is listed apart and cannot be chosen
    await page.getByText("Saving replaces all assignments.").waitFor()
    const add = page.getByLabel("Add a policy group")
    expect(await add.locator("option", { hasText: "Everywhere" }).isDisabled()).toBe(true)
    await add.selectOption({ label: "Base images" })
    await page.getByRole("button", { name: "Add group" }).click()
    // only main: untick develop
    await page.getByRole("group", { name: "Branches Base images applies to" }).getByRole("checkbox", { name: "develop" }).uncheck()
    await page.getByRole("button", { name: "Save assignments…" }).click()
    const dialog = page.getByRole("dialog", { name: "Replace all assignments?" })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain("This repository's assignments become exactly:Base images on main")
    await axeCheck(page)
    await dialog.getByRole("button", { name: "Replace assignments" }).click()
    await expect.poll(() => page.locator(".toasts").textContent()).toContain("Assignments replaced")
    const assigned = await host.api("GET", `${org}/repositories/${repositoryId}/policy-groups`)
    expect(
      assigned.body.items.filter((i: { source: string }) => i.source === "repository_assignment").map((
        i: { name: string; branchNames: Array<string> }
      ) => [
        i.name,
        i.branchNames
      ])
    ).toEqual([["Base images", ["main"]]])

    // the finding now has its replacement, and why
    const row = findings.getByRole("row").filter({ hasText: "Dockerfile:1" })
    await expect.poll(() => row.textContent()).toContain("node:20")
    await row.getByRole("button", { name: /^Why/ }).click()
    const why = row.locator(".why")
    await expect.poll(() => why.textContent()).toContain("Base images")
    const text = await why.textContent()
    expect(text).toContain("Replace withnode:20")
    expect(text).toContain("Mappingnode:18 → node:20")
    expect(text).toContain("Node 18 is end of life")
    await expect.poll(() => why.textContent()).toContain("PhaseCurated")
    await why.getByRole("button", { name: "Show every mapping considered" }).click()
    const considered = why.getByRole("list", { name: /Mappings considered for/ })
    await expect.poll(() => considered.textContent()).toContain("matched")
    expect(await considered.textContent()).toContain("in Base images")
    // develop is not assigned: its finding keeps no mapping
    await page.getByLabel("Branch", { exact: true }).selectOption("develop")
    const developFindings = page.getByRole("table", { name: "Findings on develop" })
    await expect.poll(() => developFindings.textContent()).not.toContain("node:20")
    expect(await developFindings.getByText("No mapping").count()).toBe(1)
    await page.getByLabel("Branch", { exact: true }).selectOption("main")
    await page.getByRole("table", { name: "Findings on main" }).waitFor()
    await row.getByRole("button", { name: /^Why/ }).click()
    await why.getByRole("button", { name: "Show every mapping considered" }).click()
    await considered.waitFor()
    await axeCheck(page)
    await screenshots(page, "repository")

    // scan now queues a scan of every tracked branch
    await page.getByRole("button", { name: "Scan now" }).click()
    await expect.poll(() => page.locator(".toasts").textContent()).toContain("2 scans queued")
  })

  it("the list shows each branch's scan status at both sizes", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/repositories")
    const table = page.getByRole("table", { name: "Tracked repositories" })
    const row = table.getByRole("row").filter({ hasText: "acme/api" })
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/main\s*Scanned/)
    expect(await row.textContent()).toContain("Platform")
    expect(await row.textContent()).toContain("Weekly (every 7 days)")
    await axeCheck(page)
    await page.setViewportSize(phone)
    await axeCheck(page)
    await screenshots(page, "repositories")
  })

  it("changes the team and routine; the API's refusal shows at the field and keeps the choice", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, `/repositories/${repositoryId}`)
    await page.getByRole("button", { name: "Change team or routine" }).click()
    const form = page.getByRole("form", { name: "Team and routine" })
    await form.getByLabel("Team").selectOption({ label: "Payments" })
    // the routine was the other team's: one of this team's must be chosen, said at the field
    await form.getByRole("button", { name: "Save team and routine" }).click()
    await expect.poll(() => form.locator(".field__error").textContent()).toBe("Choose a routine of the team.")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-invalid"))).toBe("true")
    expect(await form.getByLabel("Team").locator("option:checked").textContent()).toBe("Payments")
    await form.getByLabel("Routine").selectOption({ label: "Daily (every 1 day)" })
    await form.getByRole("button", { name: "Save team and routine" }).click()
    await expect.poll(() => page.locator(".repo-facts").textContent()).toContain("Payments")
    expect(await page.locator(".repo-facts").textContent()).toContain("Daily: every 1 day")
  })

  it("a Read Only user sees no write action, and the server refuses a forged one (403)", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly, "/repositories")
    await page.getByRole("table", { name: "Tracked repositories" }).getByRole("link", { name: "acme/api" }).click()
    await expect.poll(() => heading(page)).toBe("acme/api")
    await page.getByRole("table", { name: /Findings on/ }).waitFor()
    await page.getByText("Assigned to this repository").waitFor()
    for (const name of ["Scan now", "Change team or routine", "Stop tracking", "Save assignments…", "Add group"]) {
      expect(await page.getByRole("button", { name }).count(), name).toBe(0)
    }
    expect(await page.getByRole("button", { name: /^Scan / }).count()).toBe(0)
    expect(await page.getByLabel("Add a policy group").count()).toBe(0)
    await axeCheck(page)
    await screenshots(page, "repository-read-only")
    await page.goto(`${host.url}/repositories`)
    await page.getByRole("table", { name: "Tracked repositories" }).waitFor()
    expect(await page.getByRole("link", { name: "Onboard a repository" }).count()).toBe(0)
    await page.goto(`${host.url}/repositories/onboard`)
    await page.getByText("You may not onboard repositories").waitFor()

    // a forged request with the reader's own session and CSRF token: refused
    const forged = await page.evaluate(async (path) => {
      const session = await (await fetch("/api/v1/session")).json()
      const answer = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
        body: JSON.stringify({})
      })
      return answer.status
    }, `${org}/repositories/${repositoryId}/scans`)
    expect(forged).toBe(403)
    expect(
      (await host.api("POST", `${org}/repositories/${repositoryId}/policy-groups`, { key: apiKeys.readOnly, body: { assignments: [] } }))
        .status
    )
      .toBe(403)
  })

  it("stops tracking a repository after a confirmation", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, `/repositories/${repositoryId}`)
    await expect.poll(() => heading(page)).toBe("acme/api")
    await page.getByRole("button", { name: "Stop tracking" }).click()
    const dialog = page.getByRole("dialog", { name: "Stop tracking acme/api?" })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain("remediation requests are kept")
    await dialog.getByRole("button", { name: "Stop tracking" }).click()
    await page.waitForURL((url) => url.pathname === "/repositories")
    await page.getByText("No repositories tracked yet").waitFor()
    expect((await host.api("GET", `${org}/repositories`)).body.items).toEqual([])
  })
})
