/** @image-policy/core: pure policy rules, schemas, ports and workflows. Depends on `effect` only. */
export const version = "0.1.0"

export * as Id from "./Id.js"
export { Ids } from "./ports/Ids.js"
