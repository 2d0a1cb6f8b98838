/**
 * Secret key rotation: every secret at rest (webhook endpoints and signing secrets, VCS provider
 * tokens and push webhook secrets) opened with whichever key sealed it and sealed again under the
 * current key, so the previous key can be retired (docs/deploy.md). Run by `image-policy secrets
 * reseal` with the new key as `IMAGE_POLICY_SECRET_KEY` and the old one as
 * `IMAGE_POLICY_SECRET_KEY_PREVIOUS`. Running it again is harmless: each value gets a fresh IV.
 *
 * No audit row or event: nothing a caller can see changes (the same endpoint, secret and token,
 * only their ciphertext). A value that no key opens is left as it is and counted with its owner's
 * id (never the value), so the operator knows which secret to set again.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { OrgId } from "../Id.js"
import { readAll } from "../Page.js"
import { ReportStore } from "../ports/ReportStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { SecretBox } from "../ports/SecretBox.js"
import { transaction } from "../ports/Transaction.js"
import { WebhookStore } from "../ports/WebhookStore.js"

export interface ResealResult {
  /** Sealed values now under the current key. */
  readonly resealed: number
  /** What could not be opened with any key: the owner's kind and id, never the value. */
  readonly unopened: ReadonlyArray<{ readonly orgId: OrgId; readonly kind: "webhook" | "vcsConnection"; readonly id: string }>
}

/** The settings fields of an API connection that hold sealed values (VcsConnection.apiSettings). */
const sealedSettings = ["sealedToken", "sealedWebhookSecret"] as const

export const resealAll = Effect.fnUntraced(function*() {
  const reports = yield* ReportStore
  const webhooks = yield* WebhookStore
  const { vcsConnections } = yield* RepositoryStore
  const box = yield* SecretBox
  let resealed = 0
  const unopened: Array<ResealResult["unopened"][number]> = []
  /** The value sealed again, or `undefined` when no key opens it. */
  const reseal = (sealed: string) =>
    box.open(sealed).pipe(
      Effect.flatMap(box.seal),
      Effect.catch(() => Effect.succeed(undefined))
    )

  for (const orgId of yield* reports.organizationIds()) {
    for (const { id } of yield* webhooks.all(orgId)) {
      // read again inside the transaction: what is written is the row as it is now
      yield* transaction(Effect.gen(function*() {
        const found = yield* webhooks.get(orgId, id)
        if (Option.isNone(found)) return
        const destination = found.value
        const endpointSealed = yield* reseal(destination.endpointSealed)
        const signingSecretSealed = destination.signingSecretSealed === null ? null : yield* reseal(destination.signingSecretSealed)
        if (endpointSealed === undefined || signingSecretSealed === undefined) {
          unopened.push({ orgId, kind: "webhook", id })
          return
        }
        yield* webhooks.update(orgId, { ...destination, endpointSealed, signingSecretSealed })
        resealed += signingSecretSealed === null ? 1 : 2
      }))
    }
    for (const { id } of yield* readAll((page) => vcsConnections.list(orgId, page))) {
      yield* transaction(Effect.gen(function*() {
        const found = yield* vcsConnections.settings(orgId, id)
        if (Option.isNone(found) || typeof found.value !== "object" || found.value === null) return
        const settings: Record<string, unknown> = { ...found.value }
        let changed = 0
        for (const field of sealedSettings) {
          const sealed = settings[field]
          if (typeof sealed !== "string" || sealed === "") continue
          const again = yield* reseal(sealed)
          if (again === undefined) {
            unopened.push({ orgId, kind: "vcsConnection", id })
            return
          }
          settings[field] = again
          changed++
        }
        if (changed === 0) return
        yield* vcsConnections.setSettings(orgId, id, settings)
        resealed += changed
      }))
    }
  }
  return { resealed, unopened } satisfies ResealResult
})
