/**
 * VCS connections (spec section 2): an organization's account at a provider, and what the provider
 * lists through it (the repositories and branches onboarding can pick from).
 */
import * as Schema from "effect/Schema"
import { VcsConnectionId } from "./Id.js"
import { storable } from "./Text.js"

export const VcsProvider = Schema.Literals(["github", "gitlab"])
export type VcsProvider = typeof VcsProvider.Type

export const ConnectionStatus = Schema.Literals(["active", "inactive", "error"])
export type ConnectionStatus = typeof ConnectionStatus.Type

export const VcsConnection = Schema.Struct({
  id: VcsConnectionId,
  provider: VcsProvider,
  externalAccountName: Schema.String,
  status: ConnectionStatus
})
export type VcsConnection = typeof VcsConnection.Type

/** `externalRepoId` is the provider's id, never a service `RepositoryId` (spec section 2). */
export const AvailableRepository = Schema.Struct({
  externalRepoId: Schema.String,
  fullName: Schema.String,
  defaultBranch: Schema.String,
  tracked: Schema.Boolean
})
export type AvailableRepository = typeof AvailableRepository.Type

/** What the provider says about a repository; `tracked` is the service's knowledge, added later. */
export type ProviderRepository = Omit<AvailableRepository, "tracked">

export const AvailableBranch = Schema.Struct({
  name: Schema.String,
  isDefault: Schema.Boolean
})
export type AvailableBranch = typeof AvailableBranch.Type

/** A VCS connection id in a path that this organization does not have. */
export class VcsConnectionNotFound extends Schema.TaggedError<VcsConnectionNotFound>()("VcsConnectionNotFound", {
  vcsConnectionId: Schema.String
}) {
  override get message() {
    return `no VCS connection ${this.vcsConnectionId} in this organization`
  }
}

// ---------------------------------------------------------------------------------------------
// Connections created through the API (issue 15)
// ---------------------------------------------------------------------------------------------

/**
 * The settings stored beside a connection that reaches a provider's API: the same shape seed files
 * store (the adapters' `Fixture.ConnectionSettings`, `kind: "api"`), so the providers, the sync and
 * the push receiver read a connection the same way whoever made it. Secrets are only ever stored
 * sealed (`SecretBox`); `tokenEnv`/`webhookSecretEnv` name environment variables (seed files only).
 */
export const ApiSettings = Schema.Struct({
  kind: Schema.Literal("api"),
  baseUrl: Schema.String,
  tokenEnv: Schema.optional(Schema.String),
  sealedToken: Schema.optional(Schema.String),
  webhookSecretEnv: Schema.optional(Schema.String),
  sealedWebhookSecret: Schema.optional(Schema.String)
})
export type ApiSettings = typeof ApiSettings.Type

/** The public API of each provider: a connection without `baseUrl` uses it. */
export const defaultBaseUrls: Readonly<Record<VcsProvider, string>> = {
  github: "https://api.github.com",
  gitlab: "https://gitlab.com/api/v4"
}

/** An absolute http(s) URL without credentials, query or fragment (a self-hosted GitHub or GitLab API). */
export const BaseUrl = storable(Schema.String.check(
  Schema.isMaxLength(2048),
  Schema.isPattern(/^https?:\/\/[^\s/?#@]+(?:\/[^\s?#]*)?$/, {
    message: "must be an http(s) URL without credentials, query or fragment, such as https://ghe.example.com/api/v3"
  })
))

/**
 * A secret as the API takes it (provider token, push webhook secret): printable, no spaces. Refusals
 * name the field only, never the value (it is a secret).
 */
const secret = (min: number, message: string) =>
  Schema.String.annotate({ message }).check(
    Schema.isPattern(new RegExp(`^[\\x21-\\x7e]{${min},4096}$`), { message })
  )
export const Token = secret(1, "must be the token: 1 to 4096 printable characters without spaces")
export const WebhookSecret = secret(16, "must be 16 to 4096 printable characters without spaces")

/** Body of POST /vcs-connections. */
export const CreateVcsConnectionRequest = Schema.Struct({
  provider: VcsProvider,
  externalAccountName: storable(Schema.Trim.check(Schema.isMinLength(1), Schema.isMaxLength(200))),
  /** Omitted: the provider's public API (`defaultBaseUrls`). */
  baseUrl: Schema.optionalKey(BaseUrl),
  token: Token,
  /** The secret that signs the provider's push webhooks; without one the connection accepts no push. */
  webhookSecret: Schema.optionalKey(WebhookSecret)
})
export type CreateVcsConnectionRequest = typeof CreateVcsConnectionRequest.Type

/** Body of PUT /vcs-connections/{id}/token. */
export const ReplaceTokenRequest = Schema.Struct({ token: Token })
export type ReplaceTokenRequest = typeof ReplaceTokenRequest.Type

/** Body of PATCH /vcs-connections/{id}: the owner switches a connection off or on (`error` is the providers' to set). */
export const VcsConnectionPatch = Schema.Struct({ status: Schema.Literals(["active", "inactive"]) })
export type VcsConnectionPatch = typeof VcsConnectionPatch.Type

/** A connection with what its settings say, never a secret: where it reaches and whether secrets are set. */
export const VcsConnectionDetails = Schema.Struct({
  ...VcsConnection.fields,
  /** `fixture`: served from a seed file's data; `api`: a provider's REST API. */
  source: Schema.Literals(["fixture", "api"]),
  baseUrl: Schema.NullOr(Schema.String),
  tokenConfigured: Schema.Boolean,
  webhookSecretConfigured: Schema.Boolean
})
export type VcsConnectionDetails = typeof VcsConnectionDetails.Type

const isApiSettings = Schema.is(ApiSettings)
const hasText = (value: string | undefined) => value !== undefined && value !== ""

/** What a connection's stored settings say, for reads (no value of a secret or variable). */
export const toDetails = (connection: VcsConnection, settings: unknown): VcsConnectionDetails => {
  if (isApiSettings(settings)) {
    return {
      ...connection,
      source: "api",
      baseUrl: settings.baseUrl,
      tokenConfigured: hasText(settings.sealedToken) || hasText(settings.tokenEnv),
      webhookSecretConfigured: hasText(settings.sealedWebhookSecret) || hasText(settings.webhookSecretEnv)
    }
  }
  const fixtureSecret = typeof settings === "object" && settings !== null && "webhookSecret" in settings &&
    typeof settings.webhookSecret === "string" && settings.webhookSecret !== ""
  return { ...connection, source: "fixture", baseUrl: null, tokenConfigured: false, webhookSecretConfigured: fixtureSecret }
}

/** The settings of a new API connection, its secrets already sealed. */
export const apiSettings = (
  request: Pick<CreateVcsConnectionRequest, "provider" | "baseUrl">,
  sealed: { readonly token: string; readonly webhookSecret: string | undefined }
): ApiSettings => ({
  kind: "api",
  baseUrl: request.baseUrl ?? defaultBaseUrls[request.provider],
  sealedToken: sealed.token,
  ...(sealed.webhookSecret !== undefined ? { sealedWebhookSecret: sealed.webhookSecret } : {})
})

/**
 * The settings with a new sealed token: the sealed value replaces any token and any variable the
 * settings named (the sealed one would win anyway; one source of the token is what a reader expects).
 * `undefined` when the settings are not an API connection's (a fixture has no token).
 */
export const withToken = (settings: unknown, sealedToken: string): ApiSettings | undefined => {
  if (!isApiSettings(settings)) return undefined
  const { tokenEnv: _env, sealedToken: _old, ...rest } = settings
  return { ...rest, sealedToken }
}

/** PUT /vcs-connections/{id}/token on a connection that reaches no provider API (fixture data): 409. */
export class VcsConnectionHasNoToken extends Schema.TaggedError<VcsConnectionHasNoToken>()("VcsConnectionHasNoToken", {
  vcsConnectionId: VcsConnectionId
}) {
  override get message() {
    return `VCS connection ${this.vcsConnectionId} serves fixture data and has no token`
  }
}

/** What still reads through a connection, so deleting it would orphan it. */
export const ConnectionUse = Schema.Literals(["repository", "externalPhase"])
export type ConnectionUse = typeof ConnectionUse.Type

/** DELETE /vcs-connections/{id} while a tracked repository or an external phase reads through it (409). */
export class VcsConnectionInUse extends Schema.TaggedError<VcsConnectionInUse>()("VcsConnectionInUse", {
  vcsConnectionId: VcsConnectionId,
  usedBy: ConnectionUse
}) {
  override get message() {
    return this.usedBy === "repository"
      ? `VCS connection ${this.vcsConnectionId} is in use: tracked repositories read through it`
      : `VCS connection ${this.vcsConnectionId} is in use: an external policy phase reads its file through it`
  }
}
