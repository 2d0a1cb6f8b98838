/**
 * The fixture provider (contracts 2): repositories, branches and files declared in a seed file and
 * stored as the connection's settings. It serves seeds, demos and tests without any network.
 * Connections whose settings name a real provider API are served by `Providers.ts`.
 */
import { VcsProvider, VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export const FixtureRepository = Schema.Struct({
  externalRepoId: Schema.NonEmptyString,
  fullName: Schema.String.pipe(Schema.pattern(/^[^/\s]+(\/[^/\s]+)+$/, { message: () => "must be owner/name" })),
  defaultBranch: Schema.NonEmptyString,
  branches: Schema.Array(Schema.NonEmptyString),
  files: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.String }) }), {
    default: () => ({})
  })
}).pipe(Schema.filter((r) => r.branches.includes(r.defaultBranch) || {
  path: ["branches"],
  message: `must include the default branch ${r.defaultBranch}`
}))
export type FixtureRepository = typeof FixtureRepository.Type

/**
 * Stored connection settings: fixture data, or a provider API reached with a token from the
 * environment. The secret that signs the provider's push webhooks is the fixture's own
 * `webhookSecret` (tests, demos) or, for a real provider, read from the variable `webhookSecretEnv`
 * names, like the token; it is never logged or answered.
 */
export const ConnectionSettings = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("fixture"),
    repositories: Schema.Array(FixtureRepository),
    webhookSecret: Schema.optional(Schema.String)
  }),
  Schema.Struct({
    kind: Schema.Literal("api"),
    baseUrl: Schema.String,
    tokenEnv: Schema.String,
    webhookSecretEnv: Schema.optional(Schema.String)
  })
)
export type ConnectionSettings = typeof ConnectionSettings.Type

const decodeSettings = Schema.decodeUnknownOption(ConnectionSettings)

const fixtureOf = (settings: unknown) =>
  Effect.flatMap(decodeSettings(settings), (s) => s.kind === "fixture" ? Effect.succeed(s.repositories) : Effect.fail(undefined)).pipe(
    Effect.mapError(() => new VcsProviderError({ reason: "not-configured" }))
  )

/** Git's blob id of a text: the same version a real provider reports for the same content. */
const blobSha = (content: string) =>
  Effect.promise(async () => {
    const bytes = new TextEncoder().encode(content)
    const header = new TextEncoder().encode(`blob ${bytes.length}\0`)
    const all = new Uint8Array(header.length + bytes.length)
    all.set(header)
    all.set(bytes, header.length)
    const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-1", all))
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
  })

/** Files changed at run time (tests, demos), keyed by org, connection, repository, branch and path. */
export interface FixtureFiles {
  /** `null` deletes the file. */
  readonly setFile: (
    at: { readonly orgId: string; readonly vcsConnectionId: string; readonly fullName: string; readonly branch: string; readonly path: string },
    content: string | null
  ) => void
}

/** The fixture provider, with a handle to change its files while it runs. */
export const make = (): { readonly provider: typeof VcsProvider.Service; readonly files: FixtureFiles } => {
  const overrides = new Map<string, string | null>()
  const keyOf = (orgId: string, connectionId: string, fullName: string, branch: string, path: string) =>
    JSON.stringify([orgId, connectionId, fullName, branch, path])
  const repositoryOf = (settings: unknown, fullName: string) =>
    Effect.flatMap(fixtureOf(settings), (repositories) => {
      const found = repositories.find((r) => r.fullName === fullName)
      return found === undefined ? Effect.fail(new VcsProviderError({ reason: "not-found" })) : Effect.succeed(found)
    })
  const provider: typeof VcsProvider.Service = {
    listRepositories: (ctx) =>
      Effect.map(fixtureOf(ctx.settings), (repositories) =>
        repositories.map(({ defaultBranch, externalRepoId, fullName }) => ({ externalRepoId, fullName, defaultBranch }))),
    listBranches: (ctx, repository) =>
      Effect.map(repositoryOf(ctx.settings, repository.fullName), (found) =>
        found.branches.map((name) => ({ name, isDefault: name === found.defaultBranch }))),
    readFile: (ctx, file) =>
      Effect.flatMap(repositoryOf(ctx.settings, file.fullName), (found) => {
        if (!found.branches.includes(file.branch)) return Effect.fail(new VcsProviderError({ reason: "not-found" }))
        const key = keyOf(ctx.orgId, ctx.connection.id, file.fullName, file.branch, file.path)
        const content = overrides.has(key) ? overrides.get(key)! : found.files[file.branch]?.[file.path] ?? null
        return content === null
          ? Effect.succeed(Option.none())
          : Effect.map(blobSha(content), (version) => Option.some({ content, version }))
      })
  }
  return {
    provider,
    files: {
      setFile: (at, content) => overrides.set(keyOf(at.orgId, at.vcsConnectionId, at.fullName, at.branch, at.path), content)
    }
  }
}

export const layer: Layer.Layer<VcsProvider> = Layer.sync(VcsProvider, () => make().provider)
