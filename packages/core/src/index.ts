/** @image-policy/core: pure policy rules, schemas, ports and workflows. Depends on `effect` only. */
export const version = "0.1.0"

export * as Assignment from "./Assignment.js"
export * as Audit from "./Audit.js"
export * as Id from "./Id.js"
export * as Onboarding from "./Onboarding.js"
export * as Outbox from "./Outbox.js"
export * as Webhook from "./Webhook.js"
export { Ids } from "./ports/Ids.js"
