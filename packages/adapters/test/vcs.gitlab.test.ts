/**
 * The GitLab client against a local GitLab-shaped API (test/support/providerStubs.ts): projects
 * over three pages through `x-next-page`, branches with GitLab's `default` flag, files by
 * URL-encoded project and file path with their blob ids, error answers, the remediation writes
 * (branch, commit with actions, merge request), branch file lists (recursive tree, all pages) and
 * remediation merge requests (blob check, one commit from the base head, the open one updated).
 */
import { assert, describe, it } from "@effect/vitest"
import { type RemediationWrite, VcsProviderError, VcsWriteRejected } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as GitLab from "../src/vcs/GitLab.js"
import type * as ProviderHttp from "../src/vcs/ProviderHttp.js"
import * as Stubs from "./support/providerStubs.js"

const token = "glpat-TESTTOKEN0123456789abc"
const now = Date.parse("2030-06-01T12:00:00Z")
const nowSeconds = Math.floor(now / 1000)

const clientOf = (baseUrl: string, options: Partial<ProviderHttp.ClientOptions> = {}) => {
  const client = GitLab.client({ baseUrl, token, now: () => now, ...options })
  assert.isDefined(client)
  return client!
}

const nested = Stubs.repository(31, "acme/platform/api.service", {
  branches: ["main", "release/1.x"],
  files: {
    main: { "Dockerfile": "FROM node:20\n", "ci/service-mappings.json": "{\"mappings\":[]}\n", "ünï code.txt": "✓ 🚀\n" },
    "release/1.x": { "Dockerfile": "FROM node:18\n" }
  }
})

describe("GitLab reads", () => {
  it.effect("lists member projects across three pages by following x-next-page; empty projects are left out", () =>
    Effect.gen(function*() {
      const projects = [...Stubs.manyRepositories(249), Stubs.repository(5000, "acme/empty", { defaultBranch: null })]
      const stub = yield* Stubs.gitlab({ token, repositories: projects })
      const listed = yield* GitLab.listRepositories(clientOf(stub.baseUrl))
      assert.strictEqual(listed.length, 249)
      assert.deepStrictEqual(listed[0], { externalRepoId: "1000", fullName: "acme/repo-001", defaultBranch: "main" })
      assert.isUndefined(listed.find((r) => r.fullName === "acme/empty"))

      assert.strictEqual(stub.requests.length, 3)
      assert.deepStrictEqual(stub.requests.map((r) => r.query.get("page")), [null, "2", "3"])
      for (const request of stub.requests) {
        assert.strictEqual(request.path, "/projects")
        assert.strictEqual(request.query.get("membership"), "true")
        assert.strictEqual(request.query.get("per_page"), "100")
        assert.strictEqual(request.headers["private-token"], token)
        assert.isUndefined(request.headers["authorization"])
        assert.notInclude(request.url, token)
      }
    }))

  it.effect("lists branches with GitLab's default flag, paginated, for a project in a nested group", () =>
    Effect.gen(function*() {
      const many = Stubs.repository(32, "acme/many", { defaultBranch: "b4", branches: ["b1", "b2", "b3", "b4", "b5"] })
      const stub = yield* Stubs.gitlab({ token, repositories: [nested, many], maxPerPage: 2 })
      const client = clientOf(stub.baseUrl)
      const branches = yield* GitLab.listBranches(client, { fullName: "acme/many" })
      assert.deepStrictEqual(branches.map((b) => [b.name, b.isDefault]), [["b1", false], ["b2", false], ["b3", false], ["b4", true], [
        "b5",
        false
      ]])
      assert.strictEqual(stub.count("/projects/acme%2Fmany/repository/branches"), 3)

      const nestedBranches = yield* GitLab.listBranches(client, { fullName: "acme/platform/api.service" })
      assert.deepStrictEqual(nestedBranches, [{ name: "main", isDefault: true }, { name: "release/1.x", isDefault: false }])
      assert.strictEqual(stub.requests.at(-1)!.path, "/projects/acme%2Fplatform%2Fapi%2Eservice/repository/branches")

      const error = yield* Effect.flip(GitLab.listBranches(client, { fullName: "acme/nope" }))
      assert.strictEqual(error.reason, "not-found")
    }))

  it.effect("reads a file by URL-encoded path: text and blob_id; a missing file is None, an unknown branch or project not-found", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.gitlab({ token, repositories: [nested] })
      const client = clientOf(stub.baseUrl)
      const read = (branch: string, path: string, fullName = "acme/platform/api.service") =>
        GitLab.readFile(client, { fullName, branch, path })

      assert.deepStrictEqual(
        yield* read("main", "Dockerfile"),
        Option.some({ content: "FROM node:20\n", version: Stubs.gitBlobSha("FROM node:20\n") })
      )
      assert.deepStrictEqual(
        yield* read("release/1.x", "Dockerfile"),
        Option.some({ content: "FROM node:18\n", version: Stubs.gitBlobSha("FROM node:18\n") })
      )
      assert.strictEqual(stub.requests.at(-1)!.query.get("ref"), "release/1.x")
      const mappings = yield* read("main", "ci/service-mappings.json")
      assert.strictEqual(Option.getOrThrow(mappings).content, "{\"mappings\":[]}\n")
      assert.strictEqual(
        stub.requests.at(-1)!.path,
        "/projects/acme%2Fplatform%2Fapi%2Eservice/repository/files/ci%2Fservice-mappings%2Ejson"
      )
      assert.strictEqual(Option.getOrThrow(yield* read("main", "ünï code.txt")).content, "✓ 🚀\n")

      assert.isTrue(Option.isNone(yield* read("main", "missing.txt")))
      assert.strictEqual((yield* Effect.flip(read("nope", "Dockerfile"))).reason, "not-found")
      assert.strictEqual((yield* Effect.flip(read("main", "Dockerfile", "acme/other"))).reason, "not-found")
      const before = stub.requests.length
      assert.isTrue(Option.isNone(yield* read("main", "../x")))
      assert.strictEqual(stub.requests.length, before)
    }))
})

describe("GitLab errors", () => {
  const cases: ReadonlyArray<readonly [string, Stubs.StubAnswer, Partial<VcsProviderError>]> = [
    ["401", { status: 401, body: { message: "401 Unauthorized" } }, { reason: "unauthorized" }],
    ["403 insufficient scope", { status: 403, body: { error: "insufficient_scope" } }, { reason: "unauthorized" }],
    ["404", { status: 404, body: { message: "404 Not Found" } }, { reason: "not-found" }],
    [
      "429 with ratelimit-reset",
      { status: 429, headers: { "ratelimit-limit": "600", "ratelimit-remaining": "0", "ratelimit-reset": String(nowSeconds + 90) } },
      { reason: "rate-limited", retryAfterSeconds: 90 }
    ],
    ["429 with retry-after", { status: 429, headers: { "retry-after": "30", "ratelimit-remaining": "0" } }, {
      reason: "rate-limited",
      retryAfterSeconds: 30
    }],
    [
      "429 with an HTTP-date retry-after",
      { status: 429, headers: { "retry-after": new Date(now + 15_000).toUTCString() } },
      { reason: "rate-limited", retryAfterSeconds: 15 }
    ],
    ["429 without headers", { status: 429 }, { reason: "rate-limited", retryAfterSeconds: 60 }],
    ["500", { status: 500, body: { message: "500 Internal Server Error" } }, { reason: "unavailable" }],
    ["503", { status: 503 }, { reason: "unavailable" }]
  ]
  for (const [name, answer, expected] of cases) {
    it.effect(`${name} -> ${expected.reason}`, () =>
      Effect.gen(function*() {
        const stub = yield* Stubs.gitlab({ token, repositories: [nested] })
        stub.failNext(answer)
        const error = yield* Effect.flip(GitLab.listRepositories(clientOf(stub.baseUrl)))
        assert.instanceOf(error, VcsProviderError)
        assert.deepStrictEqual([error.reason, error.retryAfterSeconds], [expected.reason, expected.retryAfterSeconds])
        for (const text of [String(error), JSON.stringify(error)]) {
          assert.notInclude(text, token)
          assert.notInclude(text, "Unauthorized")
          assert.notInclude(text, "Internal Server Error")
        }
      }))
  }
})

/** Object ids that are not a git object id as GitLab spells it (lowercase hex, 40 or 64 digits). */
const badShas = [
  "",
  "not-a-sha",
  `${"a".repeat(39)}\u0000`,
  `${"a".repeat(40)}\u0000`,
  "A".repeat(40),
  "a".repeat(39),
  `${"a".repeat(39)}\ud800`
]

describe("GitLab answers no store can hold", () => {
  it.effect("a blob id or commit id that is not lowercase hex is unavailable (it would be stored and compared as is)", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.gitlab({ token, repositories: [nested] })
      const client = clientOf(stub.baseUrl)
      const at = { fullName: "acme/platform/api.service", branch: "main" }
      const content = Buffer.from("FROM node:20\n").toString("base64")
      for (const sha of badShas) {
        stub.setOverride((r) =>
          r.path.includes("/repository/files/") ? { status: 200, body: { encoding: "base64", content, blob_id: sha } } : undefined
        )
        assert.strictEqual(
          (yield* Effect.flip(GitLab.readFile(client, { ...at, path: "Dockerfile" }))).reason,
          "unavailable",
          JSON.stringify(sha)
        )

        stub.setOverride((r) =>
          r.path.includes("/repository/branches/") ? { status: 200, body: { name: "main", commit: { id: sha } } } : undefined
        )
        assert.strictEqual((yield* Effect.flip(GitLab.branchHead(client, at))).reason, "unavailable")
        assert.strictEqual((yield* Effect.flip(GitLab.listFiles(client, at))).reason, "unavailable")
      }
      const sha256 = "0123456789abcdef".repeat(4)
      stub.setOverride((r) =>
        r.path.includes("/repository/files/") ? { status: 200, body: { encoding: "base64", content, blob_id: sha256 } } : undefined
      )
      assert.deepStrictEqual(
        yield* GitLab.readFile(client, { ...at, path: "Dockerfile" }),
        Option.some({ content: "FROM node:20\n", version: sha256 })
      )
    }))

  it.effect("a listing leaves out projects and branches whose names no store can hold, and lists the others", () =>
    Effect.gen(function*() {
      const projects = [
        Stubs.repository(1, "acme/api"),
        Stubs.repository(2, "acme/nul\u0000"),
        Stubs.repository(3, "acme/sub/lone\ud800"),
        Stubs.repository(4, "acme/odd-default", { defaultBranch: "ma\u0000in" }),
        Stubs.repository(5, "acme/long-default", { defaultBranch: "b".repeat(256) }),
        Stubs.repository(6, "acme/empty", { defaultBranch: null }),
        Stubs.repository(7, "acme/branches", { branches: ["main", "nul\u0000", "lone\udc00x", "b".repeat(256), "release"] }),
        Stubs.repository(8, "acme/last")
      ]
      const stub = yield* Stubs.gitlab({ token, repositories: projects, maxPerPage: 3 })
      const client = clientOf(stub.baseUrl)
      const listed = yield* GitLab.listRepositories(client)
      assert.deepStrictEqual(listed.map((r) => r.fullName), ["acme/api", "acme/branches", "acme/last"])
      const branches = yield* GitLab.listBranches(client, { fullName: "acme/branches" })
      assert.deepStrictEqual(branches, [{ name: "main", isDefault: true }, { name: "release", isDefault: false }])

      // an entry of another shape is a malformed answer, not a name to leave out
      stub.setOverride((r) =>
        r.path === "/projects"
          ? { status: 200, body: [{ id: 1, path_with_namespace: "acme/a", default_branch: "main" }, { id: 2 }] }
          : undefined
      )
      assert.strictEqual((yield* Effect.flip(GitLab.listRepositories(client))).reason, "unavailable")
    }))

  it.effect("a project path, branch or file path with a lone surrogate is refused before any request, never a URIError", () =>
    Effect.gen(function*() {
      const stub = yield* Stubs.gitlab({ token, repositories: [nested] })
      const client = clientOf(stub.baseUrl)
      for (const fullName of ["acme/api\ud800", "\udc00/api", "acme/a\u0000"]) {
        assert.strictEqual((yield* Effect.flip(GitLab.listBranches(client, { fullName }))).reason, "not-found")
        assert.strictEqual((yield* Effect.flip(GitLab.listFiles(client, { fullName, branch: "main" }))).reason, "not-found")
        assert.strictEqual(
          (yield* Effect.flip(GitLab.readFile(client, { fullName, branch: "main", path: "Dockerfile" }))).reason,
          "not-found"
        )
      }
      const at = { fullName: "acme/platform/api.service" }
      assert.isTrue(Option.isNone(yield* GitLab.readFile(client, { ...at, branch: "main", path: "ci/a\ud800.yaml" })))
      assert.strictEqual((yield* Effect.flip(GitLab.listFiles(client, { ...at, branch: "release/\ud800" }))).reason, "not-found")
      const invalid = yield* Effect.flip(GitLab.openRemediation(client, {
        ...at,
        baseBranch: "main",
        headBranch: "image-policy/remediate/main",
        title: "t",
        body: "b",
        commitMessage: "m",
        files: [{ path: "ci/\udc00", content: "x", previousVersion: Stubs.gitBlobSha("FROM node:20\n") }]
      }))
      assert.deepStrictEqual(invalid._tag === "VcsWriteRejected" ? invalid.reason : invalid._tag, "invalid")
      assert.strictEqual(stub.requests.length, 0)
    }))

  it.effect("tree items whose path no store can hold are left out, the others listed", () =>
    Effect.gen(function*() {
      const files = {
        "Dockerfile": "FROM node:20\n",
        "lone\ud800.yaml": "a",
        "nul\u0000/Dockerfile": "b",
        "apps/web/Dockerfile": "c",
        "apps/lone\udc00/Dockerfile": "d"
      }
      const repo = Stubs.repository(31, "acme/api", { files: { main: files } })
      const stub = yield* Stubs.gitlab({ token, repositories: [repo], maxPerPage: 2 })
      const tree = yield* GitLab.listFiles(clientOf(stub.baseUrl), { fullName: "acme/api", branch: "main" })
      assert.deepStrictEqual([...tree.paths].sort(), ["Dockerfile", "apps/web/Dockerfile"])
    }))
})

describe("GitLab branch files (listFiles)", () => {
  it.effect("lists every file of the branch head across all tree pages, at the head commit; directories, symlinks and submodules are not files", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = { "Dockerfile": "FROM node:20\n", "link": "Dockerfile", "vendor/lib": "abc" }
      for (let i = 0; i < 9; i++) files[`services/svc-${i}/Dockerfile`] = `FROM svc:${i}\n`
      const repo = Stubs.repository(31, "acme/platform/api", {
        branches: ["main", "release/1.x"],
        files: { main: files },
        modes: { "link": "120000", "vendor/lib": "160000" }
      })
      const stub = yield* Stubs.gitlab({ token, repositories: [repo], maxPerPage: 4 })
      const tree = yield* GitLab.listFiles(clientOf(stub.baseUrl), { fullName: "acme/platform/api", branch: "main" })
      assert.strictEqual(tree.commitSha, repo.branches.get("main"))
      assert.deepStrictEqual([...tree.paths].sort(), Object.keys(files).filter((p) => p !== "link" && p !== "vendor/lib").sort())

      const branch = stub.requests[0]!
      assert.strictEqual(branch.path, "/projects/acme%2Fplatform%2Fapi/repository/branches/main")
      const pages = stub.requests.slice(1)
      // 11 directories and 12 other entries, 4 a page
      assert.strictEqual(pages.length, 6)
      for (const [i, request] of pages.entries()) {
        assert.strictEqual(request.path, "/projects/acme%2Fplatform%2Fapi/repository/tree")
        assert.strictEqual(request.query.get("ref"), repo.branches.get("main"))
        assert.strictEqual(request.query.get("recursive"), "true")
        assert.strictEqual(request.query.get("page"), i === 0 ? null : String(i + 1))
      }
    }))

  it.effect("a branch with a slash is one path segment; an unknown branch or project is not-found; an empty branch has no files", () =>
    Effect.gen(function*() {
      const repo = Stubs.repository(31, "acme/api", { branches: ["main", "release/1.x"], files: { main: { "a": "x" } } })
      const stub = yield* Stubs.gitlab({ token, repositories: [repo] })
      const client = clientOf(stub.baseUrl)
      assert.deepStrictEqual(yield* GitLab.listFiles(client, { fullName: "acme/api", branch: "release/1.x" }), {
        commitSha: repo.branches.get("release/1.x")!,
        paths: []
      })
      assert.strictEqual(stub.requests[0]!.path, "/projects/acme%2Fapi/repository/branches/release%2F1%2Ex")
      assert.strictEqual((yield* Effect.flip(GitLab.listFiles(client, { fullName: "acme/api", branch: "nope" }))).reason, "not-found")
      assert.strictEqual((yield* Effect.flip(GitLab.listFiles(client, { fullName: "acme/other", branch: "main" }))).reason, "not-found")
      stub.setOverride((r) => r.path.endsWith("/repository/tree") ? { status: 429, headers: { "retry-after": "12" } } : undefined)
      const limited = yield* Effect.flip(GitLab.listFiles(client, { fullName: "acme/api", branch: "main" }))
      assert.deepStrictEqual([limited.reason, limited.retryAfterSeconds], ["rate-limited", 12])
    }))
})

describe("GitLab remediation merge requests (openRemediation)", () => {
  const files = { "Dockerfile": "FROM node:20\n", "ci/Dockerfile": "FROM node:20 AS ci\r\n", "README.md": "# api\n" }
  const setup = Effect.gen(function*() {
    const repo = Stubs.repository(31, "acme/platform/api", { files: { main: { ...files } } })
    const stub = yield* Stubs.gitlab({ token, repositories: [repo] })
    return { repo, stub, client: clientOf(stub.baseUrl) }
  })
  const write = (overrides: Partial<RemediationWrite> = {}): RemediationWrite => ({
    fullName: "acme/platform/api",
    baseBranch: "main",
    headBranch: "image-policy/remediate/main",
    title: "Update container images on main",
    body: "- Dockerfile:1 node:20 -> node:22",
    commitMessage: "Update container images on main",
    files: [
      { path: "Dockerfile", content: "FROM node:22\n", previousVersion: Stubs.gitBlobSha(files["Dockerfile"]) },
      { path: "ci/Dockerfile", content: "FROM node:22 AS ci\r\n", previousVersion: Stubs.gitBlobSha(files["ci/Dockerfile"]) }
    ],
    ...overrides
  })
  const writesOf = (stub: Stubs.Stub) =>
    stub.requests.filter((r) => r.method !== "GET" && r.method !== "HEAD").map((r) => `${r.method} ${r.path}`)

  it.effect("checks each file's blob at the base head, commits all of them in one request started from it, and opens a merge request", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      const baseSha = repo.branches.get("main")!
      const opened = yield* GitLab.openRemediation(client, write())
      assert.deepStrictEqual(opened, { number: 7, url: "https://gitlab.example/acme/platform/api/-/merge_requests/7", created: true })

      const checks = stub.requests.filter((r) => r.method === "HEAD")
      assert.deepStrictEqual(checks.map((r) => [r.path, r.query.get("ref")]), [
        ["/projects/acme%2Fplatform%2Fapi/repository/files/Dockerfile", baseSha],
        ["/projects/acme%2Fplatform%2Fapi/repository/files/ci%2FDockerfile", baseSha]
      ])
      assert.deepStrictEqual(writesOf(stub), [
        "POST /projects/acme%2Fplatform%2Fapi/repository/commits",
        "POST /projects/acme%2Fplatform%2Fapi/merge_requests"
      ])
      assert.deepStrictEqual(stub.requests.find((r) => r.path.endsWith("/repository/commits"))!.body, {
        branch: "image-policy/remediate/main",
        commit_message: "Update container images on main",
        start_sha: baseSha,
        force: true,
        actions: [
          { action: "update", file_path: "Dockerfile", content: Buffer.from("FROM node:22\n").toString("base64"), encoding: "base64" },
          {
            action: "update",
            file_path: "ci/Dockerfile",
            content: Buffer.from("FROM node:22 AS ci\r\n").toString("base64"),
            encoding: "base64"
          }
        ]
      })
      assert.deepStrictEqual(stub.requests.find((r) => r.method === "POST" && r.path.endsWith("/merge_requests"))!.body, {
        source_branch: "image-policy/remediate/main",
        target_branch: "main",
        title: "Update container images on main",
        description: "- Dockerfile:1 node:20 -> node:22"
      })
      assert.deepStrictEqual(Object.fromEntries(repo.files.get("image-policy/remediate/main")!), {
        ...files,
        "Dockerfile": "FROM node:22\n",
        "ci/Dockerfile": "FROM node:22 AS ci\r\n"
      })
      assert.deepStrictEqual(Object.fromEntries(repo.files.get("main")!), files)
    }))

  it.effect("a second run updates the open merge request (PUT, no duplicate) and overwrites its branch with the new base plus the new changes", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      yield* GitLab.openRemediation(client, write())
      repo.files.get("main")!.set("README.md", "# api v2\n")
      repo.branches.set("main", Stubs.sha1("main v2"))
      const before = stub.requests.length
      const second = yield* GitLab.openRemediation(
        client,
        write({
          title: "Update container images on main (2)",
          body: "second",
          files: [{ path: "Dockerfile", content: "FROM node:23\n", previousVersion: Stubs.gitBlobSha(files["Dockerfile"]) }]
        })
      )
      assert.deepStrictEqual(second, { number: 7, url: "https://gitlab.example/acme/platform/api/-/merge_requests/7", created: false })
      const later = stub.requests.slice(before)
      const listed = later.find((r) => r.method === "GET" && r.path.endsWith("/merge_requests"))!
      assert.deepStrictEqual([listed.query.get("source_branch"), listed.query.get("state")], ["image-policy/remediate/main", "opened"])
      assert.deepStrictEqual(later.find((r) => r.method === "PUT")!.body, {
        title: "Update container images on main (2)",
        description: "second"
      })
      assert.strictEqual(later.find((r) => r.method === "PUT")!.path, "/projects/acme%2Fplatform%2Fapi/merge_requests/7")
      assert.strictEqual(stub.pullRequests.length, 1)
      assert.deepStrictEqual(Object.fromEntries(repo.files.get("image-policy/remediate/main")!), {
        ...files,
        "README.md": "# api v2\n",
        "Dockerfile": "FROM node:23\n"
      })

      stub.pullRequests[0]!.state = "closed"
      assert.deepStrictEqual(yield* GitLab.openRemediation(client, write()), {
        number: 8,
        url: "https://gitlab.example/acme/platform/api/-/merge_requests/8",
        created: true
      })
    }))

  it.effect("a file changed or removed on the base since it was read is a conflict, and nothing is written", () =>
    Effect.gen(function*() {
      const { client, repo, stub } = yield* setup
      repo.files.get("main")!.set("ci/Dockerfile", "FROM node:21\n")
      const changed = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(changed._tag === "VcsWriteRejected" ? [changed.reason, changed.status] : [changed._tag], ["conflict", 409])
      assert.instanceOf(changed, VcsWriteRejected)
      repo.files.get("main")!.delete("Dockerfile")
      const removed = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(removed._tag === "VcsWriteRejected" ? removed.reason : removed._tag, "conflict")
      assert.deepStrictEqual(writesOf(stub), [])
      assert.isFalse(repo.branches.has("image-policy/remediate/main"))
    }))

  it.effect("a merge request iid that is not a positive safe integer, or a URL or commit id no store can hold, is unavailable", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      const url = "https://gitlab.example/acme/platform/api/-/merge_requests/7"
      const answers = [
        { iid: 1.5, web_url: url },
        { iid: 2 ** 53 + 1, web_url: url },
        { iid: 0, web_url: url },
        { iid: "7", web_url: url },
        { iid: 7, web_url: "https://gitlab.example/\u0000" },
        { iid: 7, web_url: "https://gitlab.example/\udc00" }
      ]
      for (const body of answers) {
        stub.setOverride((r) => r.method === "POST" && r.path.endsWith("/merge_requests") ? { status: 201, body } : undefined)
        const error = yield* Effect.flip(GitLab.openRemediation(client, write()))
        assert.deepStrictEqual(error._tag === "VcsProviderError" ? error.reason : error._tag, "unavailable", JSON.stringify(body))
      }
      stub.setOverride((r) =>
        r.method === "GET" && r.path.endsWith("/merge_requests") ? { status: 200, body: [{ iid: 1.5, web_url: url }] } : undefined
      )
      const listed = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(listed._tag === "VcsProviderError" ? listed.reason : listed._tag, "unavailable")
      stub.setOverride((r) =>
        r.method === "POST" && r.path.endsWith("/repository/commits") ? { status: 201, body: { id: "not-a-sha" } } : undefined
      )
      const commit = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(commit._tag === "VcsProviderError" ? commit.reason : commit._tag, "unavailable")
      assert.strictEqual(stub.pullRequests.length, 0)
      assert.strictEqual(stub.requests.filter((r) => r.method === "PUT").length, 0)
    }))

  it.effect("a token without write access is forbidden; a rate limit is rate-limited; neither carries the token", () =>
    Effect.gen(function*() {
      const { client, stub } = yield* setup
      stub.setOverride((r) =>
        r.method === "POST" && r.path.endsWith("/repository/commits") ? { status: 403, body: { message: "403 Forbidden" } } : undefined
      )
      const forbidden = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(forbidden._tag === "VcsWriteRejected" ? [forbidden.reason, forbidden.status] : [forbidden._tag], [
        "forbidden",
        403
      ])

      stub.setOverride((r) =>
        r.method === "POST" && r.path.endsWith("/merge_requests") ? { status: 403, body: { message: "403 Forbidden" } } : undefined
      )
      const mrForbidden = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(mrForbidden._tag === "VcsWriteRejected" ? mrForbidden.reason : mrForbidden._tag, "forbidden")

      stub.setOverride((r) =>
        r.method === "POST" && r.path.endsWith("/repository/commits")
          ? { status: 429, headers: { "ratelimit-remaining": "0", "ratelimit-reset": String(nowSeconds + 40) } }
          : undefined
      )
      const limited = yield* Effect.flip(GitLab.openRemediation(client, write()))
      assert.deepStrictEqual(limited._tag === "VcsProviderError" ? [limited.reason, limited.retryAfterSeconds] : [limited._tag], [
        "rate-limited",
        40
      ])
      for (const error of [forbidden, mrForbidden, limited]) {
        assert.notInclude(JSON.stringify(error), token)
        assert.notInclude(String(error), token)
      }
      stub.setOverride(undefined)
      assert.strictEqual((yield* Effect.flip(GitLab.openRemediation(client, write({ baseBranch: "nope" })))).reason, "not-found")
    }))
})
