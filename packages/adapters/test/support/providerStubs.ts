/**
 * Local stand-ins for the GitHub REST v3 and GitLab REST v4 APIs on 127.0.0.1, speaking the
 * documented shapes the adapters rely on: token checks (`Authorization: Bearer` /
 * `PRIVATE-TOKEN`), pagination (`Link: rel="next"` with absolute URLs / `x-next-page`), default
 * branches, base64 file contents with git blob ids, the error bodies of a missing file, branch
 * or repository, and the remediation writes (refs, contents, pulls / branches, commits, merge
 * requests) applied to their in-memory repositories.
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
}

export const repository = (
  id: number,
  fullName: string,
  options: { readonly defaultBranch?: string | null; readonly branches?: ReadonlyArray<string>; readonly files?: Record<string, Record<string, string>> } = {}
): StubRepository => {
  const defaultBranch = options.defaultBranch === undefined ? "main" : options.defaultBranch
  const names = options.branches ?? (defaultBranch === null ? [] : [defaultBranch])
  return {
    id,
    fullName,
    defaultBranch,
    branches: new Map(names.map((b, i) => [b, sha1(`${fullName}@${b}#${i}`)])),
    files: new Map(Object.entries(options.files ?? {}).map(([b, fs]) => [b, new Map(Object.entries(fs))]))
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

const githubRoute = (options: StubOptions): Route => (request, s, stub) => {
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
      const ref = request.query.get("ref") ?? repo.defaultBranch ?? ""
      if (!repo.branches.has(ref)) return { status: 404, body: { message: `No commit found for the ref ${ref}` } }
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
    repo.branches.set(name, body.sha)
    return { status: 201, body: { ref: body.ref, object: { sha: body.sha, type: "commit" } } }
  }
  if (rest[0] === "pulls" && rest.length === 1 && request.method === "POST") {
    const body = request.body as { title?: string; head?: string; base?: string }
    if (typeof body.title !== "string" || !repo.branches.has(body.head ?? "") || !repo.branches.has(body.base ?? "")) {
      return { status: 422, body: { message: "Validation Failed" } }
    }
    return { status: 201, body: { number: 42, html_url: `https://github.example/${repo.fullName}/pull/42`, state: "open" } }
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
  if (rest[1] === "files" && rest.length === 3 && request.method === "GET") {
    const path = decodeURIComponent(rest[2]!)
    const ref = request.query.get("ref") ?? ""
    if (!repo.branches.has(ref)) return { status: 404, body: { message: "404 Commit Not Found" } }
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
      actions?: ReadonlyArray<{ action: string; file_path: string; content?: string; encoding?: string }>
    }
    if (typeof body.branch !== "string" || typeof body.commit_message !== "string" || !Array.isArray(body.actions)) {
      return { status: 400, body: { error: "branch, commit_message, actions are missing" } }
    }
    if (!repo.branches.has(body.branch)) {
      if (body.start_branch === undefined || !repo.branches.has(body.start_branch)) return { status: 400, body: { message: "You can only create or edit files when you are on a branch" } }
      repo.branches.set(body.branch, repo.branches.get(body.start_branch)!)
      repo.files.set(body.branch, new Map(repo.files.get(body.start_branch) ?? []))
    }
    const files = repo.files.get(body.branch) ?? new Map<string, string>()
    for (const a of body.actions) {
      const text = a.content === undefined ? "" : a.encoding === "base64" ? Buffer.from(a.content, "base64").toString("utf8") : a.content
      if (a.action === "create" && files.has(a.file_path)) return { status: 400, body: { message: "A file with this name already exists" } }
      if ((a.action === "update" || a.action === "delete") && !files.has(a.file_path)) return { status: 400, body: { message: "A file with this name doesn't exist" } }
      if (a.action === "delete") files.delete(a.file_path)
      else files.set(a.file_path, text)
    }
    repo.files.set(body.branch, files)
    const id = sha1(`${body.branch}:${JSON.stringify(body.actions)}`)
    repo.branches.set(body.branch, id)
    return { status: 201, body: { id, short_id: id.slice(0, 8), title: body.commit_message } }
  }
  if (rest[0] === "merge_requests" && rest.length === 1 && request.method === "POST") {
    const body = request.body as { source_branch?: string; target_branch?: string; title?: string }
    if (typeof body.title !== "string" || !repo.branches.has(body.source_branch ?? "") || !repo.branches.has(body.target_branch ?? "")) {
      return { status: 400, body: { message: "Invalid merge request" } }
    }
    return { status: 201, body: { id: 9001, iid: 7, web_url: `https://gitlab.example/${repo.fullName}/-/merge_requests/7`, state: "opened" } }
  }
  return { status: 404, body: { error: "404 Not Found" } }
}

/** A GitLab-like API under `/api/v4`. */
export const gitlab = (options: StubOptions): Effect.Effect<Stub, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => serve("/api/v4", options, gitlabRoute(options))), (s) => Effect.promise(() => s.close()))

/** Repositories `owner/repo-001` ... with the given count, for pagination. */
export const manyRepositories = (count: number, owner = "acme"): Array<StubRepository> =>
  Array.from({ length: count }, (_, i) => repository(1000 + i, `${owner}/repo-${String(i + 1).padStart(3, "0")}`))
