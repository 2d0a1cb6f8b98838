/** @image-policy/core: pure policy rules, schemas, ports and workflows. Depends on `effect` only. */
export const version = "0.1.0"

export * as Address from "./Address.js"
export * as ApiKey from "./ApiKey.js"
export * as Assignment from "./Assignment.js"
export * as Audit from "./Audit.js"
export * as ConnectionHealth from "./ConnectionHealth.js"
export * as Cursor from "./Cursor.js"
export * as Delivery from "./Delivery.js"
export * as Event from "./Event.js"
export * as Id from "./Id.js"
export * as ImageReference from "./ImageReference.js"
export * as Input from "./Input.js"
export * as IsoDateTime from "./IsoDateTime.js"
export * as JsonValue from "./JsonValue.js"
export * as Mapping from "./Mapping.js"
export * as MappingsFile from "./MappingsFile.js"
export * as Onboarding from "./Onboarding.js"
export * as Organization from "./Organization.js"
export * as Outbox from "./Outbox.js"
export * as Permission from "./Permission.js"
export * as Platform from "./Platform.js"
export * as PolicyGroup from "./PolicyGroup.js"
export * as Remediation from "./Remediation.js"
export * as Repository from "./Repository.js"
export * as Resolution from "./Resolution.js"
export * as Routine from "./Routine.js"
export * as Scan from "./Scan.js"
export * as Scanner from "./Scanner.js"
export * as SnoozeRequest from "./SnoozeRequest.js"
export * as Team from "./Team.js"
export * as Text from "./Text.js"
export * as VcsConnection from "./VcsConnection.js"
export * as Webhook from "./Webhook.js"
export type { UserError } from "./UserError.js"
export { Ids } from "./ports/Ids.js"
export { PushDeliveryIds } from "./ports/PushDeliveryIds.js"
export { SecretHasher } from "./ports/SecretHasher.js"
export { Store } from "./ports/Store.js"
export { SecretBox, SecretUnavailable } from "./ports/SecretBox.js"
export { VcsProvider, VcsProviderError, VcsWriteRejected } from "./ports/VcsProvider.js"
export { InvalidEndpoint, SendFailure, WebhookSender } from "./ports/WebhookSender.js"
export type { Attempt, AttemptResult } from "./ports/WebhookSender.js"
export type { ConnectionContext, RemediationOpened, RemediationWrite, VcsFile, VcsTree } from "./ports/VcsProvider.js"
export type {
  ApiKeyMatch,
  ClaimedScan,
  DraftMapping,
  NewOutboxEvent,
  Page,
  PageRequest,
  RoutineTarget,
  ScanOutcome,
  StoreService
} from "./ports/Store.js"
export * as Workflows from "./workflows/index.js"
