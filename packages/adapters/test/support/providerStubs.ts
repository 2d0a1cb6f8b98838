/**
 * Local stand-ins for the GitHub REST v3 and GitLab REST v4 APIs on 127.0.0.1, speaking the
 * documented shapes the adapters rely on: token checks (`Authorization: Bearer` /
 * `PRIVATE-TOKEN`), pagination (`Link: rel="next"` with absolute URLs / `x-next-page`), default
 * branches, base64 file contents with git blob ids, the error bodies of a missing file, branch
 * or repository, branch trees (GitHub's git trees, recursive and truncated past `truncateTreesOver`
 * entries; GitLab's repository tree with offset pagination), and the remediation writes (refs,
 * contents, blobs, trees whose entries name a blob `sha` or carry inline `content`, commits and
 * pulls / branches, commits with actions and `start_sha` / `force`, merge requests) applied to
 * their in-memory repositories. Pull and merge requests are kept in `pullRequests` (one open
 * request per head branch, as both providers insist).
 *
 * Every request is recorded (method, raw path and query, headers, JSON body). `failNext` answers
 * the next requests with a canned answer (401, 403 with rate-limit headers, 429, 500, ...);
 * `setOverride` can answer anything, or `"hang"` to never answer.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface StubRepository {
  readonly id: number
  readonly fullName: string
  /** `null`: an empty GitLab project. */
  defaultBranch: string | null
  /** Branch name to its head commit sha. */
  readonly branches: Map<string, string>
  /** Branch name to path to content. */
  readonly files: Map<string, Map<string, string>>
  /**
   * Path to git file mode where it is not `100644`: `100755` (executable), `120000` (a symlink),
   * `160000` (a submodule, listed as type `commit`).
   */
  readonly modes: Map<string, string>
}

/** A pull request (GitHub) or merge request (GitLab) the stub holds. */
export interface StubPullRequest {
  readonly fullName: string
  /** GitHub's `number` (from 42), GitLab's `iid` (from 7). */
  readonly number: number
  readonly head: string
  readonly base: string
  title: string
  body: string | undefined
  state: "open" | "closed"
}

export const repository = (
  id: number,
  fullName: string,
  options: {
    readonly defaultBranch?: string | null
    readonly branches?: ReadonlyArray<string>
    readonly files?: Record<string, Record<string, string>>
    readonly modes?: Record<string, string>
  } = {}
): StubRepository => {
  const defaultBranch = options.defaultBranch === undefined ? "main" : options.defaultBranch
  const names = options.branches ?? (defaultBranch === null ? [] : [defaultBranch])
  return {
    id,
    fullName,
    defaultBranch,
    branches: new Map(names.map((b, i) => [b, sha1(`${fullName}@${b}#${i}`)])),
    files: new Map(Object.entries(options.files ?? {}).map(([b, fs]) => [b, new Map(Object.entries(fs))])),
    modes: new Map(Object.entries(options.modes ?? {}))
  }
}

export interface StubRequest {
  readonly method: string
  /** Path and query exactly as received (percent-encoding kept). */
  readonly url: string
  /** The path without the API prefix, percent-encoding kept. */
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: http.IncomingHttpHeaders
  readonly body: unknown
}

export interface StubAnswer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: unknown
}

export interface Stub {
  /** The API base URL, e.g. `http://127.0.0.1:1234/api/v3`. */
  readonly baseUrl: string
  readonly origin: string
  readonly token: string
  readonly repositories: Array<StubRepository>
  readonly requests: Array<StubRequest>
  readonly pullRequests: Array<StubPullRequest>
  /** Requests whose path (without prefix and query) equals `path`. */
  readonly count: (path: string, method?: string) => number
  /** Answers the next `times` requests (default 1) with `answer`, whatever they ask. */
  readonly failNext: (answer: StubAnswer, times?: number) => void
  readonly setOverride: (override: ((request: StubRequest) => StubAnswer | "hang" | undefined) | undefined) => void
  readonly close: () => Promise<void>
}

export interface StubOptions {
  readonly token: string
  readonly repositories: ReadonlyArray<StubRepository>
  /** Items per page when the client asks for more (the provider's own maximum). Default 100. */
  readonly maxPerPage?: number
  /** GitHub: files above this size come without content (like GitHub's 1 MB limit). Default none. */
  readonly largeFileBytes?: number
  /** GitHub: a recursive tree listing with more entries answers only that many and `truncated: true`. Default none. */
  readonly truncateTreesOver?: number
}

export const sha1 = (text: string) => createHash("sha1").update(text).digest("hex")

/** Git's blob id of a text, as both providers report it. */
export const gitBlobSha = (content: string) => {
  const bytes = Buffer.from(content, "utf8")
  return createHash("sha1").update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes])).digest("hex")
}

/** Base64 with a line break every 60 characters, as GitHub sends file contents. */
const githubBase64 = (content: string) => Buffer.from(content, "utf8").toString("base64").replace(/(.{60})/g, "$1\n")

type Route = (request: StubRequest, segments: ReadonlyArray<string>, stub: Stub) => StubAnswer

const serve = async (prefix: string, options: StubOptions, route: Route): Promise<Stub> => {
  const requests: Array<StubRequest> = []
  const canned: Array<StubAnswer> = []
  let override: ((request: StubRequest) => StubAnswer | "hang" | undefined) | undefined
  const repositories = [...options.repositories]

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = req.url ?? "/"
      const [pathPart = "", queryPart = ""] = raw.split("?", 2) as [string, string?]
      const text = Buffer.concat(chunks).toString("utf8")
      let body: unknown = undefined
      try {
        body = text === "" ? undefined : JSON.parse(text)
      } catch {
        body = text
      }
      const request: StubRequest = {
        method: req.method ?? "",
        url: raw,
        path: pathPart.startsWith(prefix) ? pathPart.slice(prefix.length) : pathPart,
        query: new URLSearchParams(queryPart),
        headers: req.headers,
        body
      }
      requests.push(request)
      const answer = override?.(request) ?? canned.shift() ?? (pathPart.startsWith(prefix)
        ? route(request, request.path.split("/").slice(1), stub)
        : { status: 404, body: { message: "Not Found" } })
      if (answer === "hang") return
      const headers = { "content-type": "application/json", ...answer.headers }
      res.writeHead(answer.status, headers).end(answer.body === undefined ? "" : JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const stub: Stub = {
    baseUrl: `${origin}${prefix}`,
    origin,
    token: options.token,
    repositories,
    requests,
    pullRequests: [],
    count: (path, method = "GET") => requests.filter((r) => r.method === method && r.path === path).length,
    failNext: (answer, times = 1) => {
      for (let i = 0; i < times; i++) canned.push(answer)
    },
    setOverride: (next) => {
      override = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return stub
}

/** One page of `items`, 1-based, honouring `per_page` up to the provider's maximum. */
const page = <A>(items: ReadonlyArray<A>, query: URLSearchParams, maxPerPage: number) => {
  const perPage = Math.min(maxPerPage, Math.max(1, Number(query.get("per_page") ?? "30")))
  const number = Math.max(1, Number(query.get("page") ?? "1"))
  const last = Math.max(1, Math.ceil(items.length / perPage))
  return { items: items.slice((number - 1) * perPage, number * perPage), number, last }
}

// ---------------------------------------------------------------------------------------------
// GitHub

const githubLink = (stub: Stub, request: StubRequest, number: number, last: number) => {
  const at = (n: number) => {
    const query = new URLSearchParams(request.query)
    query.set("page", String(n))
    return `<${stub.baseUrl}${request.path}?${query.toString()}>`
  }
  const links: Array<string> = []
  if (number > 1) links.push(`${at(number - 1)}; rel="prev"`, `${at(1)}; rel="first"`)
  if (number < last) links.push(`${at(number + 1)}; rel="next"`, `${at(last)}; rel="last"`)
  return links.length === 0 ? {} : { link: links.join(", ") }
}

/** A file or directory entry of a git tree, as GitHub's trees API answers it. */
interface TreeEntry {
  readonly path: string
  readonly mode: string
  readonly type: "blob" | "tree" | "commit"
  readonly sha: string
}

/**
 * The git objects behind the stub's branch maps: trees are built from a branch's files on demand
 * (and registered by sha, so a subtree can be read by its sha), blobs by content, commits as the
 * files they hold. `repo.files` stays the truth of every branch.
 */
const gitObjects = () => {
  const blobs = new Map<string, string>()
  const trees = new Map<string, { readonly entries: ReadonlyArray<TreeEntry>; readonly files: Map<string, string>; readonly modes: Map<string, string> }>()
  const commits = new Map<string, { readonly files: Map<string, string>; readonly modes: Map<string, string> }>()

  /** The root tree sha of these files; every subtree registered. */
  const treeOf = (files: Map<string, string>, modes: Map<string, string>): string => {
    const children = new Map<string, Map<string, string>>()
    const entries: Array<TreeEntry> = []
    for (const [path, content] of [...files].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
      const [head, ...tail] = path.split("/")
      if (tail.length === 0) {
        const mode = modes.get(path) ?? "100644"
        const sha = mode === "160000" ? sha1(`submodule:${content}`) : gitBlobSha(content)
        if (mode !== "160000") blobs.set(sha, content)
        entries.push({ path: head!, mode, type: mode === "160000" ? "commit" : "blob", sha })
      } else {
        const child = children.get(head!) ?? new Map<string, string>()
        child.set(tail.join("/"), content)
        children.set(head!, child)
      }
    }
    for (const [name, child] of children) {
      const childModes = new Map([...modes].filter(([p]) => p.startsWith(`${name}/`)).map(([p, m]) => [p.slice(name.length + 1), m]))
      entries.push({ path: name, mode: "040000", type: "tree", sha: treeOf(child, childModes) })
    }
    entries.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    const sha = sha1(`tree ${JSON.stringify(entries)}`)
    trees.set(sha, { entries, files: new Map(files), modes: new Map(modes) })
    return sha
  }

  /** The files of a commit sha (a commit written through the API, or a branch head). */
  const commitFiles = (repo: StubRepository, sha: string) => {
    const commit = commits.get(sha)
    if (commit !== undefined) return commit
    for (const [branch, head] of repo.branches) {
      if (head === sha) return { files: repo.files.get(branch) ?? new Map<string, string>(), modes: repo.modes }
    }
    return undefined
  }

  /** A tree by its sha, or a commit's (or a branch name's) root tree. */
  const resolveTree = (repo: StubRepository, shaOrRef: string) => {
    const known = trees.get(shaOrRef)
    if (known !== undefined) return { sha: shaOrRef, ...known }
    const head = repo.branches.get(shaOrRef)
    const commit = commitFiles(repo, head ?? shaOrRef)
    if (commit === undefined) return undefined
    const sha = treeOf(commit.files, commit.modes)
    return { sha, ...trees.get(sha)! }
  }

  /** Every entry below a tree, with full paths (GitHub's `recursive=1`). */
  const flatten = (entries: ReadonlyArray<TreeEntry>, prefix = ""): Array<TreeEntry> =>
    entries.flatMap((e) => {
      const entry = { ...e, path: `${prefix}${e.path}` }
      return e.type === "tree" ? [entry, ...flatten(trees.get(e.sha)!.entries, `${entry.path}/`)] : [entry]
    })

  return { blobs, trees, commits, treeOf, commitFiles, resolveTree, flatten }
}

const githubRoute = (options: StubOptions): Route => {
  const git = gitObjects()
  return (request, s, stub) => githubAnswer(options, git, request, s, stub)
}

const githubAnswer = (
  options: StubOptions,
  git: ReturnType<typeof gitObjects>,
  request: StubRequest,
  s: ReadonlyArray<string>,
  stub: Stub
): StubAnswer => {
  if (request.headers["authorization"] !== `Bearer ${stub.token}`) {
    return { status: 401, body: { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" } }
  }
  const maxPerPage = options.maxPerPage ?? 100
  const notFound: StubAnswer = { status: 404, body: { message: "Not Found" } }
  const repoJson = (r: StubRepository) => ({
    id: r.id,
    name: r.fullName.split("/")[1],
    full_name: r.fullName,
    private: true,
    owner: { login: r.fullName.split("/")[0] },
    default_branch: r.defaultBranch
  })
  if (request.method === "GET" && s.length === 2 && s[0] === "user" && s[1] === "repos") {
    const p = page(stub.repositories, request.query, maxPerPage)
    return { status: 200, headers: githubLink(stub, request, p.number, p.last), body: p.items.map(repoJson) }
  }
  if (s[0] !== "repos" || s.length < 3) return notFound
  const fullName = `${decodeURIComponent(s[1]!)}/${decodeURIComponent(s[2]!)}`
  const repo = stub.repositories.find((r) => r.fullName === fullName)
  if (repo === undefined) return notFound
  const rest = s.slice(3)
  if (request.method === "GET" && rest.length === 0) return { status: 200, body: repoJson(repo) }
  if (request.method === "GET" && rest.length === 1 && rest[0] === "branches") {
    const all = [...repo.branches].map(([name, sha]) => ({ name, commit: { sha }, protected: false }))
    const p = page(all, request.query, maxPerPage)
    return { status: 200, headers: githubLink(stub, request, p.number, p.last), body: p.items }
  }
  if (rest[0] === "contents" && rest.length >= 2) {
    const path = rest.slice(1).map(decodeURIComponent).join("/")
    if (request.method === "GET") {
      // a branch name, or a branch's head commit sha (as GitHub's `ref` accepts)
      const asked = request.query.get("ref") ?? repo.defaultBranch ?? ""
      const ref = branchOfRef(repo, asked)
      if (ref === undefined) return { status: 404, body: { message: `No commit found for the ref ${asked}` } }
      const files = repo.files.get(ref) ?? new Map<string, string>()
      const content = files.get(path)
      if (content === undefined) {
        const children = [...files.keys()].filter((p) => p.startsWith(`${path}/`))
        return children.length === 0
          ? notFound
          : { status: 200, body: children.map((p) => ({ type: "file", name: p.split("/").pop(), path: p, sha: gitBlobSha(files.get(p)!) })) }
      }
      const size = Buffer.byteLength(content)
      const large = options.largeFileBytes !== undefined && size > options.largeFileBytes
      return {
        status: 200,
        body: {
          type: "file",
          encoding: large ? "none" : "base64",
          size,
          name: path.split("/").pop(),
          path,
          content: large ? "" : githubBase64(content),
          sha: gitBlobSha(content)
        }
      }
    }
    if (request.method === "PUT") {
      const body = request.body as { message?: string; content?: string; branch?: string; sha?: string }
      const branch = body.branch ?? repo.defaultBranch ?? ""
      if (typeof body.message !== "string" || typeof body.content !== "string") return { status: 422, body: { message: "Invalid request." } }
      if (!repo.branches.has(branch)) return { status: 404, body: { message: `Branch ${branch} not found` } }
      const files = repo.files.get(branch) ?? new Map<string, string>()
      const existing = files.get(path)
      if (existing !== undefined && body.sha === undefined) {
        return { status: 422, body: { message: "Invalid request.\n\n\"sha\" wasn't supplied." } }
      }
      if (existing !== undefined && body.sha !== gitBlobSha(existing)) {
        return { status: 409, body: { message: `${path} does not match ${body.sha}` } }
      }
      const content = Buffer.from(body.content, "base64").toString("utf8")
      files.set(path, content)
      repo.files.set(branch, files)
      const commitSha = sha1(`${branch}:${path}:${content}`)
      repo.branches.set(branch, commitSha)
      return { status: existing === undefined ? 201 : 200, body: { content: { path, sha: gitBlobSha(content) }, commit: { sha: commitSha } } }
    }
  }
  if (rest[0] === "git" && rest[1] === "ref" && rest[2] === "heads" && request.method === "GET") {
    const branch = rest.slice(3).map(decodeURIComponent).join("/")
    const sha = repo.branches.get(branch)
    return sha === undefined ? notFound : { status: 200, body: { ref: `refs/heads/${branch}`, object: { sha, type: "commit" } } }
  }
  if (rest[0] === "git" && rest[1] === "trees" && rest.length === 3 && request.method === "GET") {
    const tree = git.resolveTree(repo, decodeURIComponent(rest[2]!))
    if (tree === undefined) return notFound
    const recursive = request.query.get("recursive") !== null && request.query.get("recursive") !== "0" && request.query.get("recursive") !== "false"
    const all = recursive ? git.flatten(tree.entries) : [...tree.entries]
    const limit = recursive ? options.truncateTreesOver : undefined
    const truncated = limit !== undefined && all.length > limit
    const shown = truncated ? all.slice(0, limit) : all
    return {
      status: 200,
      body: {
        sha: tree.sha,
        url: `${stub.baseUrl}/repos/${repo.fullName}/git/trees/${tree.sha}`,
        tree: shown.map((e) => ({ ...e, ...(e.type === "blob" ? { size: Buffer.byteLength(git.blobs.get(e.sha) ?? "") } : {}) })),
        truncated
      }
    }
  }
  if (rest[0] === "git" && rest[1] === "blobs" && rest.length === 2 && request.method === "POST") {
    const body = request.body as { content?: string; encoding?: string }
    if (typeof body.content !== "string") return { status: 422, body: { message: "Invalid request." } }
    const content = body.encoding === "base64" ? Buffer.from(body.content, "base64").toString("utf8") : body.content
    const sha = gitBlobSha(content)
    git.blobs.set(sha, content)
    return { status: 201, body: { sha, url: `${stub.baseUrl}/repos/${repo.fullName}/git/blobs/${sha}` } }
  }
  if (rest[0] === "git" && rest[1] === "trees" && rest.length === 2 && request.method === "POST") {
    const body = request.body as {
      base_tree?: string
      tree?: ReadonlyArray<{ path?: string; mode?: string; type?: string; sha?: string; content?: string }>
    }
    if (!Array.isArray(body.tree)) return { status: 422, body: { message: "Invalid tree info" } }
    const base = body.base_tree === undefined ? undefined : git.trees.get(body.base_tree)
    if (body.base_tree !== undefined && base === undefined) return { status: 422, body: { message: "base_tree is not a valid tree oid" } }
    const files = new Map(base?.files ?? [])
    const modes = new Map(base?.modes ?? [])
    for (const entry of body.tree) {
      // an entry names an existing blob by `sha` or carries its `content` inline (UTF-8), never both
      if (entry.sha !== undefined && entry.content !== undefined) return { status: 422, body: { message: "Invalid tree info" } }
      const content = typeof entry.content === "string" ? entry.content : git.blobs.get(entry.sha ?? "")
      if (typeof entry.path !== "string" || entry.type !== "blob" || content === undefined) {
        return { status: 422, body: { message: "GitRPC::BadObjectState" } }
      }
      // GitHub writes the blob an inline content implies; its id is git's id of the UTF-8 bytes
      if (typeof entry.content === "string") git.blobs.set(gitBlobSha(content), content)
      files.set(entry.path, content)
      if (entry.mode === undefined || entry.mode === "100644") modes.delete(entry.path)
      else modes.set(entry.path, entry.mode)
    }
    return { status: 201, body: { sha: git.treeOf(files, modes), truncated: false } }
  }
  if (rest[0] === "git" && rest[1] === "commits" && rest.length === 2 && request.method === "POST") {
    const body = request.body as { message?: string; tree?: string; parents?: ReadonlyArray<string> }
    const tree = git.trees.get(body.tree ?? "")
    if (typeof body.message !== "string" || tree === undefined || !Array.isArray(body.parents)) {
      return { status: 422, body: { message: "Invalid request." } }
    }
    if (body.parents.some((p) => git.commitFiles(repo, p) === undefined)) return { status: 422, body: { message: "Parent SHA does not exist" } }
    const sha = sha1(`commit ${body.tree} ${body.parents.join(",")} ${body.message} ${git.commits.size}`)
    git.commits.set(sha, { files: tree.files, modes: tree.modes })
    return { status: 201, body: { sha, tree: { sha: body.tree }, parents: body.parents.map((p) => ({ sha: p })), message: body.message } }
  }
  if (rest[0] === "git" && rest[1] === "refs" && rest[2] === "heads" && rest.length > 3 && request.method === "PATCH") {
    const branch = rest.slice(3).map(decodeURIComponent).join("/")
    const body = request.body as { sha?: string; force?: boolean }
    if (!repo.branches.has(branch)) return { status: 422, body: { message: "Reference does not exist" } }
    const commit = git.commitFiles(repo, body.sha ?? "")
    if (commit === undefined) return { status: 422, body: { message: "Object does not exist" } }
    if (body.force !== true) return { status: 422, body: { message: "Update is not a fast forward" } }
    repo.branches.set(branch, body.sha!)
    repo.files.set(branch, new Map(commit.files))
    return { status: 200, body: { ref: `refs/heads/${branch}`, object: { sha: body.sha, type: "commit" } } }
  }
  if (rest[0] === "git" && rest[1] === "blobs" && rest.length === 3 && request.method === "GET") {
    for (const files of repo.files.values()) {
      for (const content of files.values()) {
        if (gitBlobSha(content) === rest[2]) {
          return { status: 200, body: { sha: rest[2], size: Buffer.byteLength(content), encoding: "base64", content: githubBase64(content) } }
        }
      }
    }
    return notFound
  }
  if (rest[0] === "git" && rest[1] === "refs" && rest.length === 2 && request.method === "POST") {
    const body = request.body as { ref?: string; sha?: string }
    if (typeof body.ref !== "string" || !body.ref.startsWith("refs/heads/") || typeof body.sha !== "string") {
      return { status: 422, body: { message: "Invalid request." } }
    }
    const name = body.ref.slice("refs/heads/".length)
    if (repo.branches.has(name)) return { status: 422, body: { message: "Reference already exists" } }
    const commit = git.commitFiles(repo, body.sha)
    repo.branches.set(name, body.sha)
    if (commit !== undefined) repo.files.set(name, new Map(commit.files))
    return { status: 201, body: { ref: body.ref, object: { sha: body.sha, type: "commit" } } }
  }
  const pullJson = (pull: StubPullRequest) => ({
    number: pull.number,
    html_url: `https://github.example/${pull.fullName}/pull/${pull.number}`,
    state: pull.state,
    title: pull.title,
    body: pull.body ?? null,
    head: { ref: pull.head, label: `${pull.fullName.split("/")[0]}:${pull.head}` },
    base: { ref: pull.base }
  })
  const pulls = stub.pullRequests.filter((p) => p.fullName === repo.fullName)
  if (rest[0] === "pulls" && rest.length === 1 && request.method === "GET") {
    const head = request.query.get("head")
    const state = request.query.get("state") ?? "open"
    const owner = repo.fullName.split("/")[0]
    const found = pulls.filter((p) => (head === null || head === `${owner}:${p.head}`) && (state === "all" || p.state === state))
    const p = page(found, request.query, maxPerPage)
    return { status: 200, headers: githubLink(stub, request, p.number, p.last), body: p.items.map(pullJson) }
  }
  if (rest[0] === "pulls" && rest.length === 1 && request.method === "POST") {
    const body = request.body as { title?: string; head?: string; base?: string; body?: string }
    if (typeof body.title !== "string" || !repo.branches.has(body.head ?? "") || !repo.branches.has(body.base ?? "")) {
      return { status: 422, body: { message: "Validation Failed" } }
    }
    if (pulls.some((p) => p.state === "open" && p.head === body.head && p.base === body.base)) {
      return { status: 422, body: { message: "Validation Failed", errors: [{ message: `A pull request already exists for ${body.head}.` }] } }
    }
    const pull: StubPullRequest = {
      fullName: repo.fullName,
      number: 42 + pulls.length,
      head: body.head!,
      base: body.base!,
      title: body.title,
      body: body.body,
      state: "open"
    }
    stub.pullRequests.push(pull)
    return { status: 201, body: pullJson(pull) }
  }
  if (rest[0] === "pulls" && rest.length === 2 && request.method === "PATCH") {
    const pull = pulls.find((p) => String(p.number) === rest[1])
    if (pull === undefined) return notFound
    const body = request.body as { title?: string; body?: string }
    if (body.title !== undefined) pull.title = body.title
    if (body.body !== undefined) pull.body = body.body
    return { status: 200, body: pullJson(pull) }
  }
  return notFound
}

/** A GitHub Enterprise Server-like API under `/api/v3`. */
export const github = (options: StubOptions): Effect.Effect<Stub, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => serve("/api/v3", options, githubRoute(options))), (s) => Effect.promise(() => s.close()))

// ---------------------------------------------------------------------------------------------
// GitLab

const gitlabPages = (number: number, last: number, total: number, perPage: number) => ({
  "x-page": String(number),
  "x-per-page": String(perPage),
  "x-total": String(total),
  "x-total-pages": String(last),
  "x-next-page": number < last ? String(number + 1) : "",
  "x-prev-page": number > 1 ? String(number - 1) : ""
})

/** A branch name or a commit sha that is some branch's head, as the branch it names. */
const branchOfRef = (repo: StubRepository, ref: string) =>
  repo.branches.has(ref) ? ref : [...repo.branches].find(([, sha]) => sha === ref)?.[0]

/** Every file and directory below the root, sorted by path, as GitLab's recursive tree lists them. */
const gitlabTree = (repo: StubRepository, branch: string) => {
  const files = repo.files.get(branch) ?? new Map<string, string>()
  const items = new Map<string, { id: string; name: string; type: string; path: string; mode: string }>()
  for (const [path, content] of files) {
    const segments = path.split("/")
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join("/")
      items.set(dir, { id: sha1(`tree:${dir}`), name: segments[i - 1]!, type: "tree", path: dir, mode: "040000" })
    }
    const mode = repo.modes.get(path) ?? "100644"
    items.set(path, { id: gitBlobSha(content), name: segments.at(-1)!, type: mode === "160000" ? "commit" : "blob", path, mode })
  }
  return [...items.values()].sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
}

const gitlabRoute = (options: StubOptions): Route => (request, s, stub) => {
  if (request.headers["private-token"] !== stub.token) return { status: 401, body: { message: "401 Unauthorized" } }
  const maxPerPage = options.maxPerPage ?? 100
  if (request.method === "GET" && s.length === 1 && s[0] === "projects") {
    const p = page(stub.repositories, request.query, maxPerPage)
    const perPage = Math.min(maxPerPage, Number(request.query.get("per_page") ?? "20"))
    return {
      status: 200,
      headers: gitlabPages(p.number, p.last, stub.repositories.length, perPage),
      body: p.items.map((r) => ({
        id: r.id,
        name: r.fullName.split("/").pop(),
        path_with_namespace: r.fullName,
        default_branch: r.defaultBranch,
        web_url: `https://gitlab.example/${r.fullName}`
      }))
    }
  }
  if (s[0] !== "projects" || s.length < 2) return { status: 404, body: { error: "404 Not Found" } }
  const id = decodeURIComponent(s[1]!)
  const repo = stub.repositories.find((r) => r.fullName === id || String(r.id) === id)
  if (repo === undefined) return { status: 404, body: { message: "404 Project Not Found" } }
  const rest = s.slice(2)
  if (rest[0] !== "repository" && rest[0] !== "merge_requests") return { status: 404, body: { error: "404 Not Found" } }
  if (rest[1] === "branches" && rest.length === 2 && request.method === "GET") {
    const all = [...repo.branches].map(([name, sha]) => ({ name, default: name === repo.defaultBranch, commit: { id: sha } }))
    const p = page(all, request.query, maxPerPage)
    const perPage = Math.min(maxPerPage, Number(request.query.get("per_page") ?? "20"))
    return { status: 200, headers: gitlabPages(p.number, p.last, all.length, perPage), body: p.items }
  }
  if (rest[1] === "branches" && rest.length === 3 && request.method === "GET") {
    const name = decodeURIComponent(rest[2]!)
    const sha = repo.branches.get(name)
    return sha === undefined
      ? { status: 404, body: { message: "404 Branch Not Found" } }
      : { status: 200, body: { name, default: name === repo.defaultBranch, commit: { id: sha, short_id: sha.slice(0, 8) } } }
  }
  if (rest[1] === "tree" && rest.length === 2 && request.method === "GET") {
    const branch = branchOfRef(repo, request.query.get("ref") ?? repo.defaultBranch ?? "")
    if (branch === undefined) return { status: 404, body: { message: "404 Tree Not Found" } }
    const recursive = request.query.get("recursive") === "true"
    const all = gitlabTree(repo, branch).filter((i) => recursive || !i.path.includes("/"))
    const perPage = Math.min(maxPerPage, Math.max(1, Number(request.query.get("per_page") ?? "20")))
    const p = page(all, request.query, maxPerPage)
    return { status: 200, headers: gitlabPages(p.number, p.last, all.length, perPage), body: p.items }
  }
  if (rest[1] === "branches" && rest.length === 2 && request.method === "POST") {
    const body = request.body as { branch?: string; ref?: string }
    if (typeof body.branch !== "string" || typeof body.ref !== "string") return { status: 400, body: { error: "branch is missing" } }
    if (repo.branches.has(body.branch)) return { status: 400, body: { message: "Branch already exists" } }
    const from = repo.branches.get(body.ref) ?? ([...repo.branches.values()].includes(body.ref) ? body.ref : undefined)
    if (from === undefined) return { status: 400, body: { message: "Invalid reference name" } }
    repo.branches.set(body.branch, from)
    repo.files.set(body.branch, new Map(repo.files.get(body.ref) ?? []))
    return { status: 201, body: { name: body.branch, commit: { id: from }, default: false } }
  }
  if (rest[1] === "files" && rest.length === 3 && request.method === "HEAD") {
    // metadata only, in headers (GitLab's "Get file metadata only")
    const path = decodeURIComponent(rest[2]!)
    const ref = branchOfRef(repo, request.query.get("ref") ?? "")
    const content = ref === undefined ? undefined : repo.files.get(ref)?.get(path)
    if (content === undefined) return { status: 404 }
    return {
      status: 200,
      headers: {
        "x-gitlab-file-path": encodeURIComponent(path),
        "x-gitlab-size": String(Buffer.byteLength(content)),
        "x-gitlab-encoding": "base64",
        "x-gitlab-blob-id": gitBlobSha(content),
        "x-gitlab-commit-id": repo.branches.get(ref!)!,
        "x-gitlab-last-commit-id": repo.branches.get(ref!)!,
        "x-gitlab-ref": request.query.get("ref") ?? ""
      }
    }
  }
  if (rest[1] === "files" && rest.length === 3 && request.method === "GET") {
    const path = decodeURIComponent(rest[2]!)
    const ref = branchOfRef(repo, request.query.get("ref") ?? "")
    if (ref === undefined) return { status: 404, body: { message: "404 Commit Not Found" } }
    const content = repo.files.get(ref)?.get(path)
    if (content === undefined) return { status: 404, body: { message: "404 File Not Found" } }
    return {
      status: 200,
      body: {
        file_name: path.split("/").pop(),
        file_path: path,
        size: Buffer.byteLength(content),
        encoding: "base64",
        content: Buffer.from(content, "utf8").toString("base64"),
        content_sha256: createHash("sha256").update(content).digest("hex"),
        ref,
        blob_id: gitBlobSha(content),
        commit_id: repo.branches.get(ref),
        last_commit_id: repo.branches.get(ref)
      }
    }
  }
  if (rest[1] === "commits" && rest.length === 2 && request.method === "POST") {
    const body = request.body as {
      branch?: string
      commit_message?: string
      start_branch?: string
      start_sha?: string
      force?: boolean
      actions?: ReadonlyArray<{ action: string; file_path: string; content?: string; encoding?: string }>
    }
    if (typeof body.branch !== "string" || typeof body.commit_message !== "string" || !Array.isArray(body.actions)) {
      return { status: 400, body: { error: "branch, commit_message, actions are missing" } }
    }
    if (body.start_branch !== undefined && body.start_sha !== undefined) {
      return { status: 400, body: { error: "start_branch, start_sha are mutually exclusive" } }
    }
    const start = body.start_sha !== undefined ? branchOfRef(repo, body.start_sha) : body.start_branch
    if ((body.start_sha !== undefined || body.start_branch !== undefined) && (start === undefined || !repo.branches.has(start))) {
      return { status: 400, body: { message: "Invalid start" } }
    }
    // a new branch starts from start_*; `force` overwrites an existing one with a commit on start_*
    const files = !repo.branches.has(body.branch) || body.force === true
      ? start === undefined
        ? undefined
        : new Map(repo.files.get(start) ?? [])
      : new Map(repo.files.get(body.branch) ?? [])
    if (files === undefined) return { status: 400, body: { message: "You can only create or edit files when you are on a branch" } }
    for (const a of body.actions) {
      const text = a.content === undefined ? "" : a.encoding === "base64" ? Buffer.from(a.content, "base64").toString("utf8") : a.content
      if (a.action === "create" && files.has(a.file_path)) return { status: 400, body: { message: "A file with this name already exists" } }
      if ((a.action === "update" || a.action === "delete") && !files.has(a.file_path)) return { status: 400, body: { message: "A file with this name doesn't exist" } }
      if (a.action === "delete") files.delete(a.file_path)
      else files.set(a.file_path, text)
    }
    repo.files.set(body.branch, files)
    const id = sha1(`${body.branch}:${JSON.stringify(body.actions)}:${stub.requests.length}`)
    repo.branches.set(body.branch, id)
    return { status: 201, body: { id, short_id: id.slice(0, 8), title: body.commit_message } }
  }
  const mergeRequests = stub.pullRequests.filter((p) => p.fullName === repo.fullName)
  const mergeRequestJson = (mr: StubPullRequest) => ({
    id: 9000 + mr.number,
    iid: mr.number,
    project_id: repo.id,
    source_project_id: repo.id,
    target_project_id: repo.id,
    source_branch: mr.head,
    target_branch: mr.base,
    title: mr.title,
    description: mr.body ?? null,
    state: mr.state === "open" ? "opened" : "closed",
    web_url: `https://gitlab.example/${repo.fullName}/-/merge_requests/${mr.number}`
  })
  if (rest[0] === "merge_requests" && rest.length === 1 && request.method === "GET") {
    const source = request.query.get("source_branch")
    const state = request.query.get("state") ?? "all"
    const found = mergeRequests.filter((mr) =>
      (source === null || mr.head === source) && (state === "all" || (state === "opened" ? mr.state === "open" : mr.state === "closed"))
    )
    const p = page(found, request.query, maxPerPage)
    const perPage = Math.min(maxPerPage, Number(request.query.get("per_page") ?? "20"))
    return { status: 200, headers: gitlabPages(p.number, p.last, found.length, perPage), body: p.items.map(mergeRequestJson) }
  }
  if (rest[0] === "merge_requests" && rest.length === 1 && request.method === "POST") {
    const body = request.body as { source_branch?: string; target_branch?: string; title?: string; description?: string }
    if (typeof body.title !== "string" || !repo.branches.has(body.source_branch ?? "") || !repo.branches.has(body.target_branch ?? "")) {
      return { status: 400, body: { message: "Invalid merge request" } }
    }
    if (mergeRequests.some((mr) => mr.state === "open" && mr.head === body.source_branch && mr.base === body.target_branch)) {
      return { status: 409, body: { message: ["Another open merge request already exists for this source branch: !7"] } }
    }
    const mr: StubPullRequest = {
      fullName: repo.fullName,
      number: 7 + mergeRequests.length,
      head: body.source_branch!,
      base: body.target_branch!,
      title: body.title,
      body: body.description,
      state: "open"
    }
    stub.pullRequests.push(mr)
    return { status: 201, body: mergeRequestJson(mr) }
  }
  if (rest[0] === "merge_requests" && rest.length === 2 && request.method === "PUT") {
    const mr = mergeRequests.find((m) => String(m.number) === rest[1])
    if (mr === undefined) return { status: 404, body: { message: "404 Not found" } }
    const body = request.body as { title?: string; description?: string }
    if (body.title !== undefined) mr.title = body.title
    if (body.description !== undefined) mr.body = body.description
    return { status: 200, body: mergeRequestJson(mr) }
  }
  return { status: 404, body: { error: "404 Not Found" } }
}

/** A GitLab-like API under `/api/v4`. */
export const gitlab = (options: StubOptions): Effect.Effect<Stub, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => serve("/api/v4", options, gitlabRoute(options))), (s) => Effect.promise(() => s.close()))

/** Repositories `owner/repo-001` ... with the given count, for pagination. */
export const manyRepositories = (count: number, owner = "acme"): Array<StubRepository> =>
  Array.from({ length: count }, (_, i) => repository(1000 + i, `${owner}/repo-${String(i + 1).padStart(3, "0")}`))
