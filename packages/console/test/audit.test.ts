/**
 * The audit log (issue 17 "Console" 8): the actions done in the console (a key, a member, a role)
 * appear with their actor; filters narrow the rows and live in the address; the export downloads
 * exactly what the filters select; cursor paging; a Read Only reader sees it without write
 * actions; axe and screenshots at 1280x800 and 390x844.
 */
import { readFileSync } from "node:fs"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { axeCheck, type ConsoleHost, consoleSuite, phone, screenshots, signIn, type TestBrowser, users } from "./support/index.js"

describe("audit log page", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  consoleSuite({}, (started) => ({ host, browser } = started))

  const rows = (page: Page) => page.getByRole("table", { name: "Audit events" }).locator("tbody tr")

  it("shows the console's actions with their actor, filters them, pages and exports what the filters select", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/settings/api-keys")
    // act in the console: a key, a custom role, a member
    await page.getByRole("button", { name: "Create API key" }).click()
    const keyForm = page.getByRole("form", { name: "New API key" })
    await keyForm.getByLabel("Name").fill("Nightly job")
    await keyForm.getByLabel("Role", { exact: true }).selectOption({ label: "Read Only" })
    await keyForm.getByRole("button", { name: "Create key" }).click()
    await page.getByRole("region", { name: /Secret of the new key/ }).waitFor()

    await page.goto(`${host.url}/settings/members`)
    await page.getByRole("button", { name: "Create role" }).click()
    const roleForm = page.getByRole("form", { name: "Create a custom role" })
    await roleForm.getByLabel("Role name").fill("Auditor")
    await roleForm.getByRole("checkbox", { name: /Read the audit log/ }).check()
    await roleForm.getByRole("button", { name: "Create role" }).click()
    await page.getByRole("table", { name: "Roles" }).getByRole("row").filter({ hasText: "Auditor" }).waitFor()
    await page.getByRole("button", { name: "Add member" }).click()
    const add = page.getByRole("form", { name: "Add a member" })
    await add.getByLabel("Email").fill("ada@acme.test")
    await add.getByLabel("Name").fill("Ada Auditor")
    await add.getByLabel("Role", { exact: true }).selectOption({ label: "Auditor" })
    await add.getByRole("button", { name: "Add member" }).click()
    await page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: "ada@acme.test" }).waitFor()

    // many rows: 60 teams made with the API key (pages of 50)
    for (let i = 0; i < 60; i++) {
      const made = await host.api("POST", `/api/v1/org/${host.orgId}/teams`, { body: { name: `Team ${i}` } })
      expect(made.status).toBe(201)
    }

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click()
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Audit log")
    await rows(page).first().waitFor()
    // newest first: 50 rows, then "Load more"
    await expect.poll(() => rows(page).count()).toBe(50)
    expect(await rows(page).first().textContent()).toContain("team.create")
    await page.getByRole("button", { name: "Load more" }).click()
    await expect.poll(() => rows(page).count()).toBeGreaterThan(50)

    // filter by action: only role.create, by the signed-in member (named)
    const filters = page.getByRole("form", { name: "Audit log filters" })
    await filters.getByLabel("Action").fill("role.create")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await page.waitForURL(/\/audit-log\?action=role.create$/)
    await expect.poll(() => rows(page).count()).toBe(1)
    const roleRow = rows(page).first()
    expect(await roleRow.textContent()).toContain(users.owner.name)
    expect(await roleRow.textContent()).toContain("role")
    expect(await roleRow.textContent()).toContain("Success")

    // by resource type: the member row; by actor: the API key's rows only
    await filters.getByLabel("Action").fill("")
    await filters.getByLabel("Resource type").fill("member")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await rows(page).filter({ hasText: "Ada Auditor" }).waitFor()
    for (const text of await rows(page).allTextContents()) expect(text).toMatch(/member\./)
    expect(await rows(page).filter({ hasText: "Ada Auditor" }).textContent()).toContain("member.create")

    await filters.getByLabel("Resource type").fill("")
    await filters.getByLabel("Action").fill("api_key.create")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await rows(page).filter({ hasText: "Nightly job" }).waitFor()
    for (const text of await rows(page).allTextContents()) expect(text).toContain("api_key.create")

    // a time range that ends before everything: nothing
    await filters.getByLabel("Action").fill("")
    await filters.getByLabel("To", { exact: true }).fill("2020-01-01T00:00")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await page.getByText("No event matches these filters").waitFor()
    // "To" before "From": refused at the field, values kept
    await filters.getByLabel("From", { exact: true }).fill("2021-01-01T00:00")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => filters.getByText("Must be after “From”.").count()).toBe(1)
    expect(await filters.getByLabel("From", { exact: true }).inputValue()).toBe("2021-01-01T00:00")
    await filters.getByRole("button", { name: "Clear filters" }).click()
    await page.waitForURL(/\/audit-log$/)
    await expect.poll(() => rows(page).count()).toBe(50)

    // the address keeps the filters (a reload shows the same rows); the export downloads them
    await page.goto(`${host.url}/audit-log?action=team.create`)
    await expect.poll(() => rows(page).count()).toBe(50)
    expect(await filters.getByLabel("Action").inputValue()).toBe("team.create")
    const exportLink = page.getByRole("link", { name: /Export filtered rows/ })
    const [download] = await Promise.all([page.waitForEvent("download"), exportLink.click()])
    expect(download.suggestedFilename()).toMatch(/^audit-events-\d{4}-\d{2}-\d{2}\.ndjson$/)
    const lines = readFileSync((await download.path())!, "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(lines).toHaveLength(60)
    expect(new Set(lines.map((l: { action: string }) => l.action))).toEqual(new Set(["team.create"]))

    await page.goto(`${host.url}/audit-log`)
    await rows(page).first().waitFor()
    await axeCheck(page)
    await screenshots(page, "audit-log")
    await page.setViewportSize(phone)
    await axeCheck(page)
  }, 300_000)

  it("a Read Only user reads the audit log with no write action", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly, "/audit-log")
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Audit log")
    await rows(page).first().waitFor()
    const main = page.getByRole("main")
    const buttons = await main.getByRole("button").allTextContents()
    expect(buttons.filter((b) => !/^(Apply filters|Load more|Clear filters)$/.test(b))).toEqual([])
    // ids only: a reader without members:manage or api-keys:manage gets no names
    expect(await rows(page).first().textContent()).not.toContain(users.owner.name)
    await screenshots(page, "audit-log-read-only")
  })
})
