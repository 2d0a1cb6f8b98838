/**
 * GitLab REST v4 (gitlab.com at `https://gitlab.com/api/v4`, or a self-managed instance's
 * `https://host/api/v4`), authenticated with the `PRIVATE-TOKEN` header (a personal, group or
 * project access token).
 *
 * Projects are addressed by their URL-encoded `path_with_namespace` (nested groups included), the
 * `fullName` of the port. Reads serve onboarding, sync and branch scans (some cached by
 * `Providers.ts`); `openRemediation` writes a remediation merge request (one commit through the
 * commits API).
 */
import type { RemediationOpened, RemediationWrite, VcsConnection, VcsFile, VcsTree } from "@image-policy/core"
import { Text, VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ProviderHttp from "./ProviderHttp.js"

export type Options = ProviderHttp.ClientOptions

/** A GitLab client; `undefined` when the base URL is not an absolute http(s) URL. */
export const client = (options: Options): ProviderHttp.Client | undefined =>
  ProviderHttp.makeClient("gitlab", options, (token) => ({ "private-token": token }))

const notFound = () => new VcsProviderError({ reason: "not-found" })

/** `/projects/{urlencoded path}`, or `not-found` without a request for an impossible path. */
const projectPath = (fullName: string): Effect.Effect<string, VcsProviderError> =>
  ProviderHttp.safeSegments(fullName) === undefined || !fullName.includes("/")
    ? Effect.fail(notFound())
    : Effect.succeed(`/projects/${ProviderHttp.encodeWhole(fullName)}`)

/**
 * All pages, following `x-next-page` (empty on the last page) with the same query; entries of
 * `shape` that `entry` refuses are left out (`ProviderHttp.decodeEntries`).
 */
const pages = <A, I, S, SI>(
  client: ProviderHttp.Client,
  entry: Schema.Codec<A, I>,
  shape: Schema.Codec<S, SI> | undefined,
  request: ProviderHttp.Request,
  maxPages?: number
) =>
  ProviderHttp.collectPages(
    client,
    client.exchange(request),
    (answer) => {
      const next = answer.headers.get("x-next-page")?.trim()
      return next === undefined || !/^\d+$/.test(next)
        ? undefined
        : client.exchange({ ...request, query: { ...request.query, page: next } })
    },
    (answer) => ProviderHttp.decodeEntries(entry, shape, answer.body),
    maxPages
  )

const ProjectJson = Schema.Struct({
  id: Schema.Union([Schema.Number, ProviderHttp.RepositoryIdText]),
  path_with_namespace: ProviderHttp.RepositoryName,
  // GitLab sends `default_branch: null` (or no key) for an empty project
  default_branch: Schema.optionalKey(Schema.NullOr(ProviderHttp.BranchName))
})
const ProjectShape = Schema.Struct({
  id: Schema.Union([Schema.Number, Schema.String]),
  path_with_namespace: Schema.String,
  default_branch: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * Every project the token's user is a member of (`GET /projects?membership=true`, all pages).
 * Empty projects have no default branch (none, or an empty one) and nothing to track: they are
 * left out, as are projects whose names no store can hold (the others are still listed).
 */
export const listRepositories = (
  client: ProviderHttp.Client
): Effect.Effect<ReadonlyArray<VcsConnection.ProviderRepository>, VcsProviderError> =>
  Effect.map(
    pages(client, ProjectJson, ProjectShape, {
      method: "GET",
      path: "/projects",
      query: { membership: "true", simple: "true", per_page: "100" }
    }),
    (projects) =>
      projects.flatMap((p) =>
        p.default_branch === undefined || p.default_branch === null
          ? []
          : [{ externalRepoId: String(p.id), fullName: p.path_with_namespace, defaultBranch: p.default_branch }]
      )
  )

const BranchJson = Schema.Struct({
  name: ProviderHttp.BranchName,
  default: Schema.Boolean.pipe(Schema.withDecodingDefaultType(Effect.succeed(false)))
})
/** A branch whose name no store can hold is left out of the listing. */
const BranchShape = Schema.Struct({ ...BranchJson.fields, name: Schema.String })

/** The branches of a project with GitLab's own `default` flag (`GET /projects/{id}/repository/branches`, all pages). */
export const listBranches = (
  client: ProviderHttp.Client,
  repository: { readonly fullName: string }
): Effect.Effect<ReadonlyArray<VcsConnection.AvailableBranch>, VcsProviderError> =>
  Effect.flatMap(projectPath(repository.fullName), (project) =>
    Effect.map(
      pages(client, BranchJson, BranchShape, { method: "GET", path: `${project}/repository/branches`, query: { per_page: "100" } }),
      (branches) => branches.map((b) => ({ name: b.name, isDefault: b.default }))
    ))

const FileJson = Schema.Struct({ encoding: Schema.String, content: Schema.String, blob_id: ProviderHttp.GitObjectId })

/**
 * A file at the head of a branch (`GET /projects/{id}/repository/files/{path}?ref=`): its text and
 * blob id. `None` when the file does not exist; an unknown project or branch is `not-found`.
 */
export const readFile = (
  client: ProviderHttp.Client,
  file: { readonly fullName: string; readonly branch: string; readonly path: string }
): Effect.Effect<Option.Option<VcsFile>, VcsProviderError> =>
  Effect.gen(function*() {
    const project = yield* projectPath(file.fullName)
    if (ProviderHttp.safeSegments(file.path) === undefined) return Option.none()
    const answer = yield* client.exchange({
      method: "GET",
      path: `${project}/repository/files/${ProviderHttp.encodeWhole(file.path)}`,
      query: { ref: file.branch }
    })
    if (answer.status === 404) {
      // "404 File Not Found" is the absent file; "404 Project Not Found", "404 Commit Not Found" ... are not
      const message = (answer.body as { message?: unknown } | undefined)?.message
      return typeof message === "string" && /(project|commit|branch|ref|tree) not found/i.test(message)
        ? yield* Effect.fail(notFound())
        : Option.none()
    }
    yield* ProviderHttp.ensureSuccess(client)(answer)
    const found = yield* ProviderHttp.decode(FileJson, answer.body)
    const content = found.encoding === "base64"
      ? ProviderHttp.decodeBase64Text(found.content)
      : found.encoding === "text"
      ? found.content
      : undefined
    if (content === undefined) return yield* Effect.fail(new VcsProviderError({ reason: "unavailable" }))
    return Option.some({ content, version: found.blob_id })
  })

// ---------------------------------------------------------------------------------------------
// Writes for remediation (answers read by openRemediation)

const CommitJson = Schema.Struct({ id: ProviderHttp.GitObjectId })
const MergeRequestJson = Schema.Struct({ iid: ProviderHttp.RequestNumber, web_url: Text.StorableString })

// ---------------------------------------------------------------------------------------------
// Branch scans

const BranchHeadJson = Schema.Struct({ commit: Schema.Struct({ id: ProviderHttp.GitObjectId }) })

/** The commit sha at the head of a branch (`GET /projects/{id}/repository/branches/{branch}`). */
export const branchHead = (
  client: ProviderHttp.Client,
  at: { readonly fullName: string; readonly branch: string }
): Effect.Effect<string, VcsProviderError> =>
  Effect.gen(function*() {
    const project = yield* projectPath(at.fullName)
    if (ProviderHttp.safeSegments(at.branch) === undefined) return yield* Effect.fail(notFound())
    const branch = yield* ProviderHttp.getJson(client, BranchHeadJson, {
      method: "GET",
      path: `${project}/repository/branches/${ProviderHttp.encodeWhole(at.branch)}`
    })
    return branch.commit.id
  })

const TreeItemJson = Schema.Struct({ path: ProviderHttp.FilePath, type: Schema.String, mode: Schema.optionalKey(Schema.String) })
/** An item whose path no store can hold is left out (a scan skips it); any other malformed item fails the tree. */
const TreeItemShape = Schema.Struct({ ...TreeItemJson.fields, path: Schema.String })

/**
 * The head commit of a branch and every file path in it: the branch, then
 * `GET /projects/{id}/repository/tree?ref=<that commit>&recursive=true`, all pages (ten times the
 * usual page limit: a tree lists directories too). Symlinks and submodules are not files.
 */
export const listFiles = (
  client: ProviderHttp.Client,
  at: { readonly fullName: string; readonly branch: string }
): Effect.Effect<VcsTree, VcsProviderError> =>
  Effect.gen(function*() {
    const project = yield* projectPath(at.fullName)
    const commitSha = yield* branchHead(client, at)
    const items = yield* pages(
      client,
      TreeItemJson,
      TreeItemShape,
      { method: "GET", path: `${project}/repository/tree`, query: { ref: commitSha, recursive: "true", per_page: "100" } },
      client.maxPages * 10
    )
    return { commitSha, paths: items.filter((i) => i.type === "blob" && i.mode !== "120000").map((i) => i.path) }
  })

// ---------------------------------------------------------------------------------------------
// Remediation merge requests

const conflict = () => new ProviderHttp.VcsWriteRejected({ reason: "conflict", status: 409 })
const OpenMergeRequestJson = Schema.Struct({
  iid: ProviderHttp.RequestNumber,
  source_project_id: Schema.optionalKey(Schema.Number),
  target_project_id: Schema.optionalKey(Schema.Number)
})

/**
 * Makes `headBranch` hold `baseBranch`'s head plus the files (one commit) and opens its merge
 * request, or updates the open one (title, description):
 * 1. the base head commit;
 * 2. each file's blob id at that commit (`HEAD .../repository/files/{path}?ref=`, no content) must
 *    equal `previousVersion`, else `conflict`;
 * 3. one commit with an `update` action per file, started from that very commit (`start_sha`)
 *    with `force`: the head branch is created, or overwritten to hold the base plus our changes only;
 * 4. `GET merge_requests?source_branch=&state=opened` (same-project ones): PUT the open one, else POST.
 */
export const openRemediation = (
  client: ProviderHttp.Client,
  write: RemediationWrite
): Effect.Effect<RemediationOpened, VcsProviderError | ProviderHttp.VcsWriteRejected> =>
  Effect.gen(function*() {
    const project = yield* projectPath(write.fullName)
    if (
      ProviderHttp.safeSegments(write.headBranch) === undefined || write.files.length === 0 ||
      write.files.some((f) => ProviderHttp.safeSegments(f.path) === undefined)
    ) {
      return yield* Effect.fail(new ProviderHttp.VcsWriteRejected({ reason: "invalid", status: 400 }))
    }
    const baseSha = yield* branchHead(client, { fullName: write.fullName, branch: write.baseBranch })

    for (const file of write.files) {
      const answer = yield* client.exchange({
        method: "HEAD",
        path: `${project}/repository/files/${ProviderHttp.encodeWhole(file.path)}`,
        query: { ref: baseSha }
      })
      // the project and the commit exist (just read): a 404 is the file, gone since it was read
      if (answer.status === 404) return yield* Effect.fail(conflict())
      yield* ProviderHttp.ensureSuccess(client)(answer)
      if (answer.headers.get("x-gitlab-blob-id") !== file.previousVersion) return yield* Effect.fail(conflict())
    }

    const written = <A, I>(schema: Schema.Codec<A, I>, request: ProviderHttp.Request) =>
      client.exchange(request).pipe(
        Effect.flatMap(ProviderHttp.ensureWritten(client)),
        Effect.flatMap((answer) => ProviderHttp.decode(schema, answer.body))
      )
    yield* written(CommitJson, {
      method: "POST",
      path: `${project}/repository/commits`,
      body: {
        branch: write.headBranch,
        commit_message: write.commitMessage,
        start_sha: baseSha,
        force: true,
        actions: write.files.map((file) => ({
          action: "update",
          file_path: file.path,
          content: ProviderHttp.encodeBase64Text(file.content),
          encoding: "base64"
        }))
      }
    })

    const open = yield* pages(client, OpenMergeRequestJson, undefined, {
      method: "GET",
      path: `${project}/merge_requests`,
      query: { source_branch: write.headBranch, state: "opened", per_page: "100" }
    })
    // a fork's merge request from a branch of the same name is not ours
    const existing = open.find((mr) => mr.source_project_id === mr.target_project_id)
    if (existing !== undefined) {
      const updated = yield* written(MergeRequestJson, {
        method: "PUT",
        path: `${project}/merge_requests/${existing.iid}`,
        body: { title: write.title, description: write.body }
      })
      return { number: updated.iid, url: updated.web_url, created: false }
    }
    const opened = yield* written(MergeRequestJson, {
      method: "POST",
      path: `${project}/merge_requests`,
      body: { source_branch: write.headBranch, target_branch: write.baseBranch, title: write.title, description: write.body }
    })
    return { number: opened.iid, url: opened.web_url, created: true }
  })
