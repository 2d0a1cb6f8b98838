/**
 * The typed client of `@image-policy/client` (issue 17) against a real host: calls made from the one
 * `Api` definition decode the server's answers, and refusals arrive as the declared `Problem`.
 */
import { ApiClient, Problem } from "@image-policy/client"
import { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { cheapHashing, passwords, sessionSeed } from "./support/sessions.js"

describe("typed client (@image-policy/client)", () => {
  let host: TestHost
  beforeAll(async () => {
    host = await startTestHost({ seed: sessionSeed, services: { passwordHashing: cheapHashing } })
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

  it("signs in, calls organization routes with the cookie and the CSRF token, and signs out (the console's way)", async () => {
    // what a browser does for the console: keep the cookie the server sets, send it back
    let cookie: string | undefined
    let csrf: string | undefined
    const browser = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client: HttpClient.HttpClient) =>
        client.pipe(
          HttpClient.mapRequest((request) => cookie === undefined ? request : HttpClientRequest.setHeader(request, "cookie", cookie)),
          HttpClient.tap((response) =>
            Effect.sync(() => {
              const set = response.headers["set-cookie"]
              if (set !== undefined) cookie = String(set).split(";")[0]
            })
          )
        ))
    ).pipe(Layer.provide(FetchHttpClient.layer))
    const orgId = Id.OrgId.make("org_acme")
    const run = Effect.gen(function*() {
      const api = yield* ApiClient.make({ baseUrl: host.url, csrfToken: () => csrf })
      const session = yield* api.session.signIn({ payload: { email: "ada@acme.example", password: passwords.owner } })
      csrf = session.csrfToken
      const me = yield* api.session.getSession()
      const team = yield* api.teams.createTeam({ params: { orgId }, payload: { name: "made in the console" } })
      const teams = yield* api.organization.listTeams({ params: { orgId }, query: { limit: 200 } })
      yield* api.session.signOut()
      const after = yield* Effect.flip(api.session.getSession())
      return { session, me, team, names: teams.items.map((t) => t.name), after }
    }).pipe(Effect.provide(browser))
    const { after, me, names, session, team } = await Effect.runPromise(run)
    expect(session.user.email).toBe("ada@acme.example")
    expect(me.user.id).toBe(session.user.id)
    expect(team.name).toBe("made in the console")
    expect(names).toContain("made in the console")
    expect((after as Problem).status).toBe(401)
  })
})
