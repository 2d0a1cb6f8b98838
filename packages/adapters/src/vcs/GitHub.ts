/**
 * GitHub REST v3 (github.com at `https://api.github.com`, GitHub Enterprise Server at
 * `https://host/api/v3`), authenticated with `Authorization: Bearer <token>`.
 *
 * Reads serve onboarding, sync and branch scans (the `VcsProvider` port, through `Providers.ts`
 * which caches some of them); `openRemediation` writes a remediation pull request through the Git
 * Data API (one commit of all files). Every failure is a
 * `VcsProviderError` reason (or `VcsWriteRejected` for a refused write), never the provider's
 * text or the token.
 */
import type { RemediationOpened, RemediationWrite, VcsConnection, VcsFile, VcsTree } from "@image-policy/core"
import { Text, VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ProviderHttp from "./ProviderHttp.js"

export type Options = ProviderHttp.ClientOptions

/** A GitHub client; `undefined` when the base URL is not an absolute http(s) URL. */
export const client = (options: Options): ProviderHttp.Client | undefined =>
  ProviderHttp.makeClient("github", options, (token) => ({ authorization: `Bearer ${token}` }), {
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28"
  })

const notFound = () => new VcsProviderError({ reason: "not-found" })

/** `/repos/{owner}/{repo}`, or `not-found` without a request when the name is not `owner/repo`. */
const repoPath = (fullName: string): Effect.Effect<string, VcsProviderError> => {
  const segments = ProviderHttp.safeSegments(fullName)
  return segments === undefined || segments.length !== 2
    ? Effect.fail(notFound())
    : Effect.succeed(`/repos/${ProviderHttp.encodeSegments(segments)}`)
}

const RepositoryJson = Schema.Struct({
  id: Schema.Union([Schema.Number, ProviderHttp.RepositoryIdText]),
  full_name: ProviderHttp.RepositoryName,
  default_branch: ProviderHttp.BranchName
})
/** A listed repository whose names no store can hold is left out of the listing (the others stay). */
const RepositoryShape = Schema.Struct({
  id: Schema.Union([Schema.Number, Schema.String]),
  full_name: Schema.String,
  default_branch: Schema.String
})
const toRepository = (r: typeof RepositoryJson.Type): VcsConnection.ProviderRepository => ({
  externalRepoId: String(r.id),
  fullName: r.full_name,
  defaultBranch: r.default_branch
})

/** All pages of a listing; entries of `shape` that `entry` refuses are left out (`ProviderHttp.decodeEntries`). */
const pages = <A, I, S, SI>(
  client: ProviderHttp.Client,
  entry: Schema.Codec<A, I>,
  shape: Schema.Codec<S, SI> | undefined,
  request: ProviderHttp.Request
) =>
  ProviderHttp.collectPages(
    client,
    client.exchange(request),
    (answer) => {
      const next = ProviderHttp.nextLink(answer.headers.get("link"))
      return next === undefined ? undefined : client.exchangeUrl(next)
    },
    (answer) => ProviderHttp.decodeEntries(entry, shape, answer.body)
  )

/** Every repository the token can access (`GET /user/repos`, all pages). */
export const listRepositories = (
  client: ProviderHttp.Client
): Effect.Effect<ReadonlyArray<VcsConnection.ProviderRepository>, VcsProviderError> =>
  Effect.map(
    pages(client, RepositoryJson, RepositoryShape, { method: "GET", path: "/user/repos", query: { per_page: "100" } }),
    (rs) => rs.map(toRepository)
  )

/** One repository (`GET /repos/{owner}/{repo}`). */
export const getRepository = (
  client: ProviderHttp.Client,
  fullName: string
): Effect.Effect<VcsConnection.ProviderRepository, VcsProviderError> =>
  repoPath(fullName).pipe(
    Effect.flatMap((path) => ProviderHttp.getJson(client, RepositoryJson, { method: "GET", path })),
    Effect.map(toRepository)
  )

const BranchJson = Schema.Struct({ name: ProviderHttp.BranchName })
const BranchShape = Schema.Struct({ name: Schema.String })

/**
 * The branches of a repository, all pages. `isDefault` compares with `defaultBranch` when the
 * caller knows the provider's default branch, and otherwise asks for the repository first.
 */
export const listBranches = (
  client: ProviderHttp.Client,
  repository: { readonly fullName: string; readonly defaultBranch?: string | undefined }
): Effect.Effect<ReadonlyArray<VcsConnection.AvailableBranch>, VcsProviderError> =>
  Effect.gen(function*() {
    const path = yield* repoPath(repository.fullName)
    const defaultBranch = repository.defaultBranch ?? (yield* getRepository(client, repository.fullName)).defaultBranch
    const branches = yield* pages(client, BranchJson, BranchShape, { method: "GET", path: `${path}/branches`, query: { per_page: "100" } })
    return branches.map((b) => ({ name: b.name, isDefault: b.name === defaultBranch }))
  })

const ContentJson = Schema.Struct({
  type: Schema.String,
  sha: ProviderHttp.GitObjectId,
  encoding: Schema.optionalKey(Schema.String),
  content: Schema.optionalKey(Schema.String)
})
const BlobJson = Schema.Struct({ sha: ProviderHttp.GitObjectId, encoding: Schema.String, content: Schema.String })

const textOf = (encoding: string | undefined, content: string): Effect.Effect<string, VcsProviderError> => {
  const text = encoding === "base64" ? ProviderHttp.decodeBase64Text(content) : encoding === "utf-8" ? content : undefined
  return text === undefined ? Effect.fail(new VcsProviderError({ reason: "unavailable" })) : Effect.succeed(text)
}

/**
 * A file at the head of a branch (`GET /repos/{o}/{r}/contents/{path}?ref=`): its text and blob
 * sha. `None` when there is no file at the path (or a directory, a symlink or a submodule); a
 * branch that does not exist is `not-found`. Files over 1 MB, whose content the contents API
 * leaves out, are read through the git blobs API.
 */
export const readFile = (
  client: ProviderHttp.Client,
  file: { readonly fullName: string; readonly branch: string; readonly path: string }
): Effect.Effect<Option.Option<VcsFile>, VcsProviderError> =>
  Effect.gen(function*() {
    const repo = yield* repoPath(file.fullName)
    const segments = ProviderHttp.safeSegments(file.path)
    if (segments === undefined) return Option.none()
    const answer = yield* client.exchange({
      method: "GET",
      path: `${repo}/contents/${ProviderHttp.encodeSegments(segments)}`,
      query: { ref: file.branch }
    })
    if (answer.status === 404) {
      // GitHub says which: an unknown ref is "No commit found for the ref ...", a missing file "Not Found"
      const message = (answer.body as { message?: unknown } | undefined)?.message
      return typeof message === "string" && /no commit found/i.test(message) ? yield* Effect.fail(notFound()) : Option.none()
    }
    yield* ProviderHttp.ensureSuccess(client)(answer)
    if (Array.isArray(answer.body)) return Option.none()
    const found = yield* ProviderHttp.decode(ContentJson, answer.body)
    if (found.type !== "file") return Option.none()
    if (found.encoding === "base64" && found.content !== undefined && found.content !== "") {
      return Option.some({ content: yield* textOf(found.encoding, found.content), version: found.sha })
    }
    const blob = yield* ProviderHttp.getJson(client, BlobJson, {
      method: "GET",
      path: `${repo}/git/blobs/${encodeURIComponent(found.sha)}`
    })
    return Option.some({ content: yield* textOf(blob.encoding, blob.content), version: found.sha })
  })

// ---------------------------------------------------------------------------------------------
// Writes for remediation

const RefJson = Schema.Struct({ ref: Schema.String, object: Schema.Struct({ sha: ProviderHttp.GitObjectId }) })

/** The commit sha at the head of a branch (`GET /repos/{o}/{r}/git/ref/heads/{branch}`). */
export const branchHead = (
  client: ProviderHttp.Client,
  at: { readonly fullName: string; readonly branch: string }
): Effect.Effect<string, VcsProviderError> =>
  Effect.gen(function*() {
    const repo = yield* repoPath(at.fullName)
    const segments = ProviderHttp.safeSegments(at.branch)
    if (segments === undefined) return yield* Effect.fail(notFound())
    const ref = yield* ProviderHttp.getJson(client, RefJson, {
      method: "GET",
      path: `${repo}/git/ref/heads/${ProviderHttp.encodeSegments(segments)}`
    })
    return ref.object.sha
  })

const PullJson = Schema.Struct({ number: ProviderHttp.RequestNumber, html_url: Text.StorableString })

// ---------------------------------------------------------------------------------------------
// Branch scans

const TreeEntryJson = Schema.Struct({
  path: ProviderHttp.FilePath,
  mode: Schema.String,
  type: Schema.String,
  sha: ProviderHttp.GitObjectId
})
/** An entry whose path no store can hold is left out (a scan skips it); any other malformed entry fails the tree. */
const TreeEntryShape = Schema.Struct({ ...TreeEntryJson.fields, path: Schema.String })
const TreeJson = Schema.Struct({ sha: ProviderHttp.GitObjectId, tree: Schema.Array(Schema.Unknown), truncated: Schema.Boolean })
type TreeEntry = typeof TreeEntryJson.Type

/** A regular or executable file; symlinks (120000) and submodules (type `commit`) are not files. */
const isFile = (entry: TreeEntry) => entry.type === "blob" && entry.mode !== "120000"

/** `GET /repos/{o}/{r}/git/trees/{sha}` (a tree sha, or a commit sha for its root tree). */
const getTree = (client: ProviderHttp.Client, repo: string, sha: string, recursive: boolean) =>
  ProviderHttp.getJson(client, TreeJson, {
    method: "GET",
    path: `${repo}/git/trees/${encodeURIComponent(sha)}`,
    ...(recursive ? { query: { recursive: "1" } } : {})
  }).pipe(Effect.flatMap((tree) =>
    Effect.map(ProviderHttp.decodeEntries(TreeEntryJson, TreeEntryShape, tree.tree), (entries) => ({ ...tree, tree: entries }))
  ))

/** At most this many subtree requests at once when a truncated tree is walked. */
const treeConcurrency = 4

/**
 * Every file path below a tree. One recursive request answers most repositories; when GitHub
 * truncates it (over 100 000 entries or 7 MB), this level is read without recursion and each
 * subtree is walked the same way, so no path is missed. A single directory too large to list is
 * `unavailable`.
 */
const filesBelow = (
  client: ProviderHttp.Client,
  repo: string,
  sha: string,
  prefix: string
): Effect.Effect<ReadonlyArray<string>, VcsProviderError> =>
  Effect.gen(function*() {
    const recursive = yield* getTree(client, repo, sha, true)
    if (!recursive.truncated) return recursive.tree.filter(isFile).map((e) => `${prefix}${e.path}`)
    const level = yield* getTree(client, repo, sha, false)
    if (level.truncated) return yield* Effect.fail(new VcsProviderError({ reason: "unavailable" }))
    const below = yield* Effect.forEach(
      level.tree.filter((e) => e.type === "tree"),
      (e) => filesBelow(client, repo, e.sha, `${prefix}${e.path}/`),
      { concurrency: treeConcurrency }
    )
    return [...level.tree.filter(isFile).map((e) => `${prefix}${e.path}`), ...below.flat()]
  })

/** The head commit of a branch and every file path in it (git refs and trees APIs). */
export const listFiles = (
  client: ProviderHttp.Client,
  at: { readonly fullName: string; readonly branch: string }
): Effect.Effect<VcsTree, VcsProviderError> =>
  Effect.gen(function*() {
    const repo = yield* repoPath(at.fullName)
    const commitSha = yield* branchHead(client, at)
    // the commit sha, not the branch name: the paths belong to exactly this commit
    const paths = yield* filesBelow(client, repo, commitSha, "")
    return { commitSha, paths }
  })

// ---------------------------------------------------------------------------------------------
// Remediation pull requests

const conflict = () => new ProviderHttp.VcsWriteRejected({ reason: "conflict", status: 409 })

/**
 * The text with each lone surrogate as U+FFFD. GitHub stores inline tree content as its UTF-8
 * bytes; a lone surrogate has none (JSON would carry it as a bare `\ud800` escape), and U+FFFD is
 * what UTF-8 encoding (`TextEncoder`, the base64 blobs this replaced) makes of it. Any other text,
 * a byte-order mark and `\r\n` included, is sent unchanged.
 */
const wellFormed = (text: string) => text.replace(/\p{Surrogate}/gu, "\uFFFD")

const ShaJson = Schema.Struct({ sha: ProviderHttp.GitObjectId })
const OpenPullsJson = Schema.Array(Schema.Struct({ number: ProviderHttp.RequestNumber }))

/**
 * Makes `headBranch` hold `baseBranch`'s head plus the files (one commit) and opens its pull
 * request, or updates the open one (title, body):
 * 1. the base head commit and its root tree;
 * 2. each file's blob sha on the base must equal `previousVersion`, else `conflict` (the file
 *    changed since it was read; its mode is kept);
 * 3. a tree on the base tree with every file's content inline (GitHub writes the blobs; no
 *    request per file), a commit whose only parent is the base head;
 * 4. the head branch is created at that commit, or an existing one force-moved to it (the request
 *    always holds the base plus our changes only; moving it once, straight to the new commit,
 *    never leaves the open request without changes);
 * 5. `GET pulls?head=owner:branch&state=open`: PATCH the open one, else POST a new one.
 */
export const openRemediation = (
  client: ProviderHttp.Client,
  write: RemediationWrite
): Effect.Effect<RemediationOpened, VcsProviderError | ProviderHttp.VcsWriteRejected> =>
  Effect.gen(function*() {
    const repo = yield* repoPath(write.fullName)
    const headSegments = ProviderHttp.safeSegments(write.headBranch)
    if (
      headSegments === undefined || write.files.length === 0 || write.files.some((f) => ProviderHttp.safeSegments(f.path) === undefined)
    ) {
      return yield* Effect.fail(new ProviderHttp.VcsWriteRejected({ reason: "invalid", status: 422 }))
    }
    const baseSha = yield* branchHead(client, { fullName: write.fullName, branch: write.baseBranch })
    const root = yield* getTree(client, repo, baseSha, false)

    // 2. walk only the directories on the files' paths, each read once
    const levels = new Map<string, ReadonlyArray<TreeEntry>>([["", root.tree]])
    const entryAt = (path: string): Effect.Effect<TreeEntry | undefined, VcsProviderError> =>
      Effect.gen(function*() {
        const segments = path.split("/")
        let dir = ""
        let entries = root.tree
        for (const [i, name] of segments.entries()) {
          const entry = entries.find((e) => e.path === name)
          if (i === segments.length - 1 || entry === undefined) return entry
          if (entry.type !== "tree") return undefined
          dir = `${dir}${name}/`
          const known = levels.get(dir)
          if (known !== undefined) {
            entries = known
            continue
          }
          const level = yield* getTree(client, repo, entry.sha, false)
          levels.set(dir, level.tree)
          entries = level.tree
        }
        return undefined
      })
    const modes: Array<string> = []
    for (const file of write.files) {
      const entry = yield* entryAt(file.path)
      if (entry === undefined || entry.type !== "blob" || entry.sha !== file.previousVersion) return yield* Effect.fail(conflict())
      modes.push(entry.mode)
    }

    // 3. one commit on the base head
    const written = <A, I>(schema: Schema.Codec<A, I>, request: ProviderHttp.Request) =>
      client.exchange(request).pipe(
        Effect.flatMap(ProviderHttp.ensureWritten(client)),
        Effect.flatMap((answer) => ProviderHttp.decode(schema, answer.body))
      )
    // the contents go inline in the tree request (GitHub writes each blob itself): no blob request per file
    const tree = yield* written(ShaJson, {
      method: "POST",
      path: `${repo}/git/trees`,
      body: {
        base_tree: root.sha,
        tree: write.files.map((file, i) => ({ path: file.path, mode: modes[i], type: "blob", content: wellFormed(file.content) }))
      }
    })
    const commit = yield* written(ShaJson, {
      method: "POST",
      path: `${repo}/git/commits`,
      body: { message: write.commitMessage, tree: tree.sha, parents: [baseSha] }
    })

    // 4. the head branch at that commit
    const headRef = yield* client.exchange({ method: "GET", path: `${repo}/git/ref/heads/${ProviderHttp.encodeSegments(headSegments)}` })
    if (headRef.status === 404) {
      yield* written(RefJson, {
        method: "POST",
        path: `${repo}/git/refs`,
        body: { ref: `refs/heads/${write.headBranch}`, sha: commit.sha }
      })
    } else {
      yield* ProviderHttp.ensureSuccess(client)(headRef)
      yield* written(RefJson, {
        method: "PATCH",
        path: `${repo}/git/refs/heads/${ProviderHttp.encodeSegments(headSegments)}`,
        body: { sha: commit.sha, force: true }
      })
    }

    // 5. the branch's open pull request
    const owner = write.fullName.split("/")[0]!
    const open = yield* ProviderHttp.getJson(client, OpenPullsJson, {
      method: "GET",
      path: `${repo}/pulls`,
      query: { head: `${owner}:${write.headBranch}`, state: "open", per_page: "100" }
    })
    const existing = open[0]
    if (existing !== undefined) {
      const updated = yield* written(PullJson, {
        method: "PATCH",
        path: `${repo}/pulls/${existing.number}`,
        body: { title: write.title, body: write.body }
      })
      return { number: updated.number, url: updated.html_url, created: false }
    }
    const opened = yield* written(PullJson, {
      method: "POST",
      path: `${repo}/pulls`,
      body: { title: write.title, head: write.headBranch, base: write.baseBranch, body: write.body }
    })
    return { number: opened.number, url: opened.html_url, created: true }
  })
