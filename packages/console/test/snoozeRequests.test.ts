/**
 * Snooze requests (issue 17 "Console" 5, "Tests": approve a snooze): create one through the form
 * (checked as the API checks it, nothing typed lost), approve it with a comment, reject and reopen
 * another, filter the list, and a Read Only user seeing no write action while the server refuses
 * a forged review (403). axe and screenshots at both sizes on the list and the detail.
 */
import type { Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import { apiKeys, axeCheck, type ConsoleHost, consoleSuite, phone, screenshots, signIn, type TestBrowser, users } from "./support/index.js"

const heading = (page: Page) => page.getByRole("heading", { level: 1 }).textContent()

/** `YYYY-MM-DD` of the local day `days` from today. */
const day = (days: number) => {
  const d = new Date()
  d.setDate(d.getDate() + days)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`
}

describe("snooze requests", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  let org: string
  let repositoryId: string
  let approvedId: string

  consoleSuite({}, (started) => ({ host, browser } = started))
  beforeAll(async () => {
    org = `/api/v1/org/${host.orgId}`
    // a tracked repository to snooze images of
    const connection = (await host.api("GET", `${org}/vcs-connections`)).body.items[0]
    const team = (await host.api("GET", `${org}/teams`)).body.items.find((t: { name: string }) => t.name === "Platform")
    const routine = (await host.api("GET", `${org}/teams/${team.id}/routines`)).body.items[0]
    const created = await host.api("POST", `${org}/repositories`, {
      body: {
        vcsConnectionId: connection.id,
        externalRepoId: "1001",
        assignedTeamId: team.id,
        assignedRoutineId: routine.id,
        branchNames: ["main"]
      }
    })
    expect(created.status).toBe(201)
    repositoryId = created.body.repository.id
  })

  it("an Owner requests a snooze (checked as the API does) and approves it with a comment", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/snooze-requests")
    await expect.poll(() => heading(page)).toBe("Snooze requests")
    await page.getByText("No snooze requests yet").waitFor()
    await axeCheck(page)

    await page.getByRole("button", { name: "Request a snooze" }).click()
    const form = page.getByRole("form", { name: "Request a snooze" })
    // nothing filled: each field says what it needs, focus on the first
    await form.getByRole("button", { name: "Request snooze" }).click()
    await expect.poll(() => form.locator(".field__error").allTextContents()).toEqual([
      "Choose the repository.",
      "Enter the image to snooze.",
      "Say why the image cannot be replaced yet.",
      "Choose the day the snooze ends."
    ])
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("SELECT")

    await form.getByLabel("Repository").selectOption({ label: "acme/api" })
    await form.getByLabel("Image").fill("node:18")
    await form.getByLabel("Reason").fill("The build needs node 18 until the native addon is rebuilt")
    await form.getByLabel("Snooze until").fill(day(-1))
    await form.getByRole("button", { name: "Request snooze" }).click()
    await expect.poll(() => form.locator(".field__error").allTextContents()).toEqual(["The day must be in the future."])
    // what was typed stays
    expect(await form.getByLabel("Image").inputValue()).toBe("node:18")
    expect(await form.getByLabel("Reason").inputValue()).toContain("native addon")
    await axeCheck(page)
    await screenshots(page, "snooze-create")

    await form.getByLabel("Snooze until").fill(day(30))
    await form.getByRole("button", { name: "Request snooze" }).click()
    await page.waitForURL(/\/snooze-requests\/snz_/)
    await expect.poll(() => heading(page)).toBe("Snooze of node:18")
    approvedId = new URL(page.url()).pathname.split("/").pop()!
    const facts = page.locator(".repo-facts")
    await expect.poll(() => facts.textContent()).toContain("Pending review")
    expect(await facts.textContent()).toContain("acme/api")
    const stored = await host.api("GET", `${org}/snooze-requests/${approvedId}`)
    expect(stored.body).toMatchObject({ repositoryId, fromImage: "node:18", status: "pending" })
    // the end of the chosen day, in the browser's zone
    expect(Date.parse(stored.body.until)).toBeGreaterThan(Date.now() + 29 * 86_400_000)

    await axeCheck(page)
    await screenshots(page, "snooze-pending")
    await page.getByLabel("Comment").fill("OK until the addon ships")
    await page.getByRole("button", { name: "Approve" }).click()
    await expect.poll(() => facts.textContent()).toContain("Approved")
    expect(await facts.textContent()).toContain("OK until the addon ships")
    await expect.poll(() => page.locator(".toasts").textContent()).toContain("Snooze request approved")
    expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0)
    const approved = await host.api("GET", `${org}/snooze-requests/${approvedId}`)
    expect(approved.body).toMatchObject({ status: "approved", reviewComment: "OK until the addon ships" })
    await screenshots(page, "snooze-approved")
  })

  it("rejects a request with a comment, reopens it, and filters the list by status", async () => {
    const until = new Date(Date.now() + 10 * 86_400_000).toISOString()
    const created = await host.api("POST", `${org}/snooze-requests`, {
      body: { repositoryId, fromImage: "python:3.8", reason: "Legacy job", until }
    })
    expect(created.status).toBe(201)
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/snooze-requests")
    const table = page.getByRole("table", { name: "Snooze requests" })
    const row = table.getByRole("row").filter({ hasText: "python:3.8" })
    await row.getByRole("link", { name: /Review the snooze of python:3.8/ }).click()
    await expect.poll(() => heading(page)).toBe("Snooze of python:3.8")
    await page.getByLabel("Comment").fill("Upgrade instead")
    await page.getByRole("button", { name: "Reject" }).click()
    const facts = page.locator(".repo-facts")
    await expect.poll(() => facts.textContent()).toContain("Rejected")
    expect(await facts.textContent()).toContain("Upgrade instead")

    await page.getByRole("button", { name: "Reopen" }).click()
    await expect.poll(() => facts.textContent()).toContain("Pending review")
    expect((await host.api("GET", `${org}/snooze-requests/${created.body.id}`)).body.status).toBe("pending")

    await page.getByRole("link", { name: "All snooze requests" }).click()
    await table.waitFor()
    await expect.poll(() => table.getByRole("row").count()).toBe(3)
    await page.getByLabel("Status").selectOption({ label: "Approved" })
    await page.waitForURL(/status=approved/)
    await expect.poll(() => table.getByRole("row").count()).toBe(2)
    expect(await table.textContent()).toContain("node:18")
    expect(await table.textContent()).not.toContain("python:3.8")
    await page.getByLabel("Status").selectOption({ label: "Pending review" })
    await expect.poll(() => table.textContent()).not.toContain("node:18")
    expect(await table.textContent()).toContain("python:3.8")
    await page.getByLabel("Status").selectOption({ label: "Rejected" })
    await page.getByText("No snooze request matches these filters").waitFor()
    await page.getByRole("button", { name: "Clear filters" }).click()
    await expect.poll(() => table.getByRole("row").count()).toBe(3)
    await axeCheck(page)
    await page.setViewportSize(phone)
    await axeCheck(page)
    await screenshots(page, "snooze-requests")
  })

  it("a Read Only user sees no write action, and the server refuses a forged review (403)", async () => {
    const pending = (await host.api("GET", `${org}/snooze-requests?status=pending`)).body.items[0]
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly, "/snooze-requests")
    const table = page.getByRole("table", { name: "Snooze requests" })
    await expect.poll(() => table.getByRole("row").count()).toBe(3)
    expect(await page.getByRole("button", { name: "Request a snooze" }).count()).toBe(0)
    expect(await table.getByRole("link", { name: /^Review/ }).count()).toBe(0)
    await table.getByRole("link", { name: "python:3.8", exact: true }).click()
    await expect.poll(() => heading(page)).toBe("Snooze of python:3.8")
    await page.locator(".repo-facts").getByText("Pending review").waitFor()
    for (const name of ["Approve", "Reject", "Reopen"]) expect(await page.getByRole("button", { name }).count(), name).toBe(0)
    expect(await page.getByLabel("Comment").count()).toBe(0)
    await axeCheck(page)
    await screenshots(page, "snooze-read-only")

    const forged = await page.evaluate(async (path) => {
      const session = await (await fetch("/api/v1/session")).json()
      const answer = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
        body: JSON.stringify({ decision: "approve" })
      })
      return answer.status
    }, `${org}/snooze-requests/${pending.id}/review`)
    expect(forged).toBe(403)
    const withKey = await host.api("POST", `${org}/snooze-requests/${pending.id}/reopen`, { key: apiKeys.readOnly })
    expect(withKey.status).toBe(403)
    expect((await host.api("GET", `${org}/snooze-requests/${pending.id}`)).body.status).toBe("pending")
  })
})
