/** A local stand-in for the GitHub REST v3 API (GitHub Enterprise Server-like, under `/api/v3`). */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import {
  branchOfRef,
  gitBlobSha,
  page,
  type Route,
  serve,
  sha1,
  type Stub,
  type StubAnswer,
  type StubOptions,
  type StubPullRequest,
  type StubRepository,
  type StubRequest
} from "./Server.js"

/** Base64 with a line break every 60 characters, as GitHub sends file contents. */
const githubBase64 = (content: string) => Buffer.from(content, "utf8").toString("base64").replace(/(.{60})/g, "$1\n")
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
  const trees = new Map<
    string,
    { readonly entries: ReadonlyArray<TreeEntry>; readonly files: Map<string, string>; readonly modes: Map<string, string> }
  >()
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
          : {
            status: 200,
            body: children.map((p) => ({ type: "file", name: p.split("/").pop(), path: p, sha: gitBlobSha(files.get(p)!) }))
          }
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
      if (typeof body.message !== "string" || typeof body.content !== "string") {
        return { status: 422, body: { message: "Invalid request." } }
      }
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
      return {
        status: existing === undefined ? 201 : 200,
        body: { content: { path, sha: gitBlobSha(content) }, commit: { sha: commitSha } }
      }
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
    const recursive = request.query.get("recursive") !== null && request.query.get("recursive") !== "0" &&
      request.query.get("recursive") !== "false"
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
    if (body.parents.some((p) => git.commitFiles(repo, p) === undefined)) {
      return { status: 422, body: { message: "Parent SHA does not exist" } }
    }
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
          return {
            status: 200,
            body: { sha: rest[2], size: Buffer.byteLength(content), encoding: "base64", content: githubBase64(content) }
          }
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
      return {
        status: 422,
        body: { message: "Validation Failed", errors: [{ message: `A pull request already exists for ${body.head}.` }] }
      }
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
