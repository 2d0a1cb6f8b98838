/** Webhook destinations (their endpoint and signing secret sealed by `SecretBox`). */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { OrgId, WebhookId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"
import type { WebhookDestination } from "../Webhook.js"

export class WebhookStore extends Context.Service<WebhookStore, {
  readonly insert: (orgId: OrgId, destination: WebhookDestination) => Effect.Effect<void>
  readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<WebhookDestination>>
  readonly all: (orgId: OrgId) => Effect.Effect<ReadonlyArray<WebhookDestination>>
  readonly get: (orgId: OrgId, id: WebhookId) => Effect.Effect<Option.Option<WebhookDestination>>
  readonly update: (orgId: OrgId, destination: WebhookDestination) => Effect.Effect<void>
  /** Removes the destination and its deliveries (their attempts stay in the history). */
  readonly delete: (orgId: OrgId, id: WebhookId) => Effect.Effect<void>
}>()("@image-policy/core/WebhookStore") {}
