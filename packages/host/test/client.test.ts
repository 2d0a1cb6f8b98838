/**
 * The typed client of `@image-policy/client` (issue 17) against a real host: calls made from the one
 * `Api` definition decode the server's answers, and refusals arrive as the declared `Problem`.
 */
import { ApiClient, Problem } from "@image-policy/client"
import { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"

describe("typed client (@image-policy/client)", () => {
  let host: TestHost
  beforeAll(async () => {
    host = await startTestHost()
  })
  afterAll(() => host?.stop())

  it("creates, lists and revokes an API key with an API key", async () => {
    const orgId = Id.OrgId.make(host.org.id)
    const run = Effect.gen(function*() {
      const api = yield* ApiClient.makeFetch({ baseUrl: host.url, apiKey: secrets.owner })
      const created = yield* api.apiKeys.createApiKey({
        params: { orgId },
        payload: { name: "from the client", role: "Read Only", expiresInDays: 30 }
      })
      const page = yield* api.apiKeys.listApiKeys({ params: { orgId }, query: { limit: 200 } })
      yield* api.apiKeys.revokeApiKey({ params: { orgId, keyId: created.id } })
      return { created, names: page.items.map((key) => key.name) }
    })
    const { created, names } = await Effect.runPromise(run)
    expect(created.secret.length).toBeGreaterThanOrEqual(32)
    expect(names).toContain("from the client")
  })

  it("a refused call decodes into the declared Problem", async () => {
    const run = Effect.gen(function*() {
      const api = yield* ApiClient.makeFetch({ baseUrl: host.url, apiKey: "not-a-key-0123456789abcdefghijklmnopqr" })
      return yield* Effect.flip(api.apiKeys.listApiKeys({ params: { orgId: Id.OrgId.make(host.org.id) }, query: { limit: 10 } }))
    })
    const problem = await Effect.runPromise(run)
    expect(problem).toBeInstanceOf(Problem)
    expect((problem as Problem).status).toBe(401)
  })
})
