/**
 * Passwords in the console (docs/sessions.md): an administrator resets a member's password on
 * Members and roles (shown once), the member signs in with it, and changes it under Your account
 * (the current one checked at its field, the new one twice), which signs them out with a notice.
 */
import { describe, expect, it } from "vitest"
import {
  apiKeys,
  axeCheck,
  type ConsoleHost,
  consoleSuite,
  desktop,
  phone,
  screenshots,
  signIn,
  type TestBrowser,
  users
} from "./support/index.js"

describe("your account and passwords", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  consoleSuite({}, (started) => ({ host, browser } = started))

  it("an administrator resets a member's password, shown once; the member signs in with it and changes it", async () => {
    // a member added without a password (as Add member does) cannot sign in until one is set
    const created = await fetch(`${host.url}/api/v1/org/org_acme/members`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKeys.owner },
      body: JSON.stringify({ email: "nia@acme.test", name: "Nia New", role: "Read Only" })
    })
    expect(created.status).toBe(201)

    const admin = await browser.newPage()
    await signIn(admin, host.url, users.owner, "/settings/members")
    await admin.getByRole("button", { name: "Reset password of Nia New" }).click()
    const dialog = admin.getByRole("dialog", { name: "Reset this member's password?" })
    await dialog.getByRole("button", { name: "Reset password" }).click()
    const secret = admin.getByRole("textbox", { name: "New password of Nia New" })
    await secret.waitFor()
    const password = await secret.inputValue()
    expect(password).toMatch(/^[0-9a-f]{24}$/)
    expect(await admin.getByText("This secret is shown only once").count()).toBe(1)
    await screenshots(admin, "members-password-reset")
    await admin.getByRole("button", { name: "I have copied it" }).click()
    expect(await secret.count()).toBe(0)

    const nia = { email: "nia@acme.test", password }
    const page = await browser.newPage()
    await signIn(page, host.url, nia)
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Your account" }).click()
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Your account")
    expect(await page.getByRole("main").textContent()).toContain("nia@acme.test")
    await axeCheck(page)
    await page.setViewportSize(phone)
    await axeCheck(page)
    await page.setViewportSize(desktop)

    const form = page.getByRole("form", { name: "Change your password" })
    const next = "nias-own-password-2026"
    // the server checks the current password, and says so at its field; what was typed stays
    await form.getByLabel("Current password").fill("not-my-password")
    await form.getByLabel(/^New password\W*$/).fill(next)
    await form.getByLabel("New password again").fill(next)
    await form.getByRole("button", { name: "Change password" }).click()
    const current = form.getByLabel("Current password")
    await expect.poll(() => current.getAttribute("aria-invalid")).toBe("true")
    expect(await form.textContent()).toContain("is not your current password")
    expect(await form.getByLabel(/^New password\W*$/).inputValue()).toBe(next)
    // the two new ones must match before anything is sent
    await current.fill(password)
    await form.getByLabel("New password again").fill("something-else-entirely")
    await form.getByRole("button", { name: "Change password" }).click()
    await expect.poll(() => form.getByLabel("New password again").getAttribute("aria-invalid")).toBe("true")
    await screenshots(page, "account-password-error")

    await form.getByLabel("New password again").fill(next)
    await form.getByRole("button", { name: "Change password" }).click()
    await page.waitForURL(/\/sign-in\?password-changed=1$/)
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Your password was changed")
    await signIn(page, host.url, { email: nia.email, password: next })
    expect(new URL(page.url()).pathname).toBe("/")
  })
})
