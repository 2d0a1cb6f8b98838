/**
 * The fixture provider (contracts 2): repositories, branches and files declared in a seed file and
 * stored as the connection's settings. It serves seeds, demos and tests without any network.
 * Connections whose settings name a real provider API are served by `Providers.ts`.
 *
 * Remediation requests are kept in memory: `openRemediation` checks each file's version on the
 * base branch, makes the head branch hold the base's files plus the new ones, and opens a request
 * (or updates the branch's open one); the handle of `make()` reads them back.
 */
import { type ConnectionContext, Onboarding, VcsConnection, VcsProvider, VcsProviderError, VcsWriteRejected } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export const FixtureRepository = Schema.Struct({
  externalRepoId: Schema.NonEmptyString.check(Schema.isMaxLength(255)),
  fullName: Schema.String.check(Schema.isMaxLength(1024), Schema.isPattern(/^[^/\s]+(\/[^/\s]+)+$/, { message: "must be owner/name" })),
  defaultBranch: Onboarding.BranchName,
  branches: Schema.Array(Onboarding.BranchName),
  files: Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.String)).pipe(
    Schema.withDecodingDefaultType(Effect.succeed({}))
  )
}).check(Schema.makeFilter((r) =>
  r.branches.includes(r.defaultBranch) || {
    path: ["branches"],
    issue: `must include the default branch ${r.defaultBranch}`
  }
))
export type FixtureRepository = typeof FixtureRepository.Type

/**
 * Stored connection settings: fixture data, or a provider API reached with a token. The token is
 * either read from the variable `tokenEnv` names or kept in the store sealed with the core's
 * `SecretBox` (`sealedToken`, the `v1.…` form: never the plaintext). The secret that signs the
 * provider's push webhooks is the fixture's own `webhookSecret` (tests, demos) or, for a real
 * provider, read from the variable `webhookSecretEnv` names or opened from `sealedWebhookSecret`.
 * Neither is ever logged or answered. A seed gives at most one source of each (Seed.ts checks it);
 * should a row hold both, the sealed value wins. Only ever decoded (a memory store keeps the object
 * as written, so a key may hold `undefined`): `optional`, as in Effect 3.
 */
export const ConnectionSettings = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("fixture"),
    repositories: Schema.Array(FixtureRepository),
    webhookSecret: Schema.optional(Schema.String)
  }),
  // the core's: connections created through the API store the same shape
  VcsConnection.ApiSettings
])
export type ConnectionSettings = typeof ConnectionSettings.Type

const decodeSettings = Schema.decodeUnknownOption(ConnectionSettings)

const fixtureOf = (settings: unknown): Effect.Effect<ReadonlyArray<FixtureRepository>, VcsProviderError> => {
  const decoded = decodeSettings(settings)
  return Option.isSome(decoded) && decoded.value.kind === "fixture"
    ? Effect.succeed(decoded.value.repositories)
    : Effect.fail(new VcsProviderError({ reason: "not-configured" }))
}

const sha1Hex = (bytes: Uint8Array) =>
  Effect.promise(async () => {
    const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-1", new Uint8Array(bytes)))
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
  })

/** Git's blob id of a text: the same version a real provider reports for the same content. */
const blobSha = (content: string) => {
  const bytes = new TextEncoder().encode(content)
  const header = new TextEncoder().encode(`blob ${bytes.length}\0`)
  const all = new Uint8Array(header.length + bytes.length)
  all.set(header)
  all.set(bytes, header.length)
  return sha1Hex(all)
}

/** Where a file lives: org, connection, repository, branch and path. */
export interface FixtureFileAt {
  readonly orgId: string
  readonly vcsConnectionId: string
  readonly fullName: string
  readonly branch: string
  readonly path: string
}

/** Files changed at run time (tests, demos), keyed by org, connection, repository, branch and path. */
export interface FixtureFiles {
  /** `null` deletes the file. A new path on a branch adds it to the branch's `listFiles`. */
  readonly setFile: (at: FixtureFileAt, content: string | null) => void
}

/** A remediation request the fixture holds, as `openRemediation` last wrote it. */
export interface FixtureRemediation {
  readonly orgId: string
  readonly vcsConnectionId: string
  readonly fullName: string
  /** 1, 2, ... per repository of a connection. */
  readonly number: number
  /** `https://fixture.invalid/<fullName>/pull/<number>`. */
  readonly url: string
  readonly state: "open" | "closed"
  readonly title: string
  readonly body: string
  readonly head: string
  readonly base: string
  readonly commitMessage: string
  /** The files of the last commit to the head branch. */
  readonly files: ReadonlyArray<{ readonly path: string; readonly content: string }>
  /** How many times `openRemediation` wrote to it (1 when opened, +1 per update). */
  readonly writes: number
}

/** Why the next `openRemediation` fails (see `failNextWrite`). */
export type FixtureWriteFailure = VcsWriteRejected["reason"] | VcsProviderError["reason"]

/** What tests and demos see of remediation requests, and how they make the next write fail. */
export interface FixtureRemediations {
  /** Every request of a repository (any org or connection), oldest first. */
  readonly remediations: (fullName: string) => ReadonlyArray<FixtureRemediation>
  /**
   * The next `openRemediation` (any repository) fails without writing anything: `conflict`,
   * `forbidden`, `invalid` as `VcsWriteRejected` (409, 403, 422); a `VcsProviderError` reason as
   * that error (`rate-limited` with 60 s to wait). Each call queues one failure.
   */
  readonly failNextWrite: (reason: FixtureWriteFailure) => void
  /** Closes (or merges) an open request: the next `openRemediation` of its branch opens a new one. */
  readonly closeRemediation: (fullName: string, number: number) => void
}

const failureOf = (reason: FixtureWriteFailure): VcsWriteRejected | VcsProviderError => {
  switch (reason) {
    case "conflict":
      return new VcsWriteRejected({ reason, status: 409 })
    case "forbidden":
      return new VcsWriteRejected({ reason, status: 403 })
    case "invalid":
      return new VcsWriteRejected({ reason, status: 422 })
    case "rate-limited":
      return new VcsProviderError({ reason, retryAfterSeconds: 60 })
    default:
      return new VcsProviderError({ reason })
  }
}

/**
 * The fixture provider, with handles to change its files and to read its remediation requests
 * while it runs. Branches that `openRemediation` creates exist from then on (listed, readable).
 */
export const make = (): {
  readonly provider: typeof VcsProvider.Service
  readonly files: FixtureFiles
} & FixtureRemediations => {
  /** Per repository of a connection: changed files per branch, and branches created at run time. */
  interface RepositoryState {
    readonly overrides: Map<string, Map<string, string | null>>
    readonly created: Map<string, Map<string, string>>
    readonly remediations: Array<FixtureRemediation>
    /** The files of each commit `listFiles` answered, so a read at that commit sees exactly them. */
    readonly commits: Map<string, Map<string, string>>
  }
  const states = new Map<string, RepositoryState>()
  const failures: Array<FixtureWriteFailure> = []
  const stateOf = (orgId: string, connectionId: string, fullName: string): RepositoryState => {
    const key = JSON.stringify([orgId, connectionId, fullName])
    let state = states.get(key)
    if (state === undefined) {
      state = { overrides: new Map(), created: new Map(), remediations: [], commits: new Map() }
      states.set(key, state)
    }
    return state
  }
  const notFound = () => new VcsProviderError({ reason: "not-found" })
  const repositoryOf = (settings: unknown, fullName: string) =>
    Effect.flatMap(fixtureOf(settings), (repositories) => {
      const found = repositories.find((r) => r.fullName === fullName)
      return found === undefined ? Effect.fail(notFound()) : Effect.succeed(found)
    })
  const hasBranch = (found: FixtureRepository, state: RepositoryState, branch: string) =>
    found.branches.includes(branch) || state.created.has(branch)
  /** The branch's files now: declared (or created) files with the run-time changes applied; sorted by path. */
  const filesOf = (found: FixtureRepository, state: RepositoryState, branch: string): Map<string, string> => {
    const files = new Map<string, string>(state.created.get(branch) ?? Object.entries(found.files[branch] ?? {}))
    for (const [path, content] of state.overrides.get(branch) ?? []) {
      if (content === null) files.delete(path)
      else files.set(path, content)
    }
    return new Map([...files].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
  }
  /** The branch now holds exactly these files. */
  const replaceBranch = (found: FixtureRepository, state: RepositoryState, branch: string, files: Map<string, string>) => {
    if (found.branches.includes(branch)) {
      const overrides = new Map<string, string | null>(Object.keys(found.files[branch] ?? {}).map((path) => [path, null]))
      for (const [path, content] of files) overrides.set(path, content)
      state.overrides.set(branch, overrides)
    } else {
      state.created.set(branch, new Map(files))
      state.overrides.delete(branch)
    }
  }
  const context = (ctx: ConnectionContext, fullName: string) =>
    Effect.map(repositoryOf(ctx.settings, fullName), (found) => ({ found, state: stateOf(ctx.orgId, ctx.connection.id, fullName) }))

  const provider: typeof VcsProvider.Service = {
    listRepositories: (ctx) =>
      Effect.map(
        fixtureOf(ctx.settings),
        (repositories) => repositories.map(({ defaultBranch, externalRepoId, fullName }) => ({ externalRepoId, fullName, defaultBranch }))
      ),
    listBranches: (ctx, repository) =>
      Effect.map(
        context(ctx, repository.fullName),
        ({ found, state }) =>
          [...found.branches, ...[...state.created.keys()].filter((b) => !found.branches.includes(b))].map((name) => ({
            name,
            isDefault: name === found.defaultBranch
          }))
      ),
    readFile: (ctx, file) =>
      Effect.flatMap(context(ctx, file.fullName), ({ found, state }) => {
        // `branch` may name a commit, as on GitHub and GitLab (a `ref`)
        const atCommit = state.commits.get(file.branch)
        if (atCommit === undefined && !hasBranch(found, state, file.branch)) return Effect.fail(notFound())
        const content = (atCommit ?? filesOf(found, state, file.branch)).get(file.path)
        return content === undefined
          ? Effect.succeed(Option.none())
          : Effect.map(blobSha(content), (version) => Option.some({ content, version }))
      }),
    listFiles: (ctx, at) =>
      Effect.flatMap(context(ctx, at.fullName), ({ found, state }) => {
        if (!hasBranch(found, state, at.branch)) return Effect.fail(notFound())
        const files = filesOf(found, state, at.branch)
        // a commit sha of the repository, branch and every file's content: changes with any file
        return Effect.map(sha1Hex(new TextEncoder().encode(JSON.stringify([at.fullName, at.branch, [...files]]))), (commitSha) => {
          state.commits.set(commitSha, new Map(files))
          return { commitSha, paths: [...files.keys()] }
        })
      }),
    openRemediation: (ctx, write) =>
      Effect.gen(function*() {
        const { found, state } = yield* context(ctx, write.fullName)
        const failure = failures.shift()
        if (failure !== undefined) return yield* Effect.fail(failureOf(failure))
        if (!hasBranch(found, state, write.baseBranch)) return yield* Effect.fail(notFound())
        if (write.files.length === 0 || write.headBranch === write.baseBranch || write.headBranch === found.defaultBranch) {
          return yield* Effect.fail(new VcsWriteRejected({ reason: "invalid", status: 422 }))
        }
        const base = filesOf(found, state, write.baseBranch)
        for (const file of write.files) {
          const current = base.get(file.path)
          if (current === undefined || (yield* blobSha(current)) !== file.previousVersion) {
            return yield* Effect.fail(new VcsWriteRejected({ reason: "conflict", status: 409 }))
          }
        }
        const head = new Map(base)
        for (const file of write.files) head.set(file.path, file.content)
        replaceBranch(found, state, write.headBranch, head)

        const files = write.files.map(({ content, path }) => ({ path, content }))
        const index = state.remediations.findIndex((r) => r.state === "open" && r.head === write.headBranch)
        const previous = state.remediations[index]
        if (previous !== undefined) {
          const updated = {
            ...previous,
            title: write.title,
            body: write.body,
            commitMessage: write.commitMessage,
            files,
            writes: previous.writes + 1
          }
          state.remediations[index] = updated
          return { number: updated.number, url: updated.url, created: false }
        }
        const number = state.remediations.length + 1
        const opened: FixtureRemediation = {
          orgId: ctx.orgId,
          vcsConnectionId: ctx.connection.id,
          fullName: write.fullName,
          number,
          url: `https://fixture.invalid/${write.fullName}/pull/${number}`,
          state: "open",
          title: write.title,
          body: write.body,
          head: write.headBranch,
          base: write.baseBranch,
          commitMessage: write.commitMessage,
          files,
          writes: 1
        }
        state.remediations.push(opened)
        return { number, url: opened.url, created: true }
      })
  }
  const all = (fullName: string) => [...states.values()].flatMap((s) => s.remediations.filter((r) => r.fullName === fullName))
  return {
    provider,
    files: {
      setFile: (at, content) => {
        const state = stateOf(at.orgId, at.vcsConnectionId, at.fullName)
        let overrides = state.overrides.get(at.branch)
        if (overrides === undefined) {
          overrides = new Map()
          state.overrides.set(at.branch, overrides)
        }
        overrides.set(at.path, content)
      }
    },
    remediations: (fullName) => all(fullName).map((r) => ({ ...r, files: [...r.files] })),
    failNextWrite: (reason) => {
      failures.push(reason)
    },
    closeRemediation: (fullName, number) => {
      for (const state of states.values()) {
        const index = state.remediations.findIndex((r) => r.fullName === fullName && r.number === number)
        if (index >= 0) state.remediations[index] = { ...state.remediations[index]!, state: "closed" }
      }
    }
  }
}
