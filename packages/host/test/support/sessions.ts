/**
 * Browser sessions in HTTP tests (issue 17): a seed with users (the harness's organizations plus
 * members with passwords), a cheap password KDF (the real parameters are the adapters' test's), and
 * signing in as a browser does, keeping the cookie and the CSRF token.
 */
import type { ScryptPasswordHasher } from "@image-policy/adapters"
import { afterAll, beforeAll, expect } from "vitest"
import { startTestHost, type TestHost, testSeed } from "./harness.js"
import type { MakeStore } from "./suites.js"

/** The KDF at a cost tests can afford on every sign-in (N = 2^10). */
export const cheapHashing: ScryptPasswordHasher.Parameters = { logCost: 10, blockSize: 8, parallelization: 1 }

export const passwords = {
  owner: "owner-password-123",
  reader: "reader-password-123",
  globex: "globex-password-123",
  small: "small-password-1234"
} as const

/** `testSeed` with users: an Owner and a Read Only member in Acme, the same email in Globex, an Owner in the team-edition org. */
export const sessionSeed = {
  organizations: testSeed.organizations.map((org) =>
    org.id === "org_acme"
      ? {
        ...org,
        users: [
          { email: "ada@acme.example", name: "Ada", role: "Owner", password: passwords.owner },
          { email: "rita@acme.example", name: "Rita", role: "Read Only", password: passwords.reader },
          { email: "nopass@acme.example", name: "No Password", role: "Owner" }
        ]
      }
      : org.id === "org_globex"
      ? { ...org, users: [{ email: "Ada@Acme.example", name: "Ada at Globex", role: "Owner", password: passwords.globex }] }
      : org.id === "org_free"
      ? { ...org, users: [{ email: "sam@small.example", role: "Owner", password: passwords.small }] }
      : org
  )
}

export interface Signed {
  /** `image_policy_session=...`, as a browser sends it back. */
  readonly cookie: string
  readonly csrf: string
  readonly body: any
  readonly setCookie: string
}

export const signIn = async (host: TestHost, email: string, password: string, extra: Record<string, unknown> = {}): Promise<Signed> => {
  const answer = await host.request("POST", "/api/v1/session", { key: null, body: { email, password, ...extra } })
  expect(answer.status, answer.text).toBe(200)
  const setCookie = answer.headers.get("set-cookie") ?? ""
  const cookie = setCookie.split(";")[0]!
  return { cookie, csrf: answer.body.csrfToken, body: answer.body, setCookie }
}

/** A request made with the session cookie (no API key); `csrf` adds the header. */
export const withCookie = (
  signed: Signed,
  options: { readonly csrf?: boolean; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
) => ({
  key: null,
  headers: { cookie: signed.cookie, ...(options.csrf === true ? { "x-csrf-token": signed.csrf } : {}), ...options.headers },
  ...(options.body !== undefined ? { body: options.body } : {})
})

/**
 * A host with the session seed and cheap password hashing on `makeStore`'s store, started before
 * the tests of the describe block this is called in and stopped after them.
 */
export const sessionHost = (makeStore: MakeStore): () => TestHost => {
  let running: TestHost | undefined
  beforeAll(async () => {
    running = await startTestHost({ store: makeStore(), seed: sessionSeed, services: { passwordHashing: cheapHashing } })
  })
  afterAll(async () => {
    await running?.stop()
  })
  return () => running!
}
