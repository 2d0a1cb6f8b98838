/**
 * The Webhooks page end to end (issue 17, page 7 and "Tests"): an Owner creates a generic
 * destination pointed at a local receiver that answers 500, sees the signing secret once, sends a
 * test delivery, sees the failed attempts and the dead letter (on the destination and across the
 * organization), replays it once the receiver answers 204 and sees it delivered, with a signature
 * valid under the secret shown (standardwebhooks); rotates the secret (the next delivery verifies
 * under the new secret only) and deletes the destination. A chat destination with a team scope and
 * an audience team; the API's field errors shown at the field with what was typed kept; a Read Only
 * user sees no write action and a forged request is refused; axe and screenshots at both sizes.
 *
 * The host delivers with the retry schedule `IMAGE_POLICY_WEBHOOK_RETRY_SCHEDULE="1,1"` would give
 * (parsed by the same function), so three failed attempts become a dead letter in about 2 s; the
 * harness already allows loopback and plain-HTTP targets (`IMAGE_POLICY_ALLOW_UNSAFE_WEBHOOK_TARGETS`).
 * Secrets and endpoint URLs are read from the page and compared, never printed: assertions on
 * them are booleans, and no screenshot is taken while a secret or a typed URL is on screen.
 */
import { DeliveryPolicy } from "@image-policy/core"
import * as Result from "effect/Result"
import type { Page } from "playwright-core"
import { Webhook as Verifier } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  axeCheck,
  type ConsoleHost,
  consoleSuite,
  phone,
  type Receiver,
  screenshots,
  signIn,
  startReceiver,
  type TestBrowser,
  users
} from "./support/index.js"

const retrySchedule = Result.getOrThrow(DeliveryPolicy.parseRetrySchedule("1,1"))

/** True when `secret` verifies the request (never prints either). */
const verifies = (secret: string, request: { readonly body: string; readonly headers: Record<string, unknown> }): boolean => {
  try {
    new Verifier(secret).verify(request.body, request.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

/** The value of the secret shown once (the read-only field of the SecretOnce section). */
const readSecret = async (page: Page, title: string): Promise<string> => {
  const section = page.getByRole("region", { name: title })
  await section.waitFor()
  await expect.poll(() => section.textContent()).toContain("cannot be shown again")
  return section.getByRole("textbox", { name: title }).inputValue()
}

describe("webhooks page", () => {
  let host: ConsoleHost
  let browser: TestBrowser
  let receiver: Receiver
  consoleSuite({ deliveryWorker: { schedule: retrySchedule } }, (started) => ({ host, browser } = started))
  beforeAll(async () => {
    receiver = await startReceiver(500)
  })
  afterAll(async () => {
    await receiver?.close()
  })

  it("an Owner creates a generic destination, sees a dead letter from a receiver answering 500, replays it, rotates the secret and deletes it", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.owner, "/webhooks")
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Webhooks")
    await page.getByText("No destinations yet").waitFor()

    // the form checks what the API checks: nothing filled in -> errors at the fields, focus on the first
    await page.getByRole("button", { name: "Create destination" }).click()
    const form = page.getByRole("form", { name: "New webhook destination" })
    await form.getByRole("group", { name: "Policy groups and mappings" }).waitFor()
    await form.getByRole("button", { name: "Create destination" }).click()
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Some fields need attention")
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("name")
    expect(await form.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    await form.getByText("Choose at least one event.").waitFor()
    await axeCheck(page)
    await screenshots(page, "webhooks-create")

    // the API refuses an endpoint that is not a URL: the message at the field, what was typed kept
    await form.getByLabel("Name").fill("Policy bot")
    await form.getByLabel("Endpoint URL").fill("not a url")
    await form.getByRole("group", { name: "Policy groups and mappings" }).getByRole("checkbox", { name: /^All/ }).check()
    await form.getByRole("checkbox", { name: /webhook\.test/ }).check()
    await form.getByRole("button", { name: "Create destination" }).click()
    const endpointField = form.getByLabel("Endpoint URL")
    await expect.poll(() => endpointField.getAttribute("aria-invalid")).toBe("true")
    expect(await form.getByLabel("Name").inputValue()).toBe("Policy bot")
    expect(await form.getByRole("checkbox", { name: /policy_group\.published/ }).isChecked()).toBe(true)

    await endpointField.fill(receiver.url)
    await form.getByRole("button", { name: "Create destination" }).click()
    const secret = await readSecret(page, "Signing secret of Policy bot")
    expect(secret.startsWith("whsec_")).toBe(true)
    await page.getByRole("button", { name: "I have copied it" }).click()
    await page.getByRole("region", { name: "Signing secret of Policy bot" }).waitFor({ state: "detached" })

    // the row: type, masked endpoint (never the URL), scope, audience, events, enabled
    const row = page.getByRole("row").filter({ hasText: "Policy bot" })
    await row.waitFor()
    const rowText = (await row.textContent()) ?? ""
    expect(rowText).toContain("Generic")
    expect(rowText).toContain("Organization")
    expect(rowText).toContain("Enabled")
    expect(rowText).toContain("6 events")
    expect(rowText.includes(receiver.url)).toBe(false)
    expect(rowText.includes("…")).toBe(true)

    // a test delivery: three attempts answered 500, then a dead letter
    await row.getByRole("button", { name: "Send test delivery to Policy bot" }).click()
    await page.getByText("Test delivery queued").waitFor()
    await row.getByRole("link", { name: "Policy bot" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/webhooks\/[^/]+$/)
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Policy bot")
    const deliveries = page.getByRole("table", { name: "Deliveries of this destination" })
    const delivery = deliveries.getByRole("row").filter({ hasText: "webhook.test" })
    await expect.poll(() => delivery.textContent(), { timeout: 30_000 }).toContain("Dead letter")
    expect(await delivery.textContent()).toContain("HTTP 500")
    expect(receiver.received.length).toBe(3)
    await delivery.getByText("3 attempts").click()
    await expect.poll(() => delivery.getByRole("listitem").count()).toBe(3)
    await axeCheck(page)
    await screenshots(page, "webhooks-detail")

    // the organization's failing deliveries name it too
    await page.getByRole("link", { name: "← All webhooks" }).click()
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Webhooks")
    const failing = page.getByRole("table", { name: "Failing deliveries of the organization" })
    const failingRow = failing.getByRole("row").filter({ hasText: "Policy bot" })
    await expect.poll(() => failingRow.textContent()).toContain("Dead letter")
    expect(await failingRow.textContent()).toContain("HTTP 500")
    await axeCheck(page)
    await screenshots(page, "webhooks")
    await page.setViewportSize(phone)
    await axeCheck(page)
    await page.setViewportSize({ width: 1280, height: 800 })

    // the receiver recovers; Replay sends the dead letter again with the same CloudEvent id
    receiver.setStatus(204)
    await page.getByRole("link", { name: "Policy bot" }).first().click()
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Policy bot")
    await delivery.getByRole("button", { name: /^Replay/ }).click()
    await page.getByText("Replay queued").waitFor()
    await expect.poll(() => delivery.textContent(), { timeout: 30_000 }).toContain("Delivered")
    expect(receiver.received.length).toBe(4)
    const replayed = receiver.received[3]!
    expect(replayed.headers["webhook-id"]).toBe(receiver.received[0]!.headers["webhook-id"])
    expect(verifies(secret, replayed)).toBe(true)
    expect(JSON.parse(replayed.body).type).toBe("service.webhook.test")

    // rotate: the new secret shown once; the next delivery verifies under it and not under the old one
    await page.getByRole("button", { name: "Rotate secret" }).click()
    const rotateDialog = page.getByRole("dialog", { name: "Rotate the signing secret of Policy bot?" })
    await rotateDialog.getByRole("button", { name: "Rotate secret" }).click()
    const rotatedAt = Date.now()
    const newSecret = await readSecret(page, "New signing secret of Policy bot")
    expect(newSecret.startsWith("whsec_")).toBe(true)
    expect(newSecret === secret).toBe(false)
    await page.getByRole("button", { name: "I have copied it" }).click()
    // docs/webhooks.md: a change applies to every attempt that starts at least 1 s after it
    // (a worker reuses its read of a destination for up to a second)
    await new Promise((r) => setTimeout(r, Math.max(0, rotatedAt + 1100 - Date.now())))
    await page.getByRole("button", { name: "Send test" }).click()
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(5)
    const afterRotation = receiver.received[4]!
    expect(verifies(newSecret, afterRotation)).toBe(true)
    expect(verifies(secret, afterRotation)).toBe(false)

    // replace the endpoint: a refused URL is named at the field and kept; a good one changes the preview
    const before = (await page.locator(".webhook-details").textContent()) ?? ""
    await page.getByRole("button", { name: "Replace endpoint" }).click()
    const endpointDialog = page.getByRole("dialog", { name: "Replace the endpoint of Policy bot" })
    const newUrl = endpointDialog.getByLabel("New endpoint URL")
    await newUrl.fill("not a url")
    await endpointDialog.getByRole("button", { name: "Replace endpoint" }).click()
    await expect.poll(() => newUrl.getAttribute("aria-invalid")).toBe("true")
    expect(await newUrl.inputValue()).toBe("not a url")
    await newUrl.fill(`${receiver.url}?v=2`)
    await endpointDialog.getByRole("button", { name: "Replace endpoint" }).click()
    await page.getByText("Endpoint replaced").waitFor()
    await expect.poll(async () => ((await page.locator(".webhook-details").textContent()) ?? "") !== before).toBe(true)
    expect(((await page.locator(".webhook-details").textContent()) ?? "").includes("?v=2")).toBe(false)

    // delete, confirmed: back to the list, which no longer has it
    await page.getByRole("button", { name: "Delete" }).click()
    await page.getByRole("dialog", { name: "Delete Policy bot?" }).getByRole("button", { name: "Delete destination" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/webhooks")
    await page.getByText("No destinations yet").waitFor()
    const listed = await host.api("GET", `/api/v1/org/${host.orgId}/webhooks`)
    expect(listed.body.items).toEqual([])
  })

  it("a chat destination scoped to a team, with an audience team, shows no secret and names both teams", async () => {
    const page = await browser.newPage(phone)
    await signIn(page, host.url, users.owner, "/webhooks")
    await page.getByRole("button", { name: "Create destination" }).click()
    const form = page.getByRole("form", { name: "New webhook destination" })
    await form.getByLabel("Name").fill("Payments channel")
    await form.getByRole("radio", { name: /^Chat/ }).check()
    await form.getByLabel("Chat platform").selectOption("teams")
    await form.getByLabel("Endpoint URL").fill(receiver.url)
    await form.getByLabel("Scope", { exact: true }).selectOption("team")
    // a team scope without its team: refused at the field before anything is sent
    await form.getByRole("group", { name: "Snooze requests" }).getByRole("checkbox", { name: /^All/ }).check()
    await form.getByRole("button", { name: "Create destination" }).click()
    await expect.poll(() => form.getByLabel("Scope team").getAttribute("aria-invalid")).toBe("true")
    await form.getByLabel("Scope team").selectOption({ label: "Payments" })
    await form.getByLabel("Audience team").selectOption({ label: "Platform" })
    await form.getByRole("button", { name: "Create destination" }).click()
    await page.getByText("Payments channel created").waitFor()
    expect(await page.getByRole("region", { name: /signing secret/i }).count()).toBe(0)
    const row = page.getByRole("row").filter({ hasText: "Payments channel" })
    await expect.poll(() => row.textContent()).toContain("Chat: Microsoft Teams")
    const text = (await row.textContent()) ?? ""
    expect(text).toContain("Team: Payments")
    expect(text).toContain("Platform")
    expect(text).toContain("4 events")
    // no signing secret to rotate on a chat destination
    expect(await row.getByRole("button", { name: /Rotate/ }).count()).toBe(0)
  })

  it("a Read Only user sees no write action, and the server refuses a forged create", async () => {
    const page = await browser.newPage()
    await signIn(page, host.url, users.readOnly, "/webhooks")
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Webhooks")
    await page.getByText("managed by the Owner and Security Administrator roles").waitFor()
    expect(await page.getByRole("main").getByRole("button").count()).toBe(0)
    expect(await page.getByRole("navigation").getByRole("link", { name: "Webhooks" }).count()).toBe(0)
    await axeCheck(page)
    await screenshots(page, "webhooks-read-only")

    // with the reader's own cookie and CSRF token: 403, nothing created
    const status = await page.evaluate(async (orgId) => {
      const session = await (await fetch("/api/v1/session")).json() as { csrfToken: string }
      const response = await fetch(`/api/v1/org/${orgId}/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
        body: JSON.stringify({
          name: "forged",
          type: "generic",
          endpointUrl: "https://hooks.example.com/x",
          scope: { kind: "organization" },
          events: ["service.webhook.test"]
        })
      })
      return response.status
    }, host.orgId)
    expect(status).toBe(403)
    const listed = await host.api("GET", `/api/v1/org/${host.orgId}/webhooks`)
    expect(listed.body.items.some((w: { name: string }) => w.name === "forged")).toBe(false)
  })
})
