/**
 * Signing in and out of the console (issue 17 "Console" 1, "Tests"): right and wrong password,
 * throttling shown with its wait, sign out, back to the page asked for, axe on the sign-in page and
 * the signed-in shell at 1280x800 and 390x844, and the cookie refused without its CSRF token.
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { toApiError } from "../src/problem.js"
import { axeCheck, type ConsoleHost, consoleSuite, desktop, phone, screenshots, signIn, type TestBrowser, users } from "./support/index.js"

describe("sign-in", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  consoleSuite({}, (started) => ({ host, browser } = started))

  const fillAndSubmit = async (page: Page, email: string, password: string) => {
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Sign in" }).click()
  }

  it("a signed-out visit to a page shows the sign-in page, which passes axe at both sizes", async () => {
    const page = await browser.newPage()
    await page.goto(`${host.url}/settings/api-keys`)
    await page.waitForURL(/\/sign-in\?next=%2Fsettings%2Fapi-keys$/)
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in")
    expect(await page.title()).toBe("Sign in · image-policy")
    await axeCheck(page)
    await page.setViewportSize(phone)
    await axeCheck(page)
    await page.setViewportSize(desktop)
    await screenshots(page, "sign-in")
  })

  it("a wrong password is refused with one message, and what was typed stays", async () => {
    const page = await browser.newPage()
    await page.goto(`${host.url}/sign-in`)
    await fillAndSubmit(page, users.owner.email, "not-the-password")
    const alert = page.getByRole("alert")
    await expect.poll(() => alert.textContent()).toBe("Wrong email or password.")
    expect(await page.getByLabel("Email").inputValue()).toBe(users.owner.email)
    expect(new URL(page.url()).pathname).toBe("/sign-in")
    // an unknown email reads the same (no account discovery)
    await fillAndSubmit(page, "nobody@acme.test", "not-the-password")
    await expect.poll(() => alert.textContent()).toBe("Wrong email or password.")
    await screenshots(page, "sign-in-wrong-password")
  })

  it("the right password leads to the page asked for, with the user and Sign out in the banner", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/settings/api-keys")
    expect(new URL(page.url()).pathname).toBe("/settings/api-keys")
    const banner = page.getByRole("banner")
    expect(await banner.textContent()).toContain(users.owner.name)
    expect(await banner.textContent()).toContain("Acme")
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("API keys")
  })

  it("the signed-in shell: landmarks, skip link, navigation, and a phone menu; axe at both sizes", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner)
    const nav = page.getByRole("navigation", { name: "Main" })
    for (const name of ["Overview", "Policy groups", "Repositories", "Snooze requests", "Webhooks", "Audit log", "API keys"]) {
      expect(await nav.getByRole("link", { name, exact: true }).count(), name).toBe(1)
    }
    expect(await page.getByRole("main").count()).toBe(1)
    // the skip link is the first stop of the keyboard and moves focus to the main content
    await page.keyboard.press("Tab")
    const skip = page.getByRole("link", { name: "Skip to main content" })
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true)
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main")
    // a navigation moves focus to the new page's heading (announced by screen readers)
    await nav.getByRole("link", { name: "Webhooks" }).click()
    await page.waitForURL(/\/webhooks$/)
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Webhooks")
    expect(await nav.getByRole("link", { name: "Webhooks" }).getAttribute("aria-current")).toBe("page")
    await axeCheck(page)
    await screenshots(page, "shell")

    await page.setViewportSize(phone)
    expect(await nav.isVisible()).toBe(false)
    const menu = page.getByRole("button", { name: "Menu" })
    expect(await menu.getAttribute("aria-expanded")).toBe("false")
    await menu.click()
    expect(await menu.getAttribute("aria-expanded")).toBe("true")
    expect(await nav.isVisible()).toBe(true)
    await axeCheck(page)
    await screenshots(page, "shell-phone-menu")
    await nav.getByRole("link", { name: "Audit log" }).click()
    await page.waitForURL(/\/audit-log$/)
    expect(await nav.isVisible()).toBe(false)
  })

  it("a Read Only user sees only the pages they may read", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly)
    const nav = page.getByRole("navigation", { name: "Main" })
    expect(await nav.getByRole("link", { name: "Audit log" }).count()).toBe(1)
    for (const name of ["Webhooks", "API keys", "Members and roles"]) expect(await nav.getByRole("link", { name }).count(), name).toBe(0)
  })

  it("sign out ends the session: back to sign-in, and the pages ask to sign in again", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/policy-groups")
    await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(/\/sign-in$/)
    const who = await page.evaluate(() => fetch("/api/v1/session").then((r) => r.status))
    expect(who).toBe(401)
    await page.goto(`${host.url}/policy-groups`)
    await page.waitForURL(/\/sign-in\?next=%2Fpolicy-groups$/)
  })

  it("a request with the session cookie but without the CSRF token is refused (403); with it, it passes", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner)
    const path = `/api/v1/org/${host.orgId}/teams`
    const attempt = (token: string | null) =>
      page.evaluate(async ({ path, token }) => {
        const headers: Record<string, string> = { "content-type": "application/json" }
        if (token !== null) headers["x-csrf-token"] = token
        const response = await fetch(path, {
          method: "POST",
          headers,
          body: JSON.stringify({ name: `Team ${token === null ? "forged" : "real"}` })
        })
        return response.status
      }, { path, token })
    expect(await attempt(null)).toBe(403)
    expect(await attempt("not-the-token")).toBe(403)
    const token = await page.evaluate(() => fetch("/api/v1/session").then((r) => r.json()).then((s: { csrfToken: string }) => s.csrfToken))
    expect(await attempt(token)).toBe(201)
    // the forged request left nothing behind
    const teams = await host.api("GET", `${path}?limit=200`)
    const names = (teams.body.items as Array<{ name: string }>).map((t) => t.name)
    expect(names).toContain("Team real")
    expect(names).not.toContain("Team forged")
  })

  it("the server's field errors land on the form's fields (problem JSON -> ApiError)", async () => {
    const refused = await host.api("POST", `/api/v1/org/${host.orgId}/teams`, { body: { name: "" } })
    expect(refused.status).toBe(400)
    const error = toApiError(refused.body, refused.status)
    expect(error.detail).not.toBe("")
    expect(Object.keys(error.fieldErrors)).toEqual(["name"])
    const unknown = await host.api("POST", `/api/v1/org/${host.orgId}/teams`, { body: { name: "Ops", colour: "red" } })
    expect(Object.keys(toApiError(unknown.body, unknown.status).fieldErrors)).toEqual(["colour"])
  })

  it("repeated wrong passwords are throttled, and the page says how long to wait", async () => {
    const page = await browser.newPage()
    await page.goto(`${host.url}/sign-in`)
    const alert = page.getByRole("alert")
    let text = ""
    for (let i = 0; i < 30 && !text.startsWith("Too many"); i++) {
      await fillAndSubmit(page, users.readOnly.email, `wrong-${i}`)
      await page.getByRole("button", { name: "Sign in" }).waitFor()
      await expect.poll(() => alert.textContent()).toMatch(/^(Wrong email or password\.|Too many.*)$/)
      text = (await alert.textContent()) ?? ""
    }
    expect(text).toMatch(/^Too many sign-in attempts\. Try again in \d+ (seconds?|minutes?)\.$/)
    await screenshots(page, "sign-in-throttled")
    // the right password is refused too while the account is throttled
    await fillAndSubmit(page, users.readOnly.email, users.readOnly.password)
    await expect.poll(() => alert.textContent()).toMatch(/^Too many sign-in attempts/)
  })
})

describe("session expiry", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  const idleMs = 4_000
  consoleSuite({ app: { sessionLifetimes: { idleMs, maxAgeMs: 3_600_000 } } }, (started) => ({ host, browser } = started))

  it("an idle session ends: back to sign-in, which says why, then to the page the user was on", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/snooze-requests")
    await page.waitForURL(/\/sign-in\?next=%2Fsnooze-requests&expired=1$/, { timeout: idleMs + 20_000 })
    await expect.poll(() => page.getByRole("status").filter({ hasText: "session has ended" }).count()).toBe(1)
    await screenshots(page, "sign-in-session-ended")
    await page.getByLabel("Email").fill(users.owner.email)
    await page.getByLabel("Password").fill(users.owner.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(/\/snooze-requests$/)
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Snooze requests")
  })
})
