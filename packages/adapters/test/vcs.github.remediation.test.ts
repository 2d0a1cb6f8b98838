/**
 * The GitHub client's remediation pull requests (openRemediation): one commit through the Git Data
 * API, the open pull request updated, not duplicated.
 */
import { assert, describe, it } from "@effect/vitest"
import { type RemediationWrite, VcsWriteRejected } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GitHub from "../src/vcs/GitHub.js"
import * as ProviderHttp from "../src/vcs/ProviderHttp.js"
import { assertClean, clientOf, nowSeconds, token } from "./support/github.js"
import * as Stubs from "./support/providerStubs.js"

describe("GitHub remediation pull requests (openRemediation)", () => {
  const files = {
    "Dockerfile": "FROM node:20\n",
    "deploy/api/Dockerfile": "FROM node:20 AS build\r\nFROM nginx:1.25\r\n",
    "deploy/api/run.sh": "#!/bin/sh\n",
    "README.md": "# api\n"
  }
  const setup = Effect.gen(function*() {
    const repo = Stubs.repository(7, "acme/api", { files: { main: { ...files } }, modes: { "deploy/api/Dockerfile": "100755" } })
    const stub = yield* Stubs.github({ token, repositories: [repo] })
    return { repo, stub, client: clientOf(stub.baseUrl) }
  })
  const write = (overrides: Partial<RemediationWrite> = {}): RemediationWrite => ({
    fullName: "acme/api",
    baseBranch: "main",
    headBranch: "image-policy/remediate/main",
    title: "Update container images on main",
    body: "- Dockerfile:1 node:20 -> node:22",
    commitMessage: "Update container images on main",
    files: [
      { path: "Dockerfile", content: "FROM node:22\n", previousVersion: Stubs.gitBlobSha(files["Dockerfile"]) },
      {
        path: "deploy/api/Dockerfile",
        content: "FROM node:22 AS build\r\nFROM nginx:1.25\r\n",
        previousVersion: Stubs.gitBlobSha(files["deploy/api/Dockerfile"])
      }
    ],
    ...overrides
  })
  const writesOf = (stub: Stubs.Stub) => stub.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)

  it.effect("opens one pull request whose head is the base head plus one commit of every file (modes kept)", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      const baseSha = repo.branches.get("main")!
      const opened = yield* GitHub.openRemediation(client, write())
      assert.deepStrictEqual(opened, { number: 42, url: "https://github.example/acme/api/pull/42", created: true })

      // no blob request: the contents travel inline in the one tree request
      assert.deepStrictEqual(writesOf(stub), [
        "POST /repos/acme/api/git/trees",
        "POST /repos/acme/api/git/commits",
        "POST /repos/acme/api/git/refs",
        "POST /repos/acme/api/pulls"
      ])
      // every request: the base head, its root tree, the two directories on the paths, then the writes
      assert.deepStrictEqual(stub.requests.map((r) => `${r.method} ${r.path.replace(/\/[0-9a-f]{40}$/, "/{sha}")}`), [
        "GET /repos/acme/api/git/ref/heads/main",
        "GET /repos/acme/api/git/trees/{sha}",
        "GET /repos/acme/api/git/trees/{sha}",
        "GET /repos/acme/api/git/trees/{sha}",
        "POST /repos/acme/api/git/trees",
        "POST /repos/acme/api/git/commits",
        "GET /repos/acme/api/git/ref/heads/image-policy/remediate/main",
        "POST /repos/acme/api/git/refs",
        "GET /repos/acme/api/pulls",
        "POST /repos/acme/api/pulls"
      ])
      const treeBody = stub.requests.find((r) => r.method === "POST" && r.path.endsWith("/git/trees"))!.body as {
        base_tree: string
        tree: ReadonlyArray<Record<string, unknown>>
      }
      const rootTree = stub.requests.find((r) => r.method === "GET" && r.path === `/repos/acme/api/git/trees/${baseSha}`)!
      assert.isNull(rootTree.query.get("recursive"))
      assert.deepStrictEqual(treeBody.tree, [
        { path: "Dockerfile", mode: "100644", type: "blob", content: "FROM node:22\n" },
        { path: "deploy/api/Dockerfile", mode: "100755", type: "blob", content: "FROM node:22 AS build\r\nFROM nginx:1.25\r\n" }
      ])
      const commitBody = stub.requests.find((r) => r.path.endsWith("/git/commits"))!.body
      assert.deepStrictEqual((commitBody as { parents: unknown }).parents, [baseSha])
      assert.strictEqual((commitBody as { message: string }).message, "Update container images on main")
      assert.deepStrictEqual(stub.requests.find((r) => r.path.endsWith("/pulls") && r.method === "POST")!.body, {
        title: "Update container images on main",
        head: "image-policy/remediate/main",
        base: "main",
        body: "- Dockerfile:1 node:20 -> node:22"
      })

      // the head branch: the base's files with the two changes, byte for byte; the base is untouched
      assert.deepStrictEqual(Object.fromEntries(repo.files.get("image-policy/remediate/main")!), {
        ...files,
        "Dockerfile": "FROM node:22\n",
        "deploy/api/Dockerfile": "FROM node:22 AS build\r\nFROM nginx:1.25\r\n"
      })
      assert.deepStrictEqual(Object.fromEntries(repo.files.get("main")!), files)
      assert.strictEqual(repo.branches.get("main"), baseSha)
      assert.deepStrictEqual(stub.pullRequests.map((p) => [p.number, p.head, p.base, p.state]), [[
        42,
        "image-policy/remediate/main",
        "main",
        "open"
      ]])
    }))

  it.effect("inline contents keep every byte: CRLF, a byte-order mark, non-ASCII; the head's blob ids are git's ids of those bytes", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      const texts = {
        "Dockerfile": "\uFEFFFROM node:22\r\n# héllo ✓ 🚀 \u00a0\u202e\r\n",
        "deploy/api/Dockerfile": "FROM node:22 AS build\r\nFROM nginx:1.25\r\n\u0000\t\\\"end"
      }
      yield* GitHub.openRemediation(
        client,
        write({
          files: Object.entries(texts).map(([path, content]) => ({
            path,
            content,
            previousVersion: Stubs.gitBlobSha(files[path as keyof typeof files])
          }))
        })
      )
      const sent = stub.requests.find((r) => r.method === "POST" && r.path.endsWith("/git/trees"))!.body as {
        tree: ReadonlyArray<{ content: string }>
      }
      assert.deepStrictEqual(sent.tree.map((e) => e.content), Object.values(texts))
      for (const [path, content] of Object.entries(texts)) {
        const head = yield* GitHub.readFile(client, { fullName: "acme/api", branch: "image-policy/remediate/main", path })
        // the head holds exactly the bytes the base64 blob used to carry, and a later run reads their blob id
        const stored = repo.files.get("image-policy/remediate/main")!.get(path)!
        assert.strictEqual(Buffer.from(stored, "utf8").toString("base64"), ProviderHttp.encodeBase64Text(content))
        assert.strictEqual(Option.getOrThrow(head).version, Stubs.gitBlobSha(content))
      }
    }))

  it.effect("a lone surrogate goes inline as U+FFFD, the character UTF-8 encoding makes of it", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      yield* GitHub.openRemediation(
        client,
        write({
          files: [{
            path: "Dockerfile",
            content: "FROM node:22\n# \ud800 \udc00 🚀\n",
            previousVersion: Stubs.gitBlobSha(files["Dockerfile"])
          }]
        })
      )
      const sent = stub.requests.find((r) => r.method === "POST" && r.path.endsWith("/git/trees"))!.body as {
        tree: ReadonlyArray<{ content: string }>
      }
      assert.strictEqual(sent.tree[0]!.content, "FROM node:22\n# \uFFFD \uFFFD 🚀\n")
      assert.strictEqual(repo.files.get("image-policy/remediate/main")!.get("Dockerfile"), "FROM node:22\n# \uFFFD \uFFFD 🚀\n")
    }))

  it.effect("a second run updates the open pull request (no duplicate) and force-moves its branch to the new base head plus the new changes", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      yield* GitHub.openRemediation(client, write())
      // the base moves on; the second run changes only the Dockerfile
      repo.files.get("main")!.set("README.md", "# api v2\n")
      repo.branches.set("main", Stubs.sha1("main v2"))
      const before = stub.requests.length
      const second = yield* GitHub.openRemediation(
        client,
        write({
          title: "Update container images on main (2)",
          body: "- Dockerfile:1 node:20 -> node:23",
          files: [{ path: "Dockerfile", content: "FROM node:23\n", previousVersion: Stubs.gitBlobSha(files["Dockerfile"]) }]
        })
      )
      assert.deepStrictEqual(second, { number: 42, url: "https://github.example/acme/api/pull/42", created: false })
      const later = stub.requests.slice(before)
      const moved = later.find((r) => r.method === "PATCH" && r.path.includes("/git/refs/heads/"))!
      assert.strictEqual(moved.path, "/repos/acme/api/git/refs/heads/image-policy/remediate/main")
      assert.strictEqual((moved.body as { force: boolean }).force, true)
      const updated = later.find((r) => r.method === "PATCH" && r.path === "/repos/acme/api/pulls/42")!
      assert.deepStrictEqual(updated.body, { title: "Update container images on main (2)", body: "- Dockerfile:1 node:20 -> node:23" })
      assert.isUndefined(later.find((r) => r.method === "POST" && r.path.endsWith("/pulls")))
      assert.strictEqual(
        later.find((r) => r.method === "GET" && r.path.endsWith("/pulls"))!.query.get("head"),
        "acme:image-policy/remediate/main"
      )

      assert.strictEqual(stub.pullRequests.length, 1)
      assert.deepStrictEqual([stub.pullRequests[0]!.title, stub.pullRequests[0]!.body], [
        "Update container images on main (2)",
        "- Dockerfile:1 node:20 -> node:23"
      ])
      // base + this run's change only: the first run's change to deploy/api/Dockerfile is gone
      assert.deepStrictEqual(Object.fromEntries(repo.files.get("image-policy/remediate/main")!), {
        ...files,
        "README.md": "# api v2\n",
        "Dockerfile": "FROM node:23\n"
      })
    }))

  it.effect("after the pull request was closed the next run opens a new one", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      yield* GitHub.openRemediation(client, write())
      stub.pullRequests[0]!.state = "closed"
      const next = yield* GitHub.openRemediation(client, write())
      assert.deepStrictEqual(next, { number: 43, url: "https://github.example/acme/api/pull/43", created: true })
    }))

  it.effect("a file changed or removed on the base since it was read is a conflict, and nothing is written", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      repo.files.get("main")!.set("deploy/api/Dockerfile", "FROM node:21\n")
      const changed = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(changed._tag === "VcsWriteRejected" ? [changed.reason, changed.status] : [changed._tag], ["conflict", 409])
      const missing = yield* Effect.flip(GitHub.openRemediation(
        client,
        write({
          files: [{ path: "nested/gone/Dockerfile", content: "x", previousVersion: Stubs.gitBlobSha("y") }]
        })
      ))
      assert.deepStrictEqual(missing._tag === "VcsWriteRejected" ? missing.reason : missing._tag, "conflict")
      assert.deepStrictEqual(writesOf(stub), [])
      assert.isFalse(repo.branches.has("image-policy/remediate/main"))
      assert.instanceOf(changed, VcsWriteRejected)
    }))

  it.effect("a token that may read but not write is forbidden; a rate limit or bad credentials on a write are provider errors; none carries the token", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      const failOn = (path: string, answer: Stubs.StubAnswer) =>
        stub.setOverride((r) => r.method !== "GET" && r.path.endsWith(path) ? answer : undefined)

      failOn("/git/trees", { status: 403, body: { message: "Resource not accessible by integration" } })
      const forbidden = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.instanceOf(forbidden, VcsWriteRejected)
      assert.deepStrictEqual(forbidden._tag === "VcsWriteRejected" ? [forbidden.reason, forbidden.status] : [], ["forbidden", 403])
      assertClean(forbidden)

      failOn("/pulls", { status: 403, body: { message: "Resource not accessible by personal access token" } })
      const pullForbidden = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(pullForbidden._tag === "VcsWriteRejected" ? pullForbidden.reason : pullForbidden._tag, "forbidden")

      failOn("/git/commits", {
        status: 403,
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSeconds + 300) },
        body: { message: "API rate limit exceeded" }
      })
      const limited = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(limited._tag === "VcsProviderError" ? [limited.reason, limited.retryAfterSeconds] : [limited._tag], [
        "rate-limited",
        300
      ])

      failOn("/git/trees", { status: 403, body: { message: "You have exceeded a secondary rate limit" } })
      const secondary = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(secondary._tag === "VcsProviderError" ? secondary.reason : secondary._tag, "rate-limited")

      failOn("/git/trees", { status: 401, body: { message: "Bad credentials" } })
      const denied = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(denied._tag === "VcsProviderError" ? denied.reason : denied._tag, "unauthorized")
      assertClean(denied)

      stub.setOverride(undefined)
      assert.strictEqual((yield* Effect.flip(GitHub.openRemediation(client, write({ baseBranch: "nope" })))).reason, "not-found")
    }))

  it.effect("a pull request number that is not a positive safe integer, or a URL no store can hold, is unavailable", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      const url = "https://github.example/acme/api/pull/42"
      const answers = [
        { number: 1.5, html_url: url },
        { number: 2 ** 53 + 1, html_url: url },
        { number: 0, html_url: url },
        { number: -3, html_url: url },
        { number: "42", html_url: url },
        { number: 42, html_url: "https://github.example/\u0000" },
        { number: 42, html_url: "https://github.example/\ud800" }
      ]
      for (const body of answers) {
        stub.setOverride((r) => r.method === "POST" && r.path.endsWith("/pulls") ? { status: 201, body } : undefined)
        const error = yield* Effect.flip(GitHub.openRemediation(client, write()))
        assert.deepStrictEqual(error._tag === "VcsProviderError" ? error.reason : error._tag, "unavailable", JSON.stringify(body))
      }
      // the open pull request found by the listing
      stub.setOverride((r) =>
        r.method === "GET" && r.path.endsWith("/pulls") ? { status: 200, body: [{ number: 1.5, html_url: url }] } : undefined
      )
      const listed = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(listed._tag === "VcsProviderError" ? listed.reason : listed._tag, "unavailable")
      assert.strictEqual(stub.pullRequests.length, 0)
      assert.strictEqual(stub.requests.filter((r) => r.method === "PATCH" && r.path.includes("/pulls/")).length, 0)
    }))

  it.effect("an impossible head branch or file path, or no files, is invalid without a request", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      for (
        const bad of [
          write({ headBranch: "a//b" }),
          write({ files: [] }),
          write({ files: [{ path: "../x", content: "", previousVersion: "0" }] })
        ]
      ) {
        const error = yield* Effect.flip(GitHub.openRemediation(client, bad))
        assert.deepStrictEqual(error._tag === "VcsWriteRejected" ? error.reason : error._tag, "invalid")
      }
      assert.strictEqual(stub.requests.length, 0)
    }))
})
