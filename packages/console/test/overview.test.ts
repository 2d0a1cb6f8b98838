/**
 * The Overview page (issue 17 "Console" 2): the compliance report now and its daily history as
 * charts with their numbers as tables, every number leading to its list; axe and screenshots at
 * 1280x800 and 390x844.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  axeCheck,
  type ConsoleHost,
  launchBrowser,
  phone,
  screenshots,
  signIn,
  startConsoleHost,
  type TestBrowser,
  users
} from "./support/index.js"

describe("overview", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  beforeAll(async () => {
    ;[host, browser] = await Promise.all([
      // the snapshot worker's first pass writes today's point of the history
      startConsoleHost({ snapshotWorker: {} }),
      launchBrowser()
    ])
  })
  afterAll(async () => {
    await browser?.close()
    await host?.stop()
  })

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
