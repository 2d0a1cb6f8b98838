/**
 * Settings pages (issue 17 "Console" 6): API keys (create with a role and 90 days, the secret shown
 * once and copied, the key working against the API, revoked after a confirmation and then refused),
 * members and roles (add a member, change their role, a custom role), the organization (settings,
 * teams), a Read Only user who sees no write action and whose forged POST is refused, axe and
 * screenshots of each page at 1280x800 and 390x844.
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { axeCheck, type ConsoleHost, consoleSuite, phone, screenshots, signIn, type TestBrowser, users } from "./support/index.js"

describe("settings pages", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  consoleSuite({}, (started) => ({ host, browser } = started))

  const heading = (page: Page) => page.getByRole("heading", { level: 1 })
  const toast = (page: Page, text: string) => page.locator(".toasts").getByText(text).waitFor()
  const row = (page: Page, table: string, text: string | RegExp) =>
    page.getByRole("table", { name: table }).getByRole("row").filter({ hasText: text })

  it("API keys: create with a role and 90 days, copy the secret shown once, use it, revoke it with a confirmation", async () => {
    const page = await browser.newPage()
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: host.url })
    await signIn(page, host.url, users.owner, "/settings/api-keys")
    await expect.poll(() => heading(page).textContent()).toBe("API keys")
    await row(page, "API keys", "e2e owner").waitFor()

    await page.getByRole("button", { name: "Create API key" }).click()
    const form = page.getByRole("form", { name: "New API key" })
    // nothing typed: the fields in error say why, and focus lands on the first
    await form.getByRole("button", { name: "Create key" }).click()
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Some fields need a change")
    expect(await form.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("name")

    await form.getByLabel("Name").fill("CI pipeline")
    await form.getByLabel("Role", { exact: true }).selectOption({ label: "Policy Automation" })
    await expect.poll(() => form.getByText(/^Grants 8 permissions/).count()).toBe(1)
    expect(await form.getByLabel("Expires").inputValue()).toBe("90")
    // a custom expiry out of range is refused at the field, and what was typed stays
    await form.getByLabel("Expires").selectOption("custom")
    await form.getByLabel("Days until expiry").fill("400")
    await form.getByRole("button", { name: "Create key" }).click()
    await expect.poll(() => form.getByText("must be an integer from 1 to 365, or null for unlimited.").count()).toBe(1)
    expect(await form.getByLabel("Name").inputValue()).toBe("CI pipeline")
    await form.getByLabel("Expires").selectOption("90")
    await form.getByRole("button", { name: "Create key" }).click()

    const secretBox = page.getByRole("region", { name: /Secret of the new key “CI pipeline”/ })
    await secretBox.waitFor()
    expect(await secretBox.textContent()).toContain("cannot be shown again")
    const secret = await secretBox.getByRole("textbox").inputValue()
    expect(secret).toMatch(/^ipk_[A-Z0-9]{52}$/i)
    await secretBox.getByRole("button", { name: "Copy" }).click()
    await expect.poll(() => secretBox.getByRole("status").textContent()).toBe("Copied to the clipboard.")
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
    await screenshots(page, "settings-api-keys-secret")

    // the list shows the new key: role, expiry about 90 days away, never used, active
    const keyRow = row(page, "API keys", "CI pipeline")
    await keyRow.waitFor()
    expect(await keyRow.textContent()).toContain("Policy Automation")
    expect(await keyRow.textContent()).toContain("Never")
    expect(await keyRow.textContent()).toContain("Active")

    // the secret works against the API
    const teams = await host.api("GET", `/api/v1/org/${host.orgId}/teams`, { key: secret })
    expect(teams.status).toBe(200)

    // once dismissed, the secret is gone for good
    await secretBox.getByRole("button", { name: "I have copied it" }).click()
    await secretBox.waitFor({ state: "detached" })
    expect(await page.content()).not.toContain(secret)

    // after use: "Last used" has a time (reload the page)
    await page.reload()
    await row(page, "API keys", "CI pipeline").waitFor()
    expect(await row(page, "API keys", "CI pipeline").getByRole("cell").nth(3).textContent()).not.toBe("Never")

    // revoke: a confirmation first; Cancel keeps the key
    await row(page, "API keys", "CI pipeline").getByRole("button", { name: "Revoke CI pipeline" }).click()
    const dialog = page.getByRole("dialog", { name: "Revoke this API key?" })
    await dialog.waitFor()
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await dialog.waitFor({ state: "hidden" })
    expect(await row(page, "API keys", "CI pipeline").textContent()).toContain("Active")
    await row(page, "API keys", "CI pipeline").getByRole("button", { name: "Revoke CI pipeline" }).click()
    await dialog.waitFor()
    await dialog.getByRole("button", { name: "Revoke key" }).click()
    await toast(page, "API key “CI pipeline” revoked")
    await expect.poll(() => row(page, "API keys", "CI pipeline").textContent()).toContain("Revoked")
    expect(await row(page, "API keys", "CI pipeline").getByRole("button", { name: /Revoke/ }).count()).toBe(0)

    // and the secret is now refused
    const refused = await host.api("GET", `/api/v1/org/${host.orgId}/teams`, { key: secret })
    expect(refused.status).toBe(401)
  })

  it("API keys: explicit permissions and no expiry", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/settings/api-keys")
    await page.getByRole("button", { name: "Create API key" }).click()
    const form = page.getByRole("form", { name: "New API key" })
    await form.getByLabel("Name").fill("Audit exporter")
    await form.getByLabel("Explicit permissions").check()
    await form.getByRole("button", { name: "Create key" }).click()
    await expect.poll(() => form.getByText("Choose at least one permission.").count()).toBe(1)
    await form.getByRole("checkbox", { name: /Read the audit log/ }).check()
    await form.getByRole("checkbox", { name: /Read compliance reports/ }).check()
    await form.getByLabel("Expires").selectOption("unlimited")
    await form.getByRole("button", { name: "Create key" }).click()
    await page.getByRole("region", { name: /Secret of the new key “Audit exporter”/ }).waitFor()
    const keyRow = row(page, "API keys", "Audit exporter")
    await keyRow.waitFor()
    expect(await keyRow.textContent()).toContain("Explicit permissions")
    expect(await keyRow.textContent()).toContain("2 permissions")
    expect(await keyRow.getByRole("cell").nth(2).textContent()).toBe("Never")
  })

  it("Members and roles: add a member with a role, change their role, create a custom role and give it", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/settings/members")
    await expect.poll(() => heading(page).textContent()).toBe("Members and roles")
    await row(page, "Members", users.readOnly.email).waitFor()
    expect(await row(page, "Roles", /^Read Only/).textContent()).toContain("Built-in")

    // a custom role
    await page.getByRole("button", { name: "Create role" }).click()
    const roleForm = page.getByRole("form", { name: "Create a custom role" })
    await roleForm.getByLabel("Role name").fill("Snooze reviewer")
    await roleForm.getByRole("checkbox", { name: /Read snooze requests/ }).check()
    await roleForm.getByRole("checkbox", { name: /Approve or reject snoozes/ }).check()
    await roleForm.getByRole("button", { name: "Create role" }).click()
    await toast(page, "Role “Snooze reviewer” created")
    await expect.poll(() => row(page, "Roles", "Snooze reviewer").textContent()).toContain("2 permissions")

    // a name taken (built-in names included): the API's 409 shows, and the form keeps what was typed
    await page.getByRole("button", { name: "Create role" }).click()
    await roleForm.getByLabel("Role name").fill("owner")
    await roleForm.getByRole("checkbox", { name: /Read the audit log/ }).check()
    await roleForm.getByRole("button", { name: "Create role" }).click()
    await expect.poll(() => roleForm.getByRole("alert").textContent()).toMatch(/already exists/)
    expect(await roleForm.getByLabel("Role name").inputValue()).toBe("owner")
    await roleForm.getByRole("button", { name: "Cancel" }).click()

    // add a member
    await page.getByRole("button", { name: "Add member" }).click()
    const add = page.getByRole("form", { name: "Add a member" })
    await add.getByLabel("Email").fill("not-an-email")
    await add.getByLabel("Name").fill("Sam Security")
    await add.getByRole("button", { name: "Add member" }).click()
    await expect.poll(() => add.getByText("must be an email address (name@example.com).").count()).toBe(1)
    await add.getByLabel("Email").fill("sam@acme.test")
    await add.getByLabel("Role", { exact: true }).selectOption({ label: "Read Only" })
    await add.getByRole("button", { name: "Add member" }).click()
    await toast(page, "Sam Security added")
    await expect.poll(() => row(page, "Members", "sam@acme.test").textContent()).toContain("Read Only")

    // the same email again: the API's 409
    await page.getByRole("button", { name: "Add member" }).click()
    await add.getByLabel("Email").fill("SAM@acme.test")
    await add.getByLabel("Name").fill("Sam Again")
    await add.getByLabel("Role", { exact: true }).selectOption({ label: "Read Only" })
    await add.getByRole("button", { name: "Add member" }).click()
    await expect.poll(() => add.getByRole("alert").textContent()).toMatch(/already exists/)
    await add.getByRole("button", { name: "Cancel" }).click()

    // change their role to Security Administrator, then to the custom role
    await row(page, "Members", "sam@acme.test").getByRole("button", { name: "Edit Sam Security" }).click()
    const edit = page.getByRole("form", { name: "Edit Sam Security" })
    expect(await edit.getByLabel("Role", { exact: true }).inputValue()).toBe("Read Only")
    await edit.getByLabel("Role", { exact: true }).selectOption({ label: "Security Administrator" })
    await edit.getByRole("button", { name: "Save changes" }).click()
    await toast(page, "Sam Security updated")
    await expect.poll(() => row(page, "Members", "sam@acme.test").textContent()).toContain("Security Administrator")
    await row(page, "Members", "sam@acme.test").getByRole("button", { name: "Edit Sam Security" }).click()
    await edit.getByLabel("Role", { exact: true }).selectOption({ label: "Snooze reviewer" })
    await edit.getByRole("button", { name: "Save changes" }).click()
    await expect.poll(() => row(page, "Members", "sam@acme.test").textContent()).toContain("Snooze reviewer")

    // the role in use cannot be deleted: the API's 409 shows in the dialog
    await row(page, "Roles", "Snooze reviewer").getByRole("button", { name: "Delete role Snooze reviewer" }).click()
    const del = page.getByRole("dialog", { name: "Delete this role?" })
    await del.getByRole("button", { name: "Delete role" }).click()
    await expect.poll(() => del.getByRole("alert").textContent()).toMatch(/still held/)
    await del.getByRole("button", { name: "Cancel" }).click()

    // disable (with a confirmation) and enable
    await row(page, "Members", "sam@acme.test").getByRole("button", { name: "Disable Sam Security" }).click()
    await page.getByRole("dialog", { name: "Disable this member?" }).getByRole("button", { name: "Disable member" }).click()
    await expect.poll(() => row(page, "Members", "sam@acme.test").textContent()).toContain("Disabled")
    await row(page, "Members", "sam@acme.test").getByRole("button", { name: "Enable Sam Security" }).click()
    await expect.poll(() => row(page, "Members", "sam@acme.test").textContent()).toContain("Active")

    // the API agrees
    const members = await host.api("GET", `/api/v1/org/${host.orgId}/members`)
    const sam = members.body.items.find((m: { email: string }) => m.email === "sam@acme.test")
    expect(sam.role).toMatch(/^role_/)
    expect(sam.disabled).toBe(false)
  })

  it("Organization: change the cooldown and default team, add a team with a routine", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/settings/organization")
    await expect.poll(() => heading(page).textContent()).toBe("Organization")
    const settings = page.getByRole("form", { name: "Organization settings" })
    await settings.waitFor()
    expect(await settings.getByLabel("Default notification team").locator("option:checked").textContent()).toBe("Platform")
    await settings.getByLabel("Cooldown").fill("2")
    await settings.getByLabel("Unit").selectOption("hours")
    await settings.getByLabel("Default notification team").selectOption({ label: "Payments" })
    await settings.getByRole("button", { name: "Save settings" }).click()
    await toast(page, "Settings saved")
    const saved = await host.api("GET", `/api/v1/org/${host.orgId}/settings`)
    expect(saved.body.cooldownSeconds).toBe(7200)

    await page.getByRole("button", { name: "Add team" }).click()
    const teamForm = page.getByRole("form", { name: "Add a team" })
    await teamForm.getByLabel("Team name").fill("Data")
    await teamForm.getByRole("button", { name: "Add team" }).click()
    await toast(page, "Team “Data” added")
    await row(page, "Teams", "Data").getByRole("button", { name: "Add routine to Data" }).click()
    const routineForm = page.getByRole("form", { name: "Add a routine to Data" })
    await routineForm.getByLabel("Routine name").fill("Fortnightly")
    await routineForm.getByLabel("Interval in days").fill("14")
    await routineForm.getByRole("button", { name: "Add routine" }).click()
    await expect.poll(() => row(page, "Teams", "Data").textContent()).toContain("Fortnightly · every 14 days")

    // the team used as default notification team cannot be deleted: the API's 409 shows
    await row(page, "Teams", "Payments").getByRole("button", { name: "Delete Payments" }).click()
    const del = page.getByRole("dialog", { name: "Delete this team?" })
    await del.getByRole("button", { name: "Delete team" }).click()
    await expect.poll(() => del.getByRole("alert").textContent()).toMatch(/in use/)
    await del.getByRole("button", { name: "Cancel" }).click()

    // VCS connections: the seeded one, with its details
    await row(page, "VCS connections", "acme").getByRole("button", { name: "Manage acme" }).click()
    await expect.poll(() => page.getByRole("region", { name: "GitHub account acme" }).textContent()).toContain("Fixture data")
  })

  it("a Read Only user sees no write action, and a forged POST with the session cookie and CSRF token is refused", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly, "/settings/organization")
    await expect.poll(() => heading(page).textContent()).toBe("Organization")
    await row(page, "Teams", "Platform").waitFor()
    await row(page, "VCS connections", "acme").waitFor()
    const main = page.getByRole("main")
    expect(await main.getByRole("button", { name: /Save|Add|Delete|Rename|Connect|Manage|Edit|Switch|Replace/ }).count()).toBe(0)
    expect(await main.getByRole("form").count()).toBe(0)
    await screenshots(page, "settings-organization-read-only")
    const nav = page.getByRole("navigation", { name: "Main" })
    expect(await nav.getByRole("link", { name: "API keys" }).count()).toBe(0)
    expect(await nav.getByRole("link", { name: "Members and roles" }).count()).toBe(0)

    for (const path of ["/settings/api-keys", "/settings/members"]) {
      await page.goto(`${host.url}${path}`)
      await page.getByText(/Only members with the permission/).waitFor()
      expect(await main.getByRole("button").count(), path).toBe(0)
      expect(await main.getByRole("table").count(), path).toBe(0)
    }

    // forged: the session cookie, a right CSRF token and Origin, but not the permission
    const session = await page.request.get(`${host.url}/api/v1/session`)
    const { csrfToken } = await session.json()
    expect(typeof csrfToken).toBe("string")
    const headers = { "x-csrf-token": csrfToken, origin: host.url, "content-type": "application/json" }
    const forged = await page.request.post(`${host.url}/api/v1/org/${host.orgId}/api-keys`, {
      headers,
      data: { name: "forged", role: "Owner", expiresInDays: 30 }
    })
    expect(forged.status()).toBe(403)
    const forgedMember = await page.request.post(`${host.url}/api/v1/org/${host.orgId}/members`, {
      headers,
      data: { email: "mallory@acme.test", name: "Mallory", role: "Owner" }
    })
    expect(forgedMember.status()).toBe(403)
    const forgedSettings = await page.request.patch(`${host.url}/api/v1/org/${host.orgId}/settings`, {
      headers,
      data: { cooldownSeconds: 1 }
    })
    expect(forgedSettings.status()).toBe(403)
    const keys = await host.api("GET", `/api/v1/org/${host.orgId}/api-keys`)
    expect(keys.body.items.some((k: { name: string }) => k.name === "forged")).toBe(false)
  })

  const axePages = [
    ["/settings/api-keys", "API keys", "settings-api-keys", "Create API key"],
    ["/settings/members", "Members and roles", "settings-members", "Add member"],
    ["/settings/organization", "Organization", "settings-organization", "Add team"]
  ] as const
  for (const [path, title, name, button] of axePages) {
    it(`${title} passes axe at 1280x800 and 390x844 (list and open form), with screenshots`, async () => {
      const page = await browser.newPage()
      await signIn(page, host.url, users.owner, path)
      await expect.poll(() => heading(page).textContent()).toBe(title)
      await page.getByRole("table").first().waitFor()
      await axeCheck(page)
      await screenshots(page, name)
      // the open form too (radios, checkboxes, selects)
      await page.getByRole("button", { name: button }).click()
      await page.getByRole("form").last().waitFor()
      await page.setViewportSize(phone)
      await axeCheck(page)
      await screenshots(page, `${name}-form`)
    }, 240_000)
  }
})
