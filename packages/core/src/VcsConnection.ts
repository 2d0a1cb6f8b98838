/**
 * VCS connections (spec section 2): an organization's account at a provider, and what the provider
 * lists through it (the repositories and branches onboarding can pick from).
 */
import * as Schema from "effect/Schema"
import { VcsConnectionId } from "./Id.js"

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
