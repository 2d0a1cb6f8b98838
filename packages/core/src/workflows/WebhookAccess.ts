/** A webhook destination as workflows reach it: by the id in a path. */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { WebhookId } from "../Id.js"
import { WebhookStore } from "../ports/WebhookStore.js"
import { WebhookNotFound } from "../Webhook.js"
import type { Caller } from "./Caller.js"

/** The destination named in a path, or `WebhookNotFound` (404). */
export const loadDestination = (caller: Caller, id: WebhookId) =>
  WebhookStore.use((webhooks) =>
    Effect.flatMap(
      webhooks.get(caller.orgId, id),
      Option.match({
        onNone: () => Effect.fail(new WebhookNotFound({ webhookId: id })),
        onSome: Effect.succeed
      })
    )
  )
