/**
 * The production `VcsProvider` (Providers.ts): which provider serves a connection's stored settings,
 * what is not configured, and provider tokens sealed in the store. Time is the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { VcsProvider, type VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as AesGcmSecretBox from "../src/crypto/AesGcmSecretBox.js"
import * as Fixture from "../src/vcs/Fixture.js"
import * as Providers from "../src/vcs/Providers.js"
import * as Stubs from "./support/providerStubs.js"

import { api, apiSettings, contextOf, env, token } from "./support/providers.js"

describe("dispatch and configuration", () => {
  it.effect("fixture settings are served by the injected fixture provider, whose files can change", () =>
    Effect.gen(function*() {
      const fixture = Fixture.make()
      const vcs = Providers.make({ env, fixture: fixture.provider })
      const ctx = contextOf({
        kind: "fixture",
        repositories: [{
          externalRepoId: "1001",
          fullName: "acme/api",
          defaultBranch: "main",
          branches: ["main"],
          files: { main: { "Dockerfile": "FROM a\n" } }
        }]
      })
      assert.deepStrictEqual(yield* vcs.listRepositories(ctx, { refresh: false }), [{
        externalRepoId: "1001",
        fullName: "acme/api",
        defaultBranch: "main"
      }])
      assert.deepStrictEqual(yield* vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" }), [{
        name: "main",
        isDefault: true
      }])
      fixture.files.setFile({
        orgId: ctx.orgId,
        vcsConnectionId: ctx.connection.id,
        fullName: "acme/api",
        branch: "main",
        path: "Dockerfile"
      }, "FROM b\n")
      const file = yield* vcs.readFile(ctx, { fullName: "acme/api", branch: "main", path: "Dockerfile" })
      assert.strictEqual(Option.getOrThrow(file).content, "FROM b\n")
      assert.deepStrictEqual((yield* vcs.listFiles(ctx, { fullName: "acme/api", branch: "main" })).paths, ["Dockerfile"])
      const opened = yield* vcs.openRemediation(ctx, {
        fullName: "acme/api",
        baseBranch: "main",
        headBranch: "image-policy/remediate/main",
        title: "t",
        body: "b",
        commitMessage: "m",
        files: [{ path: "Dockerfile", content: "FROM c\n", previousVersion: Option.getOrThrow(file).version }]
      })
      assert.deepStrictEqual(opened, { number: 1, url: "https://fixture.invalid/acme/api/pull/1", created: true })
      assert.deepStrictEqual(fixture.remediations("acme/api").map((r) => r.files), [[{ path: "Dockerfile", content: "FROM c\n" }]])
    }))

  it.effect("GitHub or GitLab by the connection's provider", () =>
    Effect.gen(function*() {
      const github = yield* Stubs.github({ token, repositories: [api] })
      const gitlab = yield* Stubs.gitlab({ token, repositories: [Stubs.repository(70, "group/sub/api")] })
      const vcs = Providers.make({ env })
      const fromGitHub = yield* vcs.listRepositories(contextOf(apiSettings(github.baseUrl)), { refresh: false })
      const fromGitLab = yield* vcs.listRepositories(
        contextOf(apiSettings(gitlab.baseUrl, "GITLAB_TOKEN"), { provider: "gitlab", connectionId: "vcs_gl" }),
        { refresh: false }
      )
      assert.deepStrictEqual(fromGitHub.map((r) => r.fullName), ["acme/api"])
      assert.deepStrictEqual(fromGitLab.map((r) => r.fullName), ["group/sub/api"])
      assert.strictEqual(github.requests[0]!.headers["authorization"], `Bearer ${token}`)
      assert.strictEqual(gitlab.requests[0]!.headers["private-token"], token)
    }))

  it.effect("a missing or empty token variable, unreadable settings or an unusable base URL are not-configured, and nothing is sent", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const vcs = Providers.make({ env })
      for (
        const settings of [
          apiSettings(stub.baseUrl, "UNSET_TOKEN"),
          apiSettings(stub.baseUrl, "EMPTY_TOKEN"),
          apiSettings("not a url"),
          apiSettings("file:///etc/passwd"),
          { kind: "api", baseUrl: stub.baseUrl },
          { kind: "other" },
          null
        ]
      ) {
        const ctx = contextOf(settings)
        for (
          const call of [
            vcs.listRepositories(ctx, { refresh: true }),
            vcs.listBranches(ctx, { fullName: "acme/api", defaultBranch: "main" }),
            vcs.readFile(ctx, { fullName: "acme/api", branch: "main", path: "Dockerfile" }),
            vcs.listFiles(ctx, { fullName: "acme/api", branch: "main" }),
            vcs.openRemediation(ctx, {
              fullName: "acme/api",
              baseBranch: "main",
              headBranch: "fix",
              title: "t",
              body: "b",
              commitMessage: "m",
              files: [{ path: "Dockerfile", content: "x", previousVersion: "y" }]
            })
          ]
        ) {
          assert.strictEqual((yield* Effect.flip(call as Effect.Effect<unknown, { reason: string }>)).reason, "not-configured")
        }
      }
      assert.strictEqual(stub.requests.length, 0)
    }))

  it.effect("the layer provides the VcsProvider; an unauthorized token is reported without the token", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token: "another-token", repositories: [api] })
      const error = yield* Effect.flip(
        Effect.flatMap(VcsProvider, (vcs) => vcs.listRepositories(contextOf(apiSettings(stub.baseUrl)), { refresh: false })).pipe(
          Effect.provide(Providers.layer({ env, fetch: (url, init) => globalThis.fetch(url, init) }))
        )
      )
      assert.strictEqual(error.reason, "unauthorized")
      assert.notInclude(JSON.stringify(error), token)
      assert.notInclude(String(error), token)
      assert.notInclude(stub.requests[0]!.url, token)
    }))

  it.effect("the default environment reader is process.env", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const name = "IMAGE_POLICY_TEST_VCS_TOKEN"
      process.env[name] = token
      yield* Effect.addFinalizer(() => Effect.sync(() => delete process.env[name]))
      const listed = yield* Providers.make().listRepositories(contextOf(apiSettings(stub.baseUrl, name)), { refresh: false })
      assert.strictEqual(listed.length, 1)
    }))
})

describe("a token sealed in the store (sealedToken)", () => {
  const boxOf = (base64Key: string) => Effect.orDie(AesGcmSecretBox.make(Result.getOrThrow(AesGcmSecretBox.decodeKey(base64Key))))
  const sealedSettings = (baseUrl: string, sealedToken: string) => ({ kind: "api", baseUrl, sealedToken })

  /** Log lines (message and annotations) written while `effect` runs. */
  const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const logger = Logger.make(({ fiber, message }) => {
        lines.push(JSON.stringify({ message, annotations: fiber.getRef(References.CurrentLogAnnotations) }))
      })
      const result = yield* Effect.result(effect.pipe(Effect.provide(Logger.layer([logger]))))
      return { result, lines }
    })

  it.effect("is opened with the given SecretBox and sent as the credential; GitHub and GitLab", () =>
    Effect.gen(function*() {
      const box = yield* boxOf(AesGcmSecretBox.generateKey())
      const sealed = yield* box.seal(token)
      const github = yield* Stubs.github({ token, repositories: [api] })
      const gitlab = yield* Stubs.gitlab({ token, repositories: [Stubs.repository(70, "group/sub/api")] })
      // no variable holds the token: only the sealed value can have given it
      const vcs = Providers.make({ env: () => undefined, secretBox: box })
      const fromGitHub = yield* vcs.listRepositories(contextOf(sealedSettings(github.baseUrl, sealed)), { refresh: false })
      const fromGitLab = yield* vcs.listRepositories(
        contextOf(sealedSettings(gitlab.baseUrl, sealed), { provider: "gitlab", connectionId: "vcs_gl" }),
        { refresh: false }
      )
      assert.deepStrictEqual(fromGitHub.map((r) => r.fullName), ["acme/api"])
      assert.deepStrictEqual(fromGitLab.map((r) => r.fullName), ["group/sub/api"])
      assert.strictEqual(github.requests[0]!.headers["authorization"], `Bearer ${token}`)
      assert.strictEqual(gitlab.requests[0]!.headers["private-token"], token)
      // the repository cache (keyed by the sealed text) still answers without the provider
      for (let i = 0; i < 10; i++) yield* vcs.listRepositories(contextOf(sealedSettings(github.baseUrl, sealed)), { refresh: false })
      assert.strictEqual(github.count("/user/repos"), 1)
    }))

  it.effect("without a SecretBox in the options, the calling fiber's SecretBox opens it; the sealed token wins over tokenEnv", () =>
    Effect.gen(function*() {
      const key = AesGcmSecretBox.generateKey()
      const box = yield* boxOf(key)
      const sealed = yield* box.seal(token)
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const vcs = Providers.make({ env: (name) => name === "WRONG_TOKEN" ? "not-the-token" : undefined })
      const listed = yield* vcs.listRepositories(contextOf({ ...sealedSettings(stub.baseUrl, sealed), tokenEnv: "WRONG_TOKEN" }), {
        refresh: false
      }).pipe(
        Effect.provide(AesGcmSecretBox.layerFromKey(key))
      )
      assert.strictEqual(listed.length, 1)
      assert.strictEqual(stub.requests[0]!.headers["authorization"], `Bearer ${token}`)
    }))

  it.effect("that cannot be opened (another key, a damaged value, no SecretBox) is not-configured, logged without the value, and nothing is sent", () =>
    Effect.gen(function*() {
      const sealed = yield* Effect.flatMap(boxOf(AesGcmSecretBox.generateKey()), (box) => box.seal(token))
      const otherBox = yield* boxOf(AesGcmSecretBox.generateKey())
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const cases = [
        { vcs: Providers.make({ env, secretBox: otherBox }), sealedToken: sealed, reason: "sealed-token-decrypt-failed" },
        { vcs: Providers.make({ env, secretBox: otherBox }), sealedToken: "v1.not-sealed", reason: "sealed-token-malformed" },
        { vcs: Providers.make({ env }), sealedToken: sealed, reason: "no-secret-box" }
      ]
      for (const { reason, sealedToken, vcs } of cases) {
        const ctx = contextOf(sealedSettings(stub.baseUrl, sealedToken))
        for (
          const call of [
            vcs.listRepositories(ctx, { refresh: true }),
            vcs.readFile(ctx, { fullName: "acme/api", branch: "main", path: "Dockerfile" })
          ]
        ) {
          const { lines, result } = yield* logged(call as Effect.Effect<unknown, VcsProviderError>)
          assert.isTrue(result._tag === "Failure" && result.failure.reason === "not-configured")
          assert.strictEqual(lines.length, 1)
          assert.include(lines[0]!, reason)
          assert.include(lines[0]!, ctx.connection.id)
          for (const secret of [token, sealed, sealedToken]) assert.notInclude(lines[0]!, secret)
          if (result._tag === "Failure") assert.notInclude(JSON.stringify(result.failure) + String(result.failure), token)
        }
      }
      assert.strictEqual(stub.requests.length, 0)
    }))
})
