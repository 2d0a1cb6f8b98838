/**
 * The GitHub client against a local GitHub-shaped API (test/support/providerStubs.ts): listing
 * over three pages through `Link`, branches with the default flagged, file contents and versions,
 * the mapping of every error answer to a reason (never the token nor the provider's text). Answers
 * no store can hold are in vcs.github.unstorable.test.ts, branch file lists (git trees, truncated
 * ones walked) in vcs.github.files.test.ts, remediation pull requests in
 * vcs.github.remediation.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GitHub from "../src/vcs/GitHub.js"
import { api, assertClean, clientOf, errorOf, nowSeconds, token } from "./support/github.js"
import * as Stubs from "./support/providerStubs.js"
import { closedPort } from "./support/receiver.js"

describe("GitHub reads", () => {
  it.effect("lists every accessible repository across three pages by following Link rel=next", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: Stubs.manyRepositories(250) })
      const listed = yield* GitHub.listRepositories(clientOf(stub.baseUrl))
      assert.strictEqual(listed.length, 250)
      assert.deepStrictEqual(listed[0], { externalRepoId: "1000", fullName: "acme/repo-001", defaultBranch: "main" })
      assert.deepStrictEqual(listed[249], { externalRepoId: "1249", fullName: "acme/repo-250", defaultBranch: "main" })
      assert.strictEqual(new Set(listed.map((r) => r.externalRepoId)).size, 250)

      assert.strictEqual(stub.requests.length, 3)
      assert.deepStrictEqual(stub.requests.map((r) => r.query.get("page")), [null, "2", "3"])
      for (const request of stub.requests) {
        assert.strictEqual(request.method, "GET")
        assert.strictEqual(request.path, "/user/repos")
        assert.strictEqual(request.query.get("per_page"), "100")
        assert.strictEqual(request.headers["authorization"], `Bearer ${token}`)
        assert.strictEqual(request.headers["accept"], "application/vnd.github+json")
        assert.strictEqual(request.headers["x-github-api-version"], "2022-11-28")
        assert.isString(request.headers["user-agent"])
        assert.notInclude(request.url, token)
      }
    }))

  it.effect("lists branches over several pages and flags the default branch; asks for the repository only when the default is unknown", () =>
    Effect.gen(function*() {
      const many = Stubs.repository(8, "acme/many", { defaultBranch: "b3", branches: ["b1", "b2", "b3", "b4", "b5"] })
      const stub = yield* Stubs.github({ token, repositories: [api, many], maxPerPage: 2 })
      const client = clientOf(stub.baseUrl)

      const branches = yield* GitHub.listBranches(client, { fullName: "acme/many" })
      assert.deepStrictEqual(branches, [
        { name: "b1", isDefault: false },
        { name: "b2", isDefault: false },
        { name: "b3", isDefault: true },
        { name: "b4", isDefault: false },
        { name: "b5", isDefault: false }
      ])
      assert.strictEqual(stub.count("/repos/acme/many"), 1)
      assert.strictEqual(stub.count("/repos/acme/many/branches"), 3)

      const known = yield* GitHub.listBranches(client, { fullName: "acme/api", defaultBranch: "main" })
      assert.deepStrictEqual(known.filter((b) => b.isDefault).map((b) => b.name), ["main"])
      assert.deepStrictEqual(known.map((b) => b.name), ["main", "release", "feature/x"])
      assert.strictEqual(stub.count("/repos/acme/api"), 0)

      assert.strictEqual(
        (yield* errorOf(GitHub.listBranches(client, { fullName: "acme/nope", defaultBranch: "main" }))).reason,
        "not-found"
      )
      const before = stub.requests.length
      assert.strictEqual((yield* errorOf(GitHub.listBranches(client, { fullName: "not-a-full-name" }))).reason, "not-found")
      assert.strictEqual((yield* errorOf(GitHub.listBranches(client, { fullName: "acme/../x" }))).reason, "not-found")
      assert.strictEqual(stub.requests.length, before)
    }))

  it.effect("reads a file at a branch head: its text and git blob sha; a missing file is None, an unknown branch not-found", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const client = clientOf(stub.baseUrl)
      const read = (branch: string, path: string) => GitHub.readFile(client, { fullName: "acme/api", branch, path })

      assert.deepStrictEqual(
        yield* read("main", "Dockerfile"),
        Option.some({ content: "FROM node:20\n", version: Stubs.gitBlobSha("FROM node:20\n") })
      )
      assert.deepStrictEqual(
        yield* read("release", "Dockerfile"),
        Option.some({ content: "FROM node:18\n", version: Stubs.gitBlobSha("FROM node:18\n") })
      )
      const nested = yield* read("main", "deploy/service-mappings.json")
      assert.strictEqual(Option.getOrThrow(nested).content, "{\"mappings\":[]}\n")
      const unicode = yield* read("main", "docs/ü ñ.md")
      assert.strictEqual(Option.getOrThrow(unicode).content, "héllo ✓ 🚀\n")
      assert.include(stub.requests.at(-1)!.url, "/contents/docs/%C3%BC%20%C3%B1.md?ref=main")

      assert.isTrue(Option.isNone(yield* read("main", "missing.txt")))
      assert.isTrue(Option.isNone(yield* read("release", "deploy/service-mappings.json")))
      // a directory is not a file
      assert.isTrue(Option.isNone(yield* read("main", "deploy")))
      assert.strictEqual((yield* errorOf(read("no-such-branch", "Dockerfile"))).reason, "not-found")
      assert.strictEqual(stub.requests.find((r) => r.query.get("ref") === "feature/x"), undefined)
      yield* read("feature/x", "Dockerfile")
      assert.strictEqual(stub.requests.at(-1)!.query.get("ref"), "feature/x")

      // a path that could climb out of the repository is never sent
      const before = stub.requests.length
      assert.isTrue(Option.isNone(yield* read("main", "../../user/repos")))
      assert.isTrue(Option.isNone(yield* read("main", "a//b")))
      assert.strictEqual(stub.requests.length, before)
    }))

  it.effect("reads a file over 1 MB through the git blobs API", () =>
    Effect.gen(function*() {
      const big = "x".repeat(2_000) + "\n"
      const repo = Stubs.repository(9, "acme/big", { files: { main: { "big.txt": big } } })
      const stub = yield* Stubs.github({ token, repositories: [repo], largeFileBytes: 1_000 })
      const file = yield* GitHub.readFile(clientOf(stub.baseUrl), { fullName: "acme/big", branch: "main", path: "big.txt" })
      assert.deepStrictEqual(file, Option.some({ content: big, version: Stubs.gitBlobSha(big) }))
      assert.strictEqual(stub.count(`/repos/acme/big/git/blobs/${Stubs.gitBlobSha(big)}`), 1)
    }))

  it.effect("works at a base URL with a trailing slash", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const listed = yield* GitHub.listRepositories(clientOf(`${stub.baseUrl}/`))
      assert.deepStrictEqual(listed.map((r) => r.fullName), ["acme/api"])
      assert.strictEqual(stub.requests[0]!.path, "/user/repos")
    }))

  it("refuses a base URL that is not an absolute http(s) URL", () => {
    for (const baseUrl of ["", "api.github.com", "ftp://x/api", "https://user:pw@api.github.com", "https://api.github.com/?x=1"]) {
      assert.isUndefined(GitHub.client({ baseUrl, token }))
    }
  })
})

describe("GitHub errors", () => {
  const cases: ReadonlyArray<readonly [string, Stubs.StubAnswer, Partial<VcsProviderError>]> = [
    ["401", { status: 401, body: { message: "Bad credentials" } }, { reason: "unauthorized" }],
    ["403 Bad credentials", { status: 403, body: { message: "Bad credentials" } }, { reason: "unauthorized" }],
    ["403 without a rate limit", { status: 403, body: { message: "Resource not accessible by integration" } }, { reason: "unauthorized" }],
    ["404", { status: 404, body: { message: "Not Found" } }, { reason: "not-found" }],
    [
      "403 primary rate limit",
      {
        status: 403,
        headers: { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSeconds + 120) },
        body: { message: "API rate limit exceeded" }
      },
      { reason: "rate-limited", retryAfterSeconds: 120 }
    ],
    ["429 with retry-after", { status: 429, headers: { "retry-after": "30" } }, { reason: "rate-limited", retryAfterSeconds: 30 }],
    [
      "403 secondary rate limit with retry-after",
      {
        status: 403,
        headers: { "retry-after": "45", "x-ratelimit-remaining": "4000" },
        body: { message: "You have exceeded a secondary rate limit" }
      },
      { reason: "rate-limited", retryAfterSeconds: 45 }
    ],
    [
      "403 secondary rate limit without headers",
      { status: 403, body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes" } },
      { reason: "rate-limited", retryAfterSeconds: 60 }
    ],
    ["500", { status: 500, body: { message: "Server Error" } }, { reason: "unavailable" }],
    ["502 with HTML", { status: 502, body: "<html>Bad gateway</html>" }, { reason: "unavailable" }],
    ["200 with a body of the wrong shape", { status: 200, body: { not: "an array" } }, { reason: "unavailable" }],
    ["304 without a location", { status: 304 }, { reason: "unavailable" }]
  ]

  for (const [name, answer, expected] of cases) {
    it.effect(`${name} -> ${expected.reason}`, () =>
      Effect.gen(function*() {
        const stub = yield* Stubs.github({ token, repositories: [api] })
        stub.failNext(answer)
        const error = yield* errorOf(GitHub.listRepositories(clientOf(stub.baseUrl)))
        assert.instanceOf(error, VcsProviderError)
        assert.strictEqual(error.reason, expected.reason)
        assert.strictEqual(error.retryAfterSeconds, expected.retryAfterSeconds)
        assertClean(error)
      }))
  }

  it.effect("a wrong token is unauthorized and the token never appears in the error", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token: "the-right-token", repositories: [api] })
      const error = yield* errorOf(GitHub.listRepositories(clientOf(stub.baseUrl)))
      assert.strictEqual(error.reason, "unauthorized")
      assertClean(error)
      assert.strictEqual(stub.requests[0]!.headers["authorization"], `Bearer ${token}`)
      assert.notInclude(stub.requests[0]!.url, token)
    }))

  it.effect("a rate limit on a later page fails the whole listing", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: Stubs.manyRepositories(250) })
      stub.setOverride((r) =>
        r.query.get("page") === "3"
          ? { status: 429, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSeconds + 600) } }
          : undefined
      )
      const error = yield* errorOf(GitHub.listRepositories(clientOf(stub.baseUrl)))
      assert.deepStrictEqual([error.reason, error.retryAfterSeconds], ["rate-limited", 600])
    }))

  it.effect("nothing listening is unavailable", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(closedPort)
      const error = yield* errorOf(GitHub.listRepositories(clientOf(`http://127.0.0.1:${port}/api/v3`)))
      assert.strictEqual(error.reason, "unavailable")
      assertClean(error)
    }))

  it.live("a provider that never answers is unavailable after the per-request time limit", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      stub.setOverride(() => "hang")
      const started = Date.now()
      const error = yield* errorOf(GitHub.listRepositories(clientOf(stub.baseUrl, { timeoutMs: 200 })))
      assert.strictEqual(error.reason, "unavailable")
      assert.isBelow(Date.now() - started, 5_000)
    }))

  it.effect("never follows a pagination link or a redirect to another origin (the token stays home)", () =>
    Effect.gen(function*() {
      const elsewhere = yield* Stubs.github({ token, repositories: [api] })
      const stub = yield* Stubs.github({ token, repositories: [api] })
      stub.setOverride(() => ({ status: 200, headers: { link: `<${elsewhere.baseUrl}/user/repos?page=2>; rel="next"` }, body: [] }))
      assert.strictEqual((yield* errorOf(GitHub.listRepositories(clientOf(stub.baseUrl)))).reason, "unavailable")
      stub.setOverride(() => ({ status: 302, headers: { location: `${elsewhere.baseUrl}/user/repos` } }))
      assert.strictEqual((yield* errorOf(GitHub.listRepositories(clientOf(stub.baseUrl)))).reason, "unavailable")
      assert.strictEqual(elsewhere.requests.length, 0)
    }))

  it.effect("follows a same-origin redirect (a renamed repository)", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      stub.setOverride((r) =>
        r.path === "/repos/acme/old" ? { status: 301, headers: { location: `${stub.baseUrl}/repos/acme/api` } } : undefined
      )
      const repo = yield* GitHub.getRepository(clientOf(stub.baseUrl), "acme/old")
      assert.deepStrictEqual(repo, { externalRepoId: "7", fullName: "acme/api", defaultBranch: "main" })
      assert.strictEqual(stub.requests[1]!.headers["authorization"], `Bearer ${token}`)
    }))
})
