/**
 * What the GitHub client tests share (vcs.github*.test.ts): a token, a fixed clock, a client of a
 * stub's base URL, the acme/api repository, and the check that no error carries the token nor the
 * provider's text.
 */
import { assert } from "@effect/vitest"
import { VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as GitHub from "../../src/vcs/GitHub.js"
import * as ProviderHttp from "../../src/vcs/ProviderHttp.js"
import * as Stubs from "./providerStubs.js"

export const token = "ghp_TESTTOKEN0123456789abcdefghijklmnop"
export const now = Date.parse("2030-06-01T12:00:00Z")
export const nowSeconds = Math.floor(now / 1000)

export const clientOf = (baseUrl: string, options: Partial<ProviderHttp.ClientOptions> = {}) => {
  const client = GitHub.client({ baseUrl, token, now: () => now, ...options })
  assert.isDefined(client)
  return client!
}

export const api = Stubs.repository(7, "acme/api", {
  branches: ["main", "release", "feature/x"],
  files: {
    main: { "Dockerfile": "FROM node:20\n", "deploy/service-mappings.json": "{\"mappings\":[]}\n", "docs/ü ñ.md": "héllo ✓ 🚀\n" },
    release: { "Dockerfile": "FROM node:18\n" }
  }
})

export const errorOf = <A>(effect: Effect.Effect<A, VcsProviderError>) => Effect.flip(effect)

/** Neither the token nor any provider text ends up in an error. */
export const assertClean = (error: unknown) => {
  for (const text of [String(error), JSON.stringify(error), (error as Error).message ?? ""]) {
    assert.notInclude(text, token)
    assert.notInclude(text, "Bad credentials")
    assert.notInclude(text, "127.0.0.1")
  }
}
