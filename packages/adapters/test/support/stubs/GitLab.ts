/** A local stand-in for the GitLab REST v4 API (under `/api/v4`). */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import {
  branchOfRef,
  gitBlobSha,
  page,
  type Route,
  serve,
  sha1,
  type Stub,
  type StubOptions,
  type StubPullRequest,
  type StubRepository
} from "./Server.js"

const gitlabPages = (number: number, last: number, total: number, perPage: number) => ({
  "x-page": String(number),
  "x-per-page": String(perPage),
  "x-total": String(total),
  "x-total-pages": String(last),
  "x-next-page": number < last ? String(number + 1) : "",
  "x-prev-page": number > 1 ? String(number - 1) : ""
})

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
      if ((a.action === "update" || a.action === "delete") && !files.has(a.file_path)) {
        return { status: 400, body: { message: "A file with this name doesn't exist" } }
      }
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
