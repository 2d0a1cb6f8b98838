import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId } from "../Id.js"
import type { VcsProviderError, VcsWriteRejected } from "../Vcs.js"
import type { AvailableBranch, ProviderRepository, VcsConnection } from "../VcsConnection.js"

/** The files of a branch at its head commit. */
export interface VcsTree {
  readonly commitSha: string
  /** Every file path (blobs only), `/`-separated, relative to the repository root. */
  readonly paths: ReadonlyArray<string>
}

/**
 * What a remediation run asks the provider to do: make `headBranch` hold `baseBranch`'s head plus
 * `files` (one commit), and open a pull/merge request `headBranch` -> `baseBranch` with `title` and
 * `body`, or update the open one of `headBranch` (title, body) instead of opening a second.
 */
export interface RemediationWrite {
  readonly fullName: string
  readonly baseBranch: string
  readonly headBranch: string
  readonly title: string
  readonly body: string
  readonly commitMessage: string
  /** Whole new contents; `previousVersion` is the version `readFile` answered (a conflict check). */
  readonly files: ReadonlyArray<{ readonly path: string; readonly content: string; readonly previousVersion: string }>
}

/** The request the provider now holds open; `created` is false when an open one was updated. */
export interface RemediationOpened {
  readonly number: number
  readonly url: string
  readonly created: boolean
}

/** What the adapter needs to talk to the provider on behalf of one connection. */
export interface ConnectionContext {
  readonly orgId: OrgId
  readonly connection: VcsConnection
  /** The adapter settings stored with the connection (fixture data or API base URL and token reference). */
  readonly settings: unknown
}

/**
 * A code-hosting provider (GitHub, GitLab, or the fixture provider of seed files). Provider quota
 * is spent only when `refresh` is set or nothing is cached yet (spec 4, rule 1).
 */
export class VcsProvider extends Context.Service<VcsProvider, {
  readonly listRepositories: (
    ctx: ConnectionContext,
    options: { readonly refresh: boolean }
  ) => Effect.Effect<ReadonlyArray<ProviderRepository>, VcsProviderError>
  readonly listBranches: (
    ctx: ConnectionContext,
    repository: { readonly fullName: string; readonly defaultBranch: string }
  ) => Effect.Effect<ReadonlyArray<AvailableBranch>, VcsProviderError>
  /**
   * A file at the head of a branch (or at a commit, when `branch` is a commit sha `listFiles`
   * answered: a scan reads every file at the commit it listed), with a version that changes whenever its content does (the
   * blob sha on GitHub and GitLab); `None` when the branch has no such file.
   */
  readonly readFile: (
    ctx: ConnectionContext,
    file: { readonly fullName: string; readonly branch: string; readonly path: string }
  ) => Effect.Effect<Option.Option<VcsFile>, VcsProviderError>
  /** The branch's head commit and every file path in it (branch scans read the scannable ones). */
  readonly listFiles: (
    ctx: ConnectionContext,
    at: { readonly fullName: string; readonly branch: string }
  ) => Effect.Effect<VcsTree, VcsProviderError>
  /** Commits the files to `headBranch` and opens or updates the branch's one open request. Never cached. */
  readonly openRemediation: (
    ctx: ConnectionContext,
    write: RemediationWrite
  ) => Effect.Effect<RemediationOpened, VcsProviderError | VcsWriteRejected>
}>()("@image-policy/core/VcsProvider") {}

export interface VcsFile {
  readonly content: string
  readonly version: string
}
