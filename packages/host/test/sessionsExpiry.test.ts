/**
 * Sessions end on time and sign-ins are throttled (issue 17; docs/sessions.md): idle and absolute
 * expiry on a host whose clock the test moves (support/clock.ts), the idle end moving on with use,
 * 429 with Retry-After per account and per client address, and the Secure cookie of an https public URL.
 */
import { afterEach, describe, expect, it } from "vitest"
import { shiftedClock } from "./support/clock.js"
import { startTestHost, type TestHost } from "./support/harness.js"
import { cheapHashing, passwords, sessionSeed, signIn, withCookie } from "./support/sessions.js"
import { expectJson, expectProblem } from "./support/suites.js"

const minute = 60_000

describe("session expiry, sign-in throttling, Secure cookie", () => {
  let running: TestHost | undefined
  afterEach(async () => {
    await running?.stop()
    running = undefined
  })
  const start = async (options: Parameters<typeof startTestHost>[0] = {}) => {
    running = await startTestHost({ seed: sessionSeed, services: { passwordHashing: cheapHashing }, ...options })
    return running
  }

  it("idle expiry: each use (recorded at most once a minute) moves the idle end; unused past it, the session is gone", async () => {
    const time = shiftedClock()
    const host = await start({ clock: time.clock, app: { sessionLifetimes: { idleMs: 5 * minute, maxAgeMs: 60 * minute } } })
    const signed = await signIn(host, "ada@acme.example", passwords.owner)
    expect(Date.parse(signed.body.idleExpiresAt) - Date.parse(signed.body.expiresAt)).toBe(-55 * minute)
    for (let i = 0; i < 4; i++) {
      time.advance(4 * minute)
      const me = expectJson(await host.request("GET", "/api/v1/session", withCookie(signed)), 200)
      expect(Date.parse(me.idleExpiresAt)).toBeGreaterThan(time.now() + 4 * minute)
      expectJson(await host.request("GET", "/api/v1/org/org_acme/teams", withCookie(signed)), 200)
    }
    time.advance(5 * minute + 1_000)
    expectProblem(await host.request("GET", "/api/v1/session", withCookie(signed)), 401, { type: "/problems/not-signed-in" })
    expectProblem(await host.request("GET", "/api/v1/org/org_acme/teams", withCookie(signed)), 401)
  })

  it("absolute expiry: a session in constant use still ends at its max age; a new sign-in works", async () => {
    const time = shiftedClock()
    const host = await start({ clock: time.clock, app: { sessionLifetimes: { idleMs: 5 * minute, maxAgeMs: 12 * minute } } })
    const signed = await signIn(host, "rita@acme.example", passwords.reader)
    for (let elapsed = 0; elapsed + 3 * minute < 12 * minute; elapsed += 3 * minute) {
      time.advance(3 * minute)
      expectJson(await host.request("GET", "/api/v1/session", withCookie(signed)), 200)
    }
    time.advance(3 * minute)
    expectProblem(await host.request("GET", "/api/v1/session", withCookie(signed)), 401)
    expectJson(await host.request("GET", "/api/v1/session", withCookie(await signIn(host, "rita@acme.example", passwords.reader))), 200)
  })

  it("throttles refused sign-ins per account: 429 with Retry-After, even for the right password, until the window passes", async () => {
    const time = shiftedClock()
    const host = await start({ clock: time.clock })
    const attempt = (password: string) =>
      host.request("POST", "/api/v1/session", { key: null, body: { email: "Rita@acme.example", password } })
    for (let i = 0; i < 5; i++) expectProblem(await attempt(`wrong-password-${i}`), 401)
    const refused = expectProblem(await attempt(passwords.reader), 429, { type: "/problems/sign-in-throttled" })
    const retryAfter = Number((await attempt(passwords.reader)).headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(14 * 60)
    expect(retryAfter).toBeLessThanOrEqual(15 * 60)
    expect(refused.retryAfterSeconds ?? retryAfter).toBeGreaterThan(0)
    // another account from the same address is not locked by this one
    await signIn(host, "ada@acme.example", passwords.owner)
    time.advance(15 * minute + 1_000)
    await signIn(host, "rita@acme.example", passwords.reader)
  })

  it("throttles refused sign-ins per client address, whatever the email (unknown ones too)", async () => {
    const host = await start()
    for (let i = 0; i < 20; i++) {
      expectProblem(
        await host.request("POST", "/api/v1/session", { key: null, body: { email: `nobody${i}@x.example`, password: "p" } }),
        401
      )
    }
    const answer = await host.request("POST", "/api/v1/session", {
      key: null,
      body: { email: "ada@acme.example", password: passwords.owner }
    })
    expectProblem(answer, 429)
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0)
  })

  it("with an https public URL the cookie is Secure, and only that origin may send unsafe requests", async () => {
    const host = await start({ app: { publicUrl: "https://console.example.com" } })
    const signed = await signIn(host, "ada@acme.example", passwords.owner)
    expect(signed.setCookie).toMatch(/; Secure/i)
    expect(signed.setCookie).toMatch(/; HttpOnly/i)
    const body = { name: "from the console" }
    expectProblem(
      await host.request("POST", "/api/v1/org/org_acme/teams", withCookie(signed, { csrf: true, body, headers: { origin: host.url } })),
      403,
      { type: "/problems/csrf" }
    )
    expectJson(
      await host.request(
        "POST",
        "/api/v1/org/org_acme/teams",
        withCookie(signed, { csrf: true, body, headers: { origin: "https://console.example.com" } })
      ),
      201
    )
  })
})
