/** Use cases: each reads ports, applies the rules and writes through one transaction. */
export * as Assignments from "./Assignments.js"
export * as Caller from "./Caller.js"
export * as Policy from "./Policy.js"
export * as Snooze from "./Snooze.js"
export * as ApiKeys from "./ApiKeys.js"
