/**
 * The fixture provider (contracts 2): repositories, branches and files declared in a seed file and
 * stored as the connection's settings. It serves seeds, demos and tests without any network.
 * Connections whose settings name a real provider API answer `not-configured` until the GitHub and
 * GitLab adapters are built.
 */
import { VcsProvider, VcsProviderError } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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

/** Stored connection settings: fixture data, or a provider API reached with a token from the environment. */
export const ConnectionSettings = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("fixture"), repositories: Schema.Array(FixtureRepository) }),
  Schema.Struct({ kind: Schema.Literal("api"), baseUrl: Schema.String, tokenEnv: Schema.String })
)
export type ConnectionSettings = typeof ConnectionSettings.Type

const decodeSettings = Schema.decodeUnknownOption(ConnectionSettings)

const fixtureOf = (settings: unknown) =>
  Effect.flatMap(decodeSettings(settings), (s) => s.kind === "fixture" ? Effect.succeed(s.repositories) : Effect.fail(undefined)).pipe(
    Effect.mapError(() => new VcsProviderError({ reason: "not-configured" }))
  )

export const layer: Layer.Layer<VcsProvider> = Layer.succeed(VcsProvider, {
  listRepositories: (ctx) =>
    Effect.map(fixtureOf(ctx.settings), (repositories) =>
      repositories.map(({ defaultBranch, externalRepoId, fullName }) => ({ externalRepoId, fullName, defaultBranch }))),
  listBranches: (ctx, repository) =>
    Effect.flatMap(fixtureOf(ctx.settings), (repositories) => {
      const found = repositories.find((r) => r.fullName === repository.fullName)
      return found === undefined
        ? Effect.fail(new VcsProviderError({ reason: "not-found" }))
        : Effect.succeed(found.branches.map((name) => ({ name, isDefault: name === found.defaultBranch })))
    })
})
