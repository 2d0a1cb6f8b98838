/**
 * GitLab REST v4 (gitlab.com at `https://gitlab.com/api/v4`, or a self-managed instance's
 * `https://host/api/v4`), authenticated with the `PRIVATE-TOKEN` header (a personal, group or
 * project access token).
 *
 * Projects are addressed by their URL-encoded `path_with_namespace` (nested groups included), the
 * `fullName` of the port. Reads serve onboarding and sync (cached by `Providers.ts`); the writes
 * (`createBranch`, `commit`, `openMergeRequest`) are what remediation merge requests need.
 */
import type { Onboarding, VcsFile } from "@image-policy/core"
import { VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ProviderHttp from "./ProviderHttp.js"

export const defaultBaseUrl = "https://gitlab.com/api/v4"

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

/** All pages, following `x-next-page` (empty on the last page) with the same query. */
const pages = <A, I>(client: ProviderHttp.Client, schema: Schema.Schema<A, I>, request: ProviderHttp.Request) =>
  ProviderHttp.collectPages(
    client,
    client.exchange(request),
    (answer) => {
      const next = answer.headers.get("x-next-page")?.trim()
      return next === undefined || !/^\d+$/.test(next)
        ? undefined
        : client.exchange({ ...request, query: { ...request.query, page: next } })
    },
    (answer) => ProviderHttp.decode(Schema.Array(schema), answer.body)
  )

const ProjectJson = Schema.Struct({
  id: Schema.Union(Schema.Number, Schema.String),
  path_with_namespace: Schema.String,
  default_branch: Schema.optionalWith(Schema.String, { nullable: true })
})

/**
 * Every project the token's user is a member of (`GET /projects?membership=true`, all pages).
 * Empty projects have no default branch and nothing to track: they are left out.
 */
export const listRepositories = (client: ProviderHttp.Client): Effect.Effect<ReadonlyArray<Onboarding.ProviderRepository>, VcsProviderError> =>
  Effect.map(
    pages(client, ProjectJson, { method: "GET", path: "/projects", query: { membership: "true", simple: "true", per_page: "100" } }),
    (projects) =>
      projects.flatMap((p) =>
        p.default_branch === undefined || p.default_branch === ""
          ? []
          : [{ externalRepoId: String(p.id), fullName: p.path_with_namespace, defaultBranch: p.default_branch }]
      )
  )

const BranchJson = Schema.Struct({ name: Schema.String, default: Schema.optionalWith(Schema.Boolean, { default: () => false }) })

/** The branches of a project with GitLab's own `default` flag (`GET /projects/{id}/repository/branches`, all pages). */
export const listBranches = (
  client: ProviderHttp.Client,
  repository: { readonly fullName: string }
): Effect.Effect<ReadonlyArray<Onboarding.AvailableBranch>, VcsProviderError> =>
  Effect.flatMap(projectPath(repository.fullName), (project) =>
    Effect.map(
      pages(client, BranchJson, { method: "GET", path: `${project}/repository/branches`, query: { per_page: "100" } }),
      (branches) => branches.map((b) => ({ name: b.name, isDefault: b.default }))
    ))

const FileJson = Schema.Struct({ encoding: Schema.String, content: Schema.String, blob_id: Schema.String })

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
    const content = found.encoding === "base64" ? ProviderHttp.decodeBase64Text(found.content) : found.encoding === "text" ? found.content : undefined
    if (content === undefined) return yield* Effect.fail(new VcsProviderError({ reason: "unavailable" }))
    return Option.some({ content, version: found.blob_id })
  })

// ---------------------------------------------------------------------------------------------
// Writes for remediation

const CreatedBranchJson = Schema.Struct({ name: Schema.String, commit: Schema.Struct({ id: Schema.String }) })

/** A new branch from a branch name or commit sha (`POST /projects/{id}/repository/branches`); an existing one is a `conflict`. */
export const createBranch = (
  client: ProviderHttp.Client,
  branch: { readonly fullName: string; readonly name: string; readonly ref: string }
): Effect.Effect<{ readonly name: string; readonly sha: string }, VcsProviderError | ProviderHttp.VcsWriteRejected> =>
  Effect.gen(function*() {
    const project = yield* projectPath(branch.fullName)
    const answer = yield* client.exchange({
      method: "POST",
      path: `${project}/repository/branches`,
      body: { branch: branch.name, ref: branch.ref }
    }).pipe(Effect.flatMap(ProviderHttp.ensureWritten(client)))
    const created = yield* ProviderHttp.decode(CreatedBranchJson, answer.body)
    return { name: created.name, sha: created.commit.id }
  })

/** One file change of a commit. `lastCommitId` guards an update or delete against a concurrent change. */
export type CommitAction =
  | { readonly action: "create" | "update"; readonly path: string; readonly content: string; readonly lastCommitId?: string | undefined }
  | { readonly action: "delete"; readonly path: string; readonly lastCommitId?: string | undefined }

const CommitJson = Schema.Struct({ id: Schema.String })

/**
 * One commit of several file changes on a branch (`POST /projects/{id}/repository/commits`);
 * with `startBranch` the branch is created from it in the same call.
 */
export const commit = (
  client: ProviderHttp.Client,
  commit: {
    readonly fullName: string
    readonly branch: string
    readonly message: string
    readonly actions: ReadonlyArray<CommitAction>
    readonly startBranch?: string | undefined
  }
): Effect.Effect<{ readonly commitSha: string }, VcsProviderError | ProviderHttp.VcsWriteRejected> =>
  Effect.gen(function*() {
    const project = yield* projectPath(commit.fullName)
    if (commit.actions.some((a) => ProviderHttp.safeSegments(a.path) === undefined)) {
      return yield* Effect.fail(new ProviderHttp.VcsWriteRejected({ reason: "invalid", status: 400 }))
    }
    const answer = yield* client.exchange({
      method: "POST",
      path: `${project}/repository/commits`,
      body: {
        branch: commit.branch,
        commit_message: commit.message,
        ...(commit.startBranch === undefined ? {} : { start_branch: commit.startBranch }),
        actions: commit.actions.map((a) => ({
          action: a.action,
          file_path: a.path,
          ...(a.action === "delete" ? {} : { content: ProviderHttp.encodeBase64Text(a.content), encoding: "base64" }),
          ...(a.lastCommitId === undefined ? {} : { last_commit_id: a.lastCommitId })
        }))
      }
    }).pipe(Effect.flatMap(ProviderHttp.ensureWritten(client)))
    const created = yield* ProviderHttp.decode(CommitJson, answer.body)
    return { commitSha: created.id }
  })

const MergeRequestJson = Schema.Struct({ iid: Schema.Number, web_url: Schema.String })

/** Opens a merge request from `sourceBranch` into `targetBranch` (`POST /projects/{id}/merge_requests`). */
export const openMergeRequest = (
  client: ProviderHttp.Client,
  request: {
    readonly fullName: string
    readonly sourceBranch: string
    readonly targetBranch: string
    readonly title: string
    readonly description?: string | undefined
  }
): Effect.Effect<{ readonly number: number; readonly url: string }, VcsProviderError | ProviderHttp.VcsWriteRejected> =>
  Effect.gen(function*() {
    const project = yield* projectPath(request.fullName)
    const answer = yield* client.exchange({
      method: "POST",
      path: `${project}/merge_requests`,
      body: {
        source_branch: request.sourceBranch,
        target_branch: request.targetBranch,
        title: request.title,
        ...(request.description === undefined ? {} : { description: request.description })
      }
    }).pipe(Effect.flatMap(ProviderHttp.ensureWritten(client)))
    const opened = yield* ProviderHttp.decode(MergeRequestJson, answer.body)
    return { number: opened.iid, url: opened.web_url }
  })
