/**
 * VCS connections through the API (issue 15): create one for a provider's API with its token (and
 * push webhook secret) sealed by `SecretBox`, read it, replace its token, switch it off and on,
 * delete it while nothing reads through it. Connections are stored with the settings seed files
 * store (`VcsConnection.ApiSettings`), so providers, syncs and push deliveries read both alike.
 * No answer, audit row, event or error holds a token or secret: reads say only whether one is set.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { VcsConnectionId } from "../Id.js"
import * as Input from "../Input.js"
import { Ids } from "../ports/Ids.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { SecretBox } from "../ports/SecretBox.js"
import { transaction } from "../ports/Transaction.js"
import * as VcsConnection from "../VcsConnection.js"
import { audit, type Caller } from "./Caller.js"

/** The connection named in a path with its settings, or `VcsConnectionNotFound` (404). */
const loadConnection = (caller: Caller, id: VcsConnectionId) =>
  Effect.gen(function*() {
    const { vcsConnections } = yield* RepositoryStore
    const connection = yield* vcsConnections.get(caller.orgId, id)
    if (Option.isNone(connection)) return yield* new VcsConnection.VcsConnectionNotFound({ vcsConnectionId: id })
    const settings = Option.getOrNull(yield* vcsConnections.settings(caller.orgId, id))
    return { connection: connection.value, settings }
  })

const details = (caller: Caller, id: VcsConnectionId) =>
  Effect.map(loadConnection(caller, id), ({ connection, settings }) => VcsConnection.toDetails(connection, settings))

/** POST /vcs-connections -> 201: an `active` connection to the provider's API (its public one without `baseUrl`). */
export const createVcsConnection = Effect.fnUntraced(function*(caller: Caller, request: VcsConnection.CreateVcsConnectionRequest) {
  yield* Input.validate(VcsConnection.CreateVcsConnectionRequest, request)
  const { vcsConnections } = yield* RepositoryStore
  const ids = yield* Ids
  const box = yield* SecretBox
  const settings = VcsConnection.apiSettings(request, {
    token: yield* box.seal(request.token),
    webhookSecret: request.webhookSecret === undefined ? undefined : yield* box.seal(request.webhookSecret)
  })
  const connection: VcsConnection.VcsConnection = {
    id: (yield* ids.next("vcsConnection")) as VcsConnectionId,
    provider: request.provider,
    externalAccountName: request.externalAccountName,
    status: "active"
  }
  yield* transaction(Effect.gen(function*() {
    yield* vcsConnections.insert(caller.orgId, connection, settings)
    yield* audit(caller, "vcs_connection.create", "vcs_connection", connection.id)
  }))
  return VcsConnection.toDetails(connection, settings)
})

/** GET /vcs-connections/{connectionId}: the connection and what its settings say (never a secret). */
export const getVcsConnection = Effect.fnUntraced(function*(caller: Caller, id: VcsConnectionId) {
  return yield* details(caller, id)
})

/**
 * PUT /vcs-connections/{connectionId}/token: the new token, sealed, replaces the old one (and any
 * variable a seed named for it). The status stays: the next provider answer sets `active` or
 * `error` (docs/api.md "VCS connection status"). 409 for a fixture connection, which has no token.
 */
export const replaceVcsConnectionToken = Effect.fnUntraced(function*(
  caller: Caller,
  id: VcsConnectionId,
  request: VcsConnection.ReplaceTokenRequest
) {
  yield* Input.validate(VcsConnection.ReplaceTokenRequest, request)
  const { vcsConnections } = yield* RepositoryStore
  const box = yield* SecretBox
  const sealed = yield* box.seal(request.token)
  return yield* transaction(Effect.gen(function*() {
    const { connection, settings } = yield* loadConnection(caller, id)
    const next = VcsConnection.withToken(settings, sealed)
    if (next === undefined) return yield* new VcsConnection.VcsConnectionHasNoToken({ vcsConnectionId: id })
    yield* vcsConnections.setSettings(caller.orgId, id, next)
    yield* audit(caller, "vcs_connection.replace_token", "vcs_connection", id)
    return VcsConnection.toDetails(connection, next)
  }))
})

/** PATCH /vcs-connections/{connectionId}: `inactive` switches it off (nothing goes through it), `active` on again. */
export const updateVcsConnection = Effect.fnUntraced(function*(
  caller: Caller,
  id: VcsConnectionId,
  patch: VcsConnection.VcsConnectionPatch
) {
  yield* Input.validate(VcsConnection.VcsConnectionPatch, patch)
  const { vcsConnections } = yield* RepositoryStore
  yield* transaction(Effect.gen(function*() {
    yield* loadConnection(caller, id)
    yield* vcsConnections.setStatus(caller.orgId, id, patch.status)
    yield* audit(caller, patch.status === "inactive" ? "vcs_connection.deactivate" : "vcs_connection.activate", "vcs_connection", id)
  }))
  return yield* details(caller, id)
})

/**
 * DELETE /vcs-connections/{connectionId} -> 204; 409 while a tracked repository or an external
 * phase reads through it (untrack the repositories, move the phases first).
 */
export const deleteVcsConnection = Effect.fnUntraced(function*(caller: Caller, id: VcsConnectionId) {
  const { repositories, vcsConnections } = yield* RepositoryStore
  const { policyGroups } = yield* PolicyStore
  yield* transaction(Effect.gen(function*() {
    yield* loadConnection(caller, id)
    if ((yield* repositories.count(caller.orgId, { vcsConnectionId: id })) > 0) {
      return yield* new VcsConnection.VcsConnectionInUse({ vcsConnectionId: id, usedBy: "repository" })
    }
    const groups = yield* policyGroups.all(caller.orgId)
    if (groups.some((g) => g.phases.some((p) => p.external?.vcsConnectionId === id))) {
      return yield* new VcsConnection.VcsConnectionInUse({ vcsConnectionId: id, usedBy: "externalPhase" })
    }
    yield* vcsConnections.delete(caller.orgId, id)
    yield* audit(caller, "vcs_connection.delete", "vcs_connection", id)
  }))
})
