/**
 * The fast-check arbitraries that more than one adapters test builds, named after what they make,
 * and the core's shared ones the adapters' tests use. Property tests register through the core's
 * bridge (`core/test/support/fcProp.ts`).
 */
import * as fc from "fast-check"

export { codeUnitText } from "../../core/test/arbitraries.js"

/** Text of whole Unicode characters (no lone surrogates): anything a user or a provider can write. */
export const unicodeText = (options: { readonly minLength?: number; readonly maxLength?: number } = {}) =>
  fc.string({ unit: "grapheme", ...options })
