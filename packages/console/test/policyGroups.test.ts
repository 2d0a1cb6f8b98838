/**
 * Policy groups (issue 17, page 3), end to end against a real host on PGlite: the list; a group's
 * draft mappings added, edited (the API's field error at the field when toImage is not exact) and
 * deleted, each publish confirmed in a dialog listing the change, then the published state; Sync
 * now on an external phase; notification routing and cooldown; a Read Only user sees no write
 * action and a forged request is refused; axe and screenshots at both sizes; and a group of 2,000
 * draft and 2,000 published mappings renders a bounded number of rows, filters and scrolls.
 */
import type { Locator, Page } from "playwright-core"
import { beforeAll, describe, expect, it } from "vitest"
import {
  apiKeys,
  axeCheck,
  type ConsoleHost,
  consoleSeed,
  consoleSuite,
  desktop,
  phone,
  screenshots,
  signIn,
  type TestBrowser,
  users
} from "./support/index.js"

const mappingsFile = JSON.stringify({
  mappings: [
    { fromImage: "redis:7", toImage: "redis:7.2.4", reason: "patched" },
    { fromImage: "alpine:3.19", toImage: "alpine:3.20" }
  ]
})

// the harness's seed, with an external phase reading a file of the fixture repository and a
// group for the 2,000 mappings
const seed = (() => {
  const copy = structuredClone(consoleSeed) as any
  const acme = copy.organizations[0]
  acme.vcsConnections[0].fixture.repositories[0].files = { main: { "policy/service-mappings.json": mappingsFile } }
  acme.policyGroups.push(
    {
      name: "Platform images",
      applyToAllRepos: false,
      phases: [
        { name: "Pinned", source: "internal" },
        {
          name: "From repo",
          source: "external",
          file: { connection: "acme", repository: "acme/api", branch: "main", path: "policy/service-mappings.json" }
        }
      ]
    },
    { name: "Large", applyToAllRepos: false, phases: [{ name: "Bulk", source: "internal" }] }
  )
  return copy
})()

const h1 = (page: Page) => page.getByRole("heading", { level: 1 })
const section = (page: Page, name: string) => page.getByRole("region", { name, exact: true })
const list = (page: Page, name: string) => page.getByRole("region", { name: `${name}: scrollable list`, exact: true })

/** Axe, then screenshots at both sizes, each from the top of the page (the banner is sticky). */
const checkAndShoot = async (page: Page, name: string) => {
  await page.evaluate(() => window.scrollTo(0, 0))
  await axeCheck(page)
  await page.setViewportSize(phone)
  await page.evaluate(() => window.scrollTo(0, 0))
  await axeCheck(page)
  await page.setViewportSize(desktop)
  await page.evaluate(() => window.scrollTo(0, 0))
  await screenshots(page, name)
}

/** The text of the elements that describe a control (its hint and its error). */
const description = (control: Locator) =>
  control.evaluate((el) =>
    (el.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean).map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" ")
  )

describe("policy groups", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  let groups: Record<string, { id: string; phases: Array<{ id: string; name: string; sourceType: string }> }>
  const org = () => `/api/v1/org/${host.orgId}`

  consoleSuite({ seed }, (started) => ({ host, browser } = started))
  beforeAll(async () => {
    const list = await host.api("GET", `${org()}/policy-groups?limit=200`)
    groups = {}
    for (const g of list.body.items as Array<{ id: string; name: string }>) {
      const settings = await host.api("GET", `${org()}/policy-groups/${g.id}`)
      groups[g.name] = settings.body
    }
  })

  const groupPath = (name: string, phase?: string) => {
    const g = groups[name]!
    const p = phase === undefined ? undefined : g.phases.find((x) => x.name === phase)!
    return p === undefined ? `/policy-groups/${g.id}` : `/policy-groups/${g.id}/phases/${p.id}`
  }

  it("lists the groups with what they apply to and their phases; creating one opens it", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/policy-groups")
    await expect.poll(() => h1(page).textContent()).toBe("Policy groups")
    const table = page.getByRole("table", { name: "Policy groups" })
    const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: "Platform images", exact: true }) })
    await expect.poll(() => row.textContent()).toContain("Assigned repositories")
    await expect.poll(() => row.getByRole("link", { name: "From repo" }).count()).toBe(1)
    expect(await row.textContent()).toContain("(external)")
    const everywhere = table.getByRole("row").filter({ has: page.getByRole("link", { name: "Everywhere", exact: true }) })
    expect(await everywhere.textContent()).toContain("All repositories")
    await expect.poll(() => everywhere.textContent()).toContain("Never")
    await checkAndShoot(page, "policy-groups")

    await page.getByRole("button", { name: "Create policy group" }).first().click()
    const form = page.getByRole("region", { name: "Create a policy group" })
    await form.getByLabel("Name").fill("Base images")
    await form.getByRole("button", { name: "Create group" }).click()
    // the API's 409 on a taken name shows at the field, what was typed stays
    await expect.poll(() => description(form.getByLabel("Name"))).toContain("another policy group of this organization has this name")
    expect(await form.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    expect(await form.getByLabel("Name").inputValue()).toBe("Base images")
    await form.getByLabel("Name").fill("Release train")
    await form.getByLabel("Notify").selectOption({ label: "No team: organization-wide destinations only" })
    await form.getByRole("button", { name: "Create group" }).click()
    await page.waitForURL(/\/policy-groups\/[^/]+$/)
    await expect.poll(() => h1(page).textContent()).toBe("Release train")
    const created = await host.api("GET", `${org()}/policy-groups?limit=200`)
    const id = (created.body.items as Array<{ id: string; name: string }>).find((g) => g.name === "Release train")?.id
    expect(new URL(page.url()).pathname).toBe(`/policy-groups/${id}`)
    expect((await host.api("GET", `${org()}/policy-groups/${id}`)).body.notification).toBe("disabled")
  })

  it("adds, edits and deletes a draft mapping, with the field error at the field, and publishes each change", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, groupPath("Base images", "Curated"))
    await expect.poll(() => h1(page).textContent()).toBe("Base images")
    const changes = section(page, "Unpublished changes")
    await expect.poll(() => page.getByText("The draft matches the published mappings").count()).toBe(1)
    const form = page.getByRole("region", { name: "Add a mapping" })
    await form.getByLabel("From image").fill("node:18")
    await form.getByLabel("Reason").fill("Node 18 is end of life")

    // not exact: a bare name, then a pattern; the API's message shows at the field, nothing is lost
    for (const wrong of ["node", "node:*"]) {
      await form.getByLabel("To image").fill(wrong)
      await form.getByRole("button", { name: "Add mapping" }).click()
      await expect.poll(() => description(form.getByLabel("To image"))).toContain("must be an exact image reference")
      expect(await form.getByLabel("To image").getAttribute("aria-invalid")).toBe("true")
      expect(await form.getByLabel("From image").inputValue()).toBe("node:18")
      expect(await form.getByLabel("Reason").inputValue()).toBe("Node 18 is end of life")
      expect(await form.getByRole("alert").textContent()).toContain("Check the highlighted fields")
    }
    await screenshots(page, "policy-group-field-error")

    await form.getByLabel("To image").fill("node:20.11.1")
    await form.getByRole("button", { name: "Add mapping" }).click()
    const drafts = list(page, "Draft mappings of Curated")
    const nodeRow = drafts.getByRole("listitem").filter({ hasText: "node:18" })
    await expect.poll(() => nodeRow.textContent()).toContain("node:20.11.1")
    // the badge comes with the draft's comparison, read again after the change
    await expect.poll(() => nodeRow.textContent()).toContain("New")
    expect(await form.getByLabel("From image").inputValue()).toBe("")
    await expect.poll(() => page.getByText("The next publish: 1 mapping added, 0 changed, 0 removed").count()).toBe(1)
    expect(await changes.getByRole("listitem").filter({ hasText: "node:18" }).textContent()).toContain("Added")

    // publish: the dialog lists the change
    const publish = async (expected: RegExp) => {
      await page.getByRole("button", { name: "Publish…" }).click()
      const dialog = page.getByRole("dialog", { name: "Publish “Base images”?" })
      await dialog.waitFor()
      expect(await dialog.getByRole("list", { name: "Changes to publish" }).textContent()).toMatch(expected)
      await screenshots(page, "policy-group-publish-dialog")
      await dialog.getByRole("button", { name: "Publish", exact: true }).click()
      await dialog.waitFor({ state: "hidden" })
    }
    await publish(/Added\s*node:18\s*→\s*node:20\.11\.1/)
    await expect.poll(() => page.getByText("Published: 1 added, 0 changed, 0 removed").count()).toBe(1)
    await expect.poll(() => page.getByText("The draft matches the published mappings (1 mapping)").count()).toBe(1)
    const published = section(page, "Published mappings")
    await expect.poll(() => published.getByRole("listitem").filter({ hasText: "node:18" }).textContent()).toContain("node:20.11.1")
    const details = await host.api("GET", `${org()}/policy-groups/${groups["Base images"]!.id}/details`)
    expect(details.body.publishedMappings.map((m: { toImage: string }) => m.toImage)).toEqual(["node:20.11.1"])
    await checkAndShoot(page, "policy-group")

    // edit: the form takes the mapping's values; the draft then differs from the published one
    await nodeRow.getByRole("button", { name: /^Edit/ }).click()
    const edit = page.getByRole("region", { name: /^Edit node:18/ })
    expect(await edit.getByLabel("To image").inputValue()).toBe("node:20.11.1")
    await edit.getByLabel("To image").fill("node:20.12.0")
    await edit.getByRole("button", { name: "Save mapping" }).click()
    await expect.poll(() => nodeRow.textContent()).toContain("node:20.12.0")
    await expect.poll(() => nodeRow.textContent()).toContain("Changed")
    expect(await drafts.getByRole("listitem").count()).toBe(1)
    await publish(/Changed\s*node:18\s*→\s*node:20\.12\.0\s*\(was node:18 → node:20\.11\.1\)/)
    await expect.poll(() => page.getByText("Published: 0 added, 1 changed, 0 removed").count()).toBe(1)
    await expect.poll(() => published.getByRole("listitem").filter({ hasText: "node:18" }).textContent()).toContain("node:20.12.0")

    // delete: confirmed, then published as a removal
    await nodeRow.getByRole("button", { name: /^Delete/ }).click()
    const confirm = page.getByRole("dialog", { name: "Delete this draft mapping?" })
    await confirm.getByRole("button", { name: "Delete mapping" }).click()
    await confirm.waitFor({ state: "hidden" })
    await expect.poll(() => page.getByText("No draft mappings in this phase").count()).toBe(1)
    await expect.poll(() => page.getByText("The next publish: 0 mappings added, 0 changed, 1 removed").count()).toBe(1)
    await publish(/Removed\s*node:18\s*→\s*node:20\.12\.0/)
    await expect.poll(() => page.getByText("Nothing is published yet").count()).toBe(1)
    const after = await host.api("GET", `${org()}/policy-groups/${groups["Base images"]!.id}/details`)
    expect(after.body.publishedMappings).toEqual([])
  })

  it("syncs an external phase now: its last sync and the file's mappings appear", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, groupPath("Platform images", "From repo"))
    await expect.poll(() => h1(page).textContent()).toBe("Platform images")
    const phases = page.getByRole("table", { name: "Phases, in the order they apply" })
    const row = phases.getByRole("row").filter({ hasText: "From repo" })
    expect(await row.textContent()).toContain("acme/api")
    expect(await row.textContent()).toContain("policy/service-mappings.json")
    expect(await row.textContent()).toContain("Never")
    await row.getByRole("button", { name: "Sync now From repo" }).click()
    await expect.poll(() => page.getByText("Sync of From repo: 2 added, 0 changed, 0 removed.").count()).toBe(1)
    await expect.poll(() => row.textContent()).not.toContain("Never")
    const fileMappings = list(page, "Mappings of From repo")
    await expect.poll(() => fileMappings.getByRole("listitem").count()).toBe(2)
    expect(await fileMappings.textContent()).toContain("redis:7.2.4")
    await checkAndShoot(page, "policy-group-external")
  })

  it("changes notification routing and cooldown, with the cooldown checked at the field", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, groupPath("Platform images"))
    const settings = section(page, "Settings")
    await settings.getByRole("button", { name: "Edit settings" }).click()
    await settings.getByLabel("Notify").selectOption({ label: "Team Payments" })
    await settings.getByLabel("Cooldown of external phases").selectOption({ label: "A cooldown for this group" })
    await settings.getByLabel("Cooldown in seconds").fill("ten minutes")
    await settings.getByRole("button", { name: "Save settings" }).click()
    await expect.poll(() => description(settings.getByLabel("Cooldown in seconds"))).toContain("whole number of seconds")
    expect(await settings.getByLabel("Notify").inputValue()).toMatch(/^team:/)
    await settings.getByLabel("Cooldown in seconds").fill("600")
    await settings.getByRole("button", { name: "Save settings" }).click()
    // saved and read again: the form gives way to the settings as read (the open form lists "Team
    // Payments" among its options, so that text alone does not say the save is done)
    await expect.poll(() => settings.getByRole("button", { name: "Edit settings" }).count()).toBe(1)
    await expect.poll(() => settings.textContent()).toContain("10 minutes")
    expect(await settings.textContent()).toContain("Team Payments")
    const saved = await host.api("GET", `${org()}/policy-groups/${groups["Platform images"]!.id}`)
    expect(saved.body.cooldownSeconds).toBe(600)
    expect(saved.body.notification).toHaveProperty("teamId")
  })

  it("adds a phase, renames it, and deletes the group after a confirmation", async () => {
    const created = await host.api("POST", `${org()}/policy-groups`, { body: { name: "Scratch" } })
    expect(created.status).toBe(201)
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, `/policy-groups/${created.body.id}`)
    await expect.poll(() => page.getByText("No phases yet").count()).toBe(1)
    await page.getByRole("button", { name: "Add phase" }).click()
    const add = page.getByRole("region", { name: "Add a phase" })
    await add.getByLabel("Source").selectOption("external")
    await add.getByRole("button", { name: "Add phase" }).click()
    await expect.poll(() => description(add.getByLabel("Repository"))).toContain("Enter the repository")
    expect(await add.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    await add.getByLabel("Source").selectOption("internal")
    await add.getByLabel("Name").fill("Staging")
    await add.getByRole("button", { name: "Add phase" }).click()
    const phases = page.getByRole("table", { name: "Phases, in the order they apply" })
    await expect.poll(() => phases.getByRole("link", { name: "Staging" }).count()).toBe(1)
    await expect.poll(() => page.getByRole("heading", { name: "Draft mappings of Staging" }).count()).toBe(1)
    await phases.getByRole("button", { name: "Edit phase Staging" }).click()
    const edit = page.getByRole("region", { name: "Edit phase Staging" })
    await edit.getByLabel("Name").fill("Canary")
    await edit.getByRole("button", { name: "Save phase" }).click()
    await expect.poll(() => phases.getByRole("link", { name: "Canary" }).count()).toBe(1)

    await page.getByRole("button", { name: "Delete group…" }).click()
    const dialog = page.getByRole("dialog", { name: "Delete policy group “Scratch”?" })
    await dialog.getByRole("button", { name: "Delete group" }).click()
    await page.waitForURL(/\/policy-groups$/)
    await expect.poll(() => page.getByRole("table", { name: "Policy groups" }).getByRole("row").count()).toBeGreaterThan(1)
    expect(await page.getByRole("link", { name: "Scratch", exact: true }).count()).toBe(0)
    expect((await host.api("GET", `${org()}/policy-groups/${created.body.id}`)).status).toBe(404)
  })

  it("a Read Only user sees no write action, and the server refuses a forged one (403)", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly, "/policy-groups")
    await expect.poll(() => page.getByRole("table", { name: "Policy groups" }).getByRole("row").count()).toBeGreaterThan(3)
    expect(await page.getByRole("button", { name: "Create policy group" }).count()).toBe(0)
    await page.goto(`${host.url}${groupPath("Platform images", "Pinned")}`)
    await expect.poll(() => h1(page).textContent()).toBe("Platform images")
    await section(page, "Published mappings").waitFor()
    await expect.poll(() => page.getByText("No draft mappings in this phase").count()).toBe(1)
    for (const name of [/Publish/, /Sync now/, /^Edit/, /^Delete/, /Add phase/, /Add mapping/]) {
      expect(await page.getByRole("button", { name }).count(), String(name)).toBe(0)
    }
    expect(await page.getByRole("region", { name: "Add a mapping" }).count()).toBe(0)
    await checkAndShoot(page, "policy-group-read-only")
    const g = groups["Platform images"]!
    const phase = g.phases.find((p) => p.name === "Pinned")!
    const status = await page.evaluate(async (path) => {
      const session = await fetch("/api/v1/session").then((r) => r.json()) as { csrfToken: string }
      const response = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
        body: JSON.stringify({ fromImage: "node:18", toImage: "node:20.11.1" })
      })
      return response.status
    }, `${org()}/policy-groups/${g.id}/phases/${phase.id}/mappings`)
    expect(status).toBe(403)
    const drafts = await host.api("GET", `${org()}/policy-groups/${g.id}/phases/${phase.id}/mappings`, { key: apiKeys.readOnly })
    expect(drafts.body.items).toEqual([])
  })

  it("a group of 2,000 draft and 2,000 published mappings renders a bounded number of rows, filters and scrolls", async () => {
    const g = groups["Large"]!
    const phase = g.phases[0]!
    const path = `${org()}/policy-groups/${g.id}/phases/${phase.id}/mappings`
    const total = 2000
    const name = (i: number) => `registry.example.com/svc-${String(i).padStart(4, "0")}`
    let next = 0
    await Promise.all(Array.from({ length: 6 }, async () => {
      while (next < total) {
        const i = next++
        const r = await host.api("POST", path, { body: { fromImage: `${name(i)}:1`, toImage: `${name(i)}:2`, reason: `bulk ${i}` } })
        expect(r.status).toBe(201)
      }
    }))
    expect((await host.api("POST", `${org()}/policy-groups/${g.id}/publish`)).body.changes.created).toBe(total)
    // the API's order of the drafts: the list shows them in it
    let cursor: string | undefined
    let last = ""
    do {
      const page: { body: { items: Array<{ fromImage: string }>; nextCursor?: string } } = await host.api(
        "GET",
        `${path}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
      )
      last = page.body.items.at(-1)?.fromImage ?? last
      cursor = page.body.nextCursor
    } while (cursor !== undefined)

    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, groupPath("Large", "Bulk"))
    const drafts = list(page, "Draft mappings of Bulk")
    await expect.poll(() => page.getByText("2,000 draft mappings", { exact: true }).count(), { timeout: 30_000 }).toBe(1)
    await expect.poll(() => page.getByText("2,000 published mappings", { exact: true }).count()).toBe(1)
    const rows = drafts.getByRole("listitem")
    const rendered = await rows.count()
    expect(rendered).toBeGreaterThan(3)
    expect(rendered).toBeLessThan(60)
    expect(await list(page, "Published mappings").getByRole("listitem").count()).toBeLessThan(60)
    expect(await rows.first().getAttribute("aria-setsize")).toBe("2000")
    await checkAndShoot(page, "policy-group-2000")

    // the filter finds one mapping among 2,000
    const filter = page.getByRole("searchbox", { name: "Filter draft mappings" })
    await filter.fill("svc-1234")
    await expect.poll(() => page.getByText("1 of 2,000 draft mappings match").count()).toBe(1)
    expect(await rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain(`${name(1234)}:2`)
    await filter.fill("")
    await expect.poll(() => page.getByText("2,000 draft mappings", { exact: true }).count()).toBe(1)

    // scrolling reaches the last one, still with a bounded number of rows
    const started = Date.now()
    await drafts.evaluate((el) => el.scrollTo({ top: el.scrollHeight }))
    const lastRow = drafts.locator("li[aria-posinset='2000']")
    await lastRow.waitFor()
    await expect.poll(async () => {
      await drafts.evaluate((el) => el.scrollTo({ top: el.scrollHeight }))
      return lastRow.isVisible()
    }).toBe(true)
    expect(await lastRow.textContent()).toContain(last)
    expect(await rows.count()).toBeLessThan(60)
    expect(Date.now() - started).toBeLessThan(5_000)
  }, 240_000)
})
