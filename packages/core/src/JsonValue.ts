/**
 * Checks of a parsed JSON value that no schema states: how deep it nests and whether every string
 * in it (keys included) is text a store can hold. Request bodies (host BodyGuard) and seed files run
 * them before decoding, so such values are a clear problem at their path, never a store's defect.
 */
import type { FieldError } from "./Input.js"
import { isStorableText, unstorableMessage } from "./Text.js"

/**
 * No value this project reads nests more than a few levels; one nested thousands of levels deep
 * would exhaust the stack of every recursive step after parsing (schema decoding, error formatting),
 * so it is refused first, by a walk that needs no recursion itself.
 */
export const maxDepth = 64

export const withinDepth = (value: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!
    if (typeof node !== "object" || node === null) continue
    if (depth >= limit) return false
    for (const child of Array.isArray(node) ? node : Object.values(node)) pending.push([child, depth + 1])
  }
  return true
}

/**
 * The paths of the strings (keys included) that are not storable text: a NUL or a lone surrogate,
 * which PostgreSQL refuses. At most 20 are named; paths use the form of schema errors
 * (`branchNames[1]`, `a.b`; `(body)` for the value itself). Run after `withinDepth`, which bounds
 * its recursion.
 */
export const unstorableFields = (value: unknown): Array<FieldError> => {
  const found: Array<FieldError> = []
  const visit = (node: unknown, path: string): void => {
    if (found.length >= 20) return
    if (typeof node === "string") {
      if (!isStorableText(node)) found.push({ path: path === "" ? "(body)" : path, message: unstorableMessage })
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${path}[${i}]`))
    } else if (typeof node === "object" && node !== null) {
      for (const [key, item] of Object.entries(node)) {
        // a bad key is named by its position: the key itself is the bad text
        const named = isStorableText(key) ? key : "(invalid key)"
        if (!isStorableText(key)) found.push({ path: path === "" ? named : `${path}.${named}`, message: unstorableMessage })
        visit(item, path === "" ? named : `${path}.${named}`)
      }
    }
  }
  visit(value, "")
  return found
}
