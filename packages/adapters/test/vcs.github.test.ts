/**
 * The GitHub client against a local GitHub-shaped API (test/support/providerStubs.ts): listing
 * over three pages through `Link`, branches with the default flagged, file contents and versions,
 * the mapping of every error answer to a reason (never the token nor the provider's text), the
 * remediation writes, branch file lists (git trees, truncated ones walked) and remediation pull
 * requests (one commit through the Git Data API, the open pull request updated, not duplicated).
 */
import { type RemediationWrite, VcsProviderError, VcsWriteRejected } from "@image-policy/core"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { effectProp } from "../../core/test/support/fcProp.js"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GitHub from "../src/vcs/GitHub.js"
import * as ProviderHttp from "../src/vcs/ProviderHttp.js"
import * as Stubs from "./support/providerStubs.js"
import { closedPort } from "./support/receiver.js"

const token = "ghp_TESTTOKEN0123456789abcdefghijklmnop"
const now = Date.parse("2030-06-01T12:00:00Z")
const nowSeconds = Math.floor(now / 1000)

const clientOf = (baseUrl: string, options: Partial<ProviderHttp.ClientOptions> = {}) => {
  const client = GitHub.client({ baseUrl, token, now: () => now, ...options })
  assert.isDefined(client)
  return client!
}

const api = Stubs.repository(7, "acme/api", {
  branches: ["main", "release", "feature/x"],
  files: {
    main: { "Dockerfile": "FROM node:20\n", "deploy/service-mappings.json": "{\"mappings\":[]}\n", "docs/ü ñ.md": "héllo ✓ 🚀\n" },
    release: { "Dockerfile": "FROM node:18\n" }
  }
})

const errorOf = <A>(effect: Effect.Effect<A, VcsProviderError>) => Effect.flip(effect)

/** Neither the token nor any provider text ends up in an error. */
const assertClean = (error: unknown) => {
  for (const text of [String(error), JSON.stringify(error), (error as Error).message ?? ""]) {
    assert.notInclude(text, token)
    assert.notInclude(text, "Bad credentials")
    assert.notInclude(text, "127.0.0.1")
  }
}

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

      assert.strictEqual((yield* errorOf(GitHub.listBranches(client, { fullName: "acme/nope", defaultBranch: "main" }))).reason, "not-found")
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

      assert.deepStrictEqual(yield* read("main", "Dockerfile"), Option.some({ content: "FROM node:20\n", version: Stubs.gitBlobSha("FROM node:20\n") }))
      assert.deepStrictEqual(yield* read("release", "Dockerfile"), Option.some({ content: "FROM node:18\n", version: Stubs.gitBlobSha("FROM node:18\n") }))
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
      { status: 403, headers: { "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSeconds + 120) }, body: { message: "API rate limit exceeded" } },
      { reason: "rate-limited", retryAfterSeconds: 120 }
    ],
    ["429 with retry-after", { status: 429, headers: { "retry-after": "30" } }, { reason: "rate-limited", retryAfterSeconds: 30 }],
    [
      "403 secondary rate limit with retry-after",
      { status: 403, headers: { "retry-after": "45", "x-ratelimit-remaining": "4000" }, body: { message: "You have exceeded a secondary rate limit" } },
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
      stub.setOverride((r) => r.path === "/repos/acme/old" ? { status: 301, headers: { location: `${stub.baseUrl}/repos/acme/api` } } : undefined)
      const repo = yield* GitHub.getRepository(clientOf(stub.baseUrl), "acme/old")
      assert.deepStrictEqual(repo, { externalRepoId: "7", fullName: "acme/api", defaultBranch: "main" })
      assert.strictEqual(stub.requests[1]!.headers["authorization"], `Bearer ${token}`)
    }))
})

/** Object ids that are not a git object id as GitHub spells it (lowercase hex, 40 or 64 digits). */
const badShas = ["", "not-a-sha", `${"a".repeat(39)}\u0000`, `${"a".repeat(40)}\u0000`, "A".repeat(40), "a".repeat(39), "a".repeat(41), `${"a".repeat(39)}\ud800`]

describe("GitHub answers no store can hold", () => {
  it.effect("a blob, tree or commit sha that is not lowercase hex is unavailable (it would be stored and compared as is)", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const client = clientOf(stub.baseUrl)
      const content = Buffer.from("FROM node:20\n").toString("base64")
      for (const sha of badShas) {
        stub.setOverride((r) => r.path.includes("/contents/") ? { status: 200, body: { type: "file", sha, encoding: "base64", content } } : undefined)
        assert.strictEqual((yield* errorOf(GitHub.readFile(client, { fullName: "acme/api", branch: "main", path: "Dockerfile" }))).reason, "unavailable", JSON.stringify(sha))

        stub.setOverride((r) => r.path.includes("/git/ref/heads/") ? { status: 200, body: { ref: "refs/heads/main", object: { sha } } } : undefined)
        assert.strictEqual((yield* errorOf(GitHub.branchHead(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")
        assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")

        // a tree entry's sha (a subtree is walked by it, a file's is compared with its version)
        stub.setOverride((r) =>
          r.path.includes("/git/trees/")
            ? { status: 200, body: { sha: Stubs.sha1("root"), tree: [{ path: "Dockerfile", mode: "100644", type: "blob", sha }], truncated: false } }
            : undefined
        )
        assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")
      }
      // a SHA-256 repository's ids are 64 digits
      const sha256 = "0123456789abcdef".repeat(4)
      stub.setOverride((r) => r.path.includes("/contents/") ? { status: 200, body: { type: "file", sha: sha256, encoding: "base64", content } } : undefined)
      assert.deepStrictEqual(
        yield* GitHub.readFile(client, { fullName: "acme/api", branch: "main", path: "Dockerfile" }),
        Option.some({ content: "FROM node:20\n", version: sha256 })
      )
    }))

  it.effect("a listing leaves out repositories and branches whose names no store can hold, and lists the others", () =>
    Effect.gen(function*() {
      const repos = [
        api,
        Stubs.repository(8, "acme/nul\u0000"),
        Stubs.repository(9, "acme/lone\ud800"),
        Stubs.repository(10, "acme/odd-default", { defaultBranch: "ma\u0000in" }),
        Stubs.repository(11, "acme/long-default", { defaultBranch: "b".repeat(256) }),
        Stubs.repository(12, "acme/branches", { branches: ["main", "nul\u0000", "lone\udc00x", "b".repeat(256), "release"] }),
        Stubs.repository(13, "acme/last")
      ]
      const stub = yield* Stubs.github({ token, repositories: repos, maxPerPage: 3 })
      const client = clientOf(stub.baseUrl)
      const listed = yield* GitHub.listRepositories(client)
      assert.deepStrictEqual(listed.map((r) => r.fullName), ["acme/api", "acme/branches", "acme/last"])
      const branches = yield* GitHub.listBranches(client, { fullName: "acme/branches", defaultBranch: "main" })
      assert.deepStrictEqual(branches, [{ name: "main", isDefault: true }, { name: "release", isDefault: false }])

      // one repository alone: its names must be storable
      assert.strictEqual((yield* errorOf(GitHub.getRepository(client, "acme/odd-default"))).reason, "unavailable")
      // an entry of another shape is a malformed answer, not a name to leave out
      stub.setOverride((r) => r.path === "/user/repos" ? { status: 200, body: [{ id: 1, full_name: "acme/a", default_branch: "main" }, { id: 2 }] } : undefined)
      assert.strictEqual((yield* errorOf(GitHub.listRepositories(client))).reason, "unavailable")
    }))

  it.effect("a repository name, branch or file path with a lone surrogate is refused before any request, never a URIError", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.github({ token, repositories: [api] })
      const client = clientOf(stub.baseUrl)
      for (const fullName of ["acme/api\ud800", "\udc00/api", "acme/a\u0000"]) {
        assert.strictEqual((yield* errorOf(GitHub.getRepository(client, fullName))).reason, "not-found")
        assert.strictEqual((yield* errorOf(GitHub.listBranches(client, { fullName }))).reason, "not-found")
        assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName, branch: "main" }))).reason, "not-found")
      }
      assert.isTrue(Option.isNone(yield* GitHub.readFile(client, { fullName: "acme/api", branch: "main", path: "docs/a\ud800.md" })))
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "feature/\ud800" }))).reason, "not-found")
      const invalid = yield* Effect.flip(GitHub.openRemediation(client, {
        fullName: "acme/api",
        baseBranch: "main",
        headBranch: "image-policy/\ud800",
        title: "t",
        body: "b",
        commitMessage: "m",
        files: [{ path: "Dockerfile", content: "x", previousVersion: Stubs.gitBlobSha("FROM node:20\n") }]
      }))
      assert.deepStrictEqual(invalid._tag === "VcsWriteRejected" ? invalid.reason : invalid._tag, "invalid")
      assert.strictEqual(stub.requests.length, 0)
    }))

  it.effect("tree entries whose path no store can hold are left out (recursive or walked), the others listed", () =>
    Effect.gen(function*() {
      const files = {
        "Dockerfile": "FROM node:20\n",
        "lone\ud800.yaml": "a",
        "nul\u0000/Dockerfile": "b",
        "apps/web/Dockerfile": "c",
        "apps/lone\udc00/Dockerfile": "d",
        "apps/api/compose.yaml": "e"
      }
      const repo = Stubs.repository(7, "acme/api", { files: { main: files } })
      for (const truncateTreesOver of [undefined, 2]) {
        const stub = yield* Stubs.github({ token, repositories: [repo], ...(truncateTreesOver === undefined ? {} : { truncateTreesOver }) })
        const tree = yield* GitHub.listFiles(clientOf(stub.baseUrl), { fullName: "acme/api", branch: "main" })
        assert.deepStrictEqual([...tree.paths].sort(), ["Dockerfile", "apps/api/compose.yaml", "apps/web/Dockerfile"])
      }
    }))
})

describe("GitHub branch files (listFiles)", () => {
  const sorted = (paths: ReadonlyArray<string>) => [...paths].sort()

  it.effect("lists every file of the branch head in two requests; directories, symlinks and submodules are not files", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", {
        branches: ["main", "feature/x"],
        files: {
          main: {
            "Dockerfile": "FROM node:20\n",
            "deploy/api/Dockerfile": "FROM node:20\n",
            "deploy/worker/docker-compose.yml": "services: {}\n",
            "scripts/build.sh": "#!/bin/sh\n",
            "docs/ü ñ.md": "✓\n",
            "current": "deploy/api",
            "vendor/lib": "0123456789abcdef"
          },
          "feature/x": { "Dockerfile": "FROM node:22\n" }
        },
        modes: { "scripts/build.sh": "100755", "current": "120000", "vendor/lib": "160000" }
      })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const client = clientOf(stub.baseUrl)
      const tree = yield* GitHub.listFiles(client, { fullName: "acme/api", branch: "main" })
      assert.strictEqual(tree.commitSha, repo.branches.get("main"))
      assert.deepStrictEqual(sorted(tree.paths), [
        "Dockerfile",
        "deploy/api/Dockerfile",
        "deploy/worker/docker-compose.yml",
        "docs/ü ñ.md",
        "scripts/build.sh"
      ])
      assert.deepStrictEqual(stub.requests.map((r) => r.url), [
        "/api/v3/repos/acme/api/git/ref/heads/main",
        `/api/v3/repos/acme/api/git/trees/${repo.branches.get("main")}?recursive=1`
      ])

      const feature = yield* GitHub.listFiles(client, { fullName: "acme/api", branch: "feature/x" })
      assert.deepStrictEqual(feature, { commitSha: repo.branches.get("feature/x")!, paths: ["Dockerfile"] })
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "nope" }))).reason, "not-found")
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/nope", branch: "main" }))).reason, "not-found")
    }))

  it.effect("a truncated tree is walked subtree by subtree: no path is missed or repeated", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 0; i < 5; i++) files[`root-${i}.txt`] = `r${i}`
      for (const dir of ["apps/web", "apps/api/src", "apps/api/deploy", "infra", "infra/k8s/base"]) {
        for (let i = 0; i < 6; i++) files[`${dir}/file-${i}.yaml`] = `${dir}${i}`
      }
      const repo = Stubs.repository(7, "acme/mono", { files: { main: files } })
      const stub = yield* Stubs.github({ token, repositories: [repo], truncateTreesOver: 8 })
      const tree = yield* GitHub.listFiles(clientOf(stub.baseUrl), { fullName: "acme/mono", branch: "main" })
      assert.deepStrictEqual(sorted(tree.paths), sorted(Object.keys(files)))
      assert.strictEqual(new Set(tree.paths).size, tree.paths.length)
      // the root was truncated, so it was read again without recursion and its subtrees walked
      assert.isAbove(stub.requests.filter((r) => r.path.includes("/git/trees/")).length, 3)
    }))

  effectProp(
    "whatever the tree and the truncation limit, the listed paths are exactly the branch's files",
    [
      fc.uniqueArray(fc.array(fc.constantFrom("a", "b", "c", "d.txt", "Dockerfile"), { minLength: 1, maxLength: 4 }).map((s) => s.join("/")), {
        minLength: 1,
        maxLength: 30
      }),
      fc.integer({ min: 1, max: 12 })
    ],
    ([candidates, limit]) =>
      Effect.scoped(Effect.gen(function*() {
        // a path cannot be both a file and a directory
        const paths = candidates.filter((p) => !candidates.some((q) => q.startsWith(`${p}/`)))
        const repo = Stubs.repository(7, "acme/any", { files: { main: Object.fromEntries(paths.map((p) => [p, p])) } })
        const stub = yield* Stubs.github({ token, repositories: [repo], truncateTreesOver: limit })
        const tree = yield* GitHub.listFiles(clientOf(stub.baseUrl), { fullName: "acme/any", branch: "main" })
        assert.deepStrictEqual(sorted(tree.paths), sorted(paths))
      })),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect("a single directory too large to list is unavailable; a rate limit is rate-limited", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(7, "acme/api", { files: { main: { "a/b": "x", "c": "y" } } })
      const stub = yield* Stubs.github({ token, repositories: [repo] })
      const client = clientOf(stub.baseUrl)
      stub.setOverride((r) => r.path.includes("/git/trees/") ? { status: 200, body: { sha: Stubs.sha1("t"), tree: [], truncated: true } } : undefined)
      assert.strictEqual((yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))).reason, "unavailable")
      stub.setOverride(undefined)
      stub.failNext({ status: 429, headers: { "retry-after": "20" } })
      const limited = yield* errorOf(GitHub.listFiles(client, { fullName: "acme/api", branch: "main" }))
      assert.deepStrictEqual([limited.reason, limited.retryAfterSeconds], ["rate-limited", 20])
    }))
})

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
      assert.deepStrictEqual(stub.pullRequests.map((p) => [p.number, p.head, p.base, p.state]), [[42, "image-policy/remediate/main", "main", "open"]])
    }))

  it.effect("inline contents keep every byte: CRLF, a byte-order mark, non-ASCII; the head's blob ids are git's ids of those bytes", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      const texts = {
        "Dockerfile": "\uFEFFFROM node:22\r\n# héllo ✓ 🚀 \u00a0\u202e\r\n",
        "deploy/api/Dockerfile": "FROM node:22 AS build\r\nFROM nginx:1.25\r\n\u0000\t\\\"end"
      }
      yield* GitHub.openRemediation(client, write({
        files: Object.entries(texts).map(([path, content]) => ({ path, content, previousVersion: Stubs.gitBlobSha(files[path as keyof typeof files]) }))
      }))
      const sent = stub.requests.find((r) => r.method === "POST" && r.path.endsWith("/git/trees"))!.body as { tree: ReadonlyArray<{ content: string }> }
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
      yield* GitHub.openRemediation(client, write({
        files: [{ path: "Dockerfile", content: "FROM node:22\n# \ud800 \udc00 🚀\n", previousVersion: Stubs.gitBlobSha(files["Dockerfile"]) }]
      }))
      const sent = stub.requests.find((r) => r.method === "POST" && r.path.endsWith("/git/trees"))!.body as { tree: ReadonlyArray<{ content: string }> }
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
      const second = yield* GitHub.openRemediation(client, write({
        title: "Update container images on main (2)",
        body: "- Dockerfile:1 node:20 -> node:23",
        files: [{ path: "Dockerfile", content: "FROM node:23\n", previousVersion: Stubs.gitBlobSha(files["Dockerfile"]) }]
      }))
      assert.deepStrictEqual(second, { number: 42, url: "https://github.example/acme/api/pull/42", created: false })
      const later = stub.requests.slice(before)
      const moved = later.find((r) => r.method === "PATCH" && r.path.includes("/git/refs/heads/"))!
      assert.strictEqual(moved.path, "/repos/acme/api/git/refs/heads/image-policy/remediate/main")
      assert.strictEqual((moved.body as { force: boolean }).force, true)
      const updated = later.find((r) => r.method === "PATCH" && r.path === "/repos/acme/api/pulls/42")!
      assert.deepStrictEqual(updated.body, { title: "Update container images on main (2)", body: "- Dockerfile:1 node:20 -> node:23" })
      assert.isUndefined(later.find((r) => r.method === "POST" && r.path.endsWith("/pulls")))
      assert.strictEqual(later.find((r) => r.method === "GET" && r.path.endsWith("/pulls"))!.query.get("head"), "acme:image-policy/remediate/main")

      assert.strictEqual(stub.pullRequests.length, 1)
      assert.deepStrictEqual([stub.pullRequests[0]!.title, stub.pullRequests[0]!.body], ["Update container images on main (2)", "- Dockerfile:1 node:20 -> node:23"])
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
      const missing = yield* Effect.flip(GitHub.openRemediation(client, write({
        files: [{ path: "nested/gone/Dockerfile", content: "x", previousVersion: Stubs.gitBlobSha("y") }]
      })))
      assert.deepStrictEqual(missing._tag === "VcsWriteRejected" ? missing.reason : missing._tag, "conflict")
      assert.deepStrictEqual(writesOf(stub), [])
      assert.isFalse(repo.branches.has("image-policy/remediate/main"))
      assert.instanceOf(changed, VcsWriteRejected)
    }))

  it.effect("a token that may read but not write is forbidden; a rate limit or bad credentials on a write are provider errors; none carries the token", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      const failOn = (path: string, answer: Stubs.StubAnswer) => stub.setOverride((r) => r.method !== "GET" && r.path.endsWith(path) ? answer : undefined)

      failOn("/git/trees", { status: 403, body: { message: "Resource not accessible by integration" } })
      const forbidden = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.instanceOf(forbidden, VcsWriteRejected)
      assert.deepStrictEqual(forbidden._tag === "VcsWriteRejected" ? [forbidden.reason, forbidden.status] : [], ["forbidden", 403])
      assertClean(forbidden)

      failOn("/pulls", { status: 403, body: { message: "Resource not accessible by personal access token" } })
      const pullForbidden = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(pullForbidden._tag === "VcsWriteRejected" ? pullForbidden.reason : pullForbidden._tag, "forbidden")

      failOn("/git/commits", { status: 403, headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(nowSeconds + 300) }, body: { message: "API rate limit exceeded" } })
      const limited = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(limited._tag === "VcsProviderError" ? [limited.reason, limited.retryAfterSeconds] : [limited._tag], ["rate-limited", 300])

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
      stub.setOverride((r) => r.method === "GET" && r.path.endsWith("/pulls") ? { status: 200, body: [{ number: 1.5, html_url: url }] } : undefined)
      const listed = yield* Effect.flip(GitHub.openRemediation(client, write()))
      assert.deepStrictEqual(listed._tag === "VcsProviderError" ? listed.reason : listed._tag, "unavailable")
      assert.strictEqual(stub.pullRequests.length, 0)
      assert.strictEqual(stub.requests.filter((r) => r.method === "PATCH" && r.path.includes("/pulls/")).length, 0)
    }))

  it.effect("an impossible head branch or file path, or no files, is invalid without a request", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      for (const bad of [write({ headBranch: "a//b" }), write({ files: [] }), write({ files: [{ path: "../x", content: "", previousVersion: "0" }] })]) {
        const error = yield* Effect.flip(GitHub.openRemediation(client, bad))
        assert.deepStrictEqual(error._tag === "VcsWriteRejected" ? error.reason : error._tag, "invalid")
      }
      assert.strictEqual(stub.requests.length, 0)
    }))
})
