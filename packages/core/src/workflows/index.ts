/** Use cases: each reads ports, applies the rules and writes through one transaction. */
export * as ApiKeys from "./ApiKeys.js"
export * as Assignments from "./Assignments.js"
export * as Audit from "./Audit.js"
export * as Caller from "./Caller.js"
export * as Onboarding from "./Onboarding.js"
export * as Policy from "./Policy.js"
export * as Snooze from "./Snooze.js"
export * as Webhooks from "./Webhooks.js"
