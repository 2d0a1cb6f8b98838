/**
 * Text every store can hold and compare: no NUL and no unpaired UTF-16 surrogate. JSON and
 * percent-encoding can spell both; PostgreSQL (and PGlite) refuses NUL in `text` and `jsonb`, and
 * `jsonb` refuses a lone surrogate. Requests holding them are refused (400); text read from files
 * and providers is made storable with `storableText`.
 */
import * as Schema from "effect/Schema"

// NUL, a high surrogate not followed by a low one, a low surrogate not preceded by a high one
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const unstorableAll = new RegExp(unstorable.source, "g")

/**
 * Compares two strings without an early exit: every character position is visited, so the time taken
 * does not reveal how long a matching prefix was (secrets, their hashes, CSRF tokens).
 */
export const constantTimeEqual = (a: string, b: string): boolean => {
  const length = Math.max(a.length, b.length)
  let diff = a.length ^ b.length
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

export const isStorableText = (text: string): boolean => !unstorable.test(text)

// eslint-disable-next-line no-control-regex -- every character past ASCII
const nonAscii = /[^\u0000-\u007f]/

/** The UTF-8 length of a text in bytes (lone surrogates count as U+FFFD, 3 bytes, as an encoder writes them). */
export const utf8Length = (text: string): number => {
  // most texts are ASCII, which a regular expression finds far faster than a loop counts
  if (!nonAscii.test(text)) return text.length
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/**
 * `text` with every NUL and lone surrogate replaced by U+FFFD, one for one (nothing is stripped, so
 * lengths and columns stay those of the original); the same string when it has none.
 */
export const storableText = (text: string): string => text.replace(unstorableAll, "\uFFFD")

/** What a field holding unstorable text is told (request bodies, query parameters, files). */
export const unstorableMessage = "must not contain NUL characters or unpaired UTF-16 surrogates"

/** The storable-text rule as a schema filter, for strings built from other schemas (`Schema.Trim`, ...). */
export const storable = <S extends Schema.Codec<string, unknown>>(schema: S): S["Rebuild"] =>
  schema.check(Schema.makeFilter((text: string) => isStorableText(text) || unstorableMessage))

/** A string every store can hold: input schemas use it, so such text is a validation error with its path. */
export const StorableString = storable(Schema.String)

/**
 * Orders texts by code point, which is the order of their UTF-8 bytes: the order PostgreSQL gives
 * text columns with COLLATE "C". JavaScript's `<` compares UTF-16 code units, which puts characters
 * above U+FFFF (emoji, written as surrogate pairs) before U+E000..U+FFFF (e.g. fullwidth forms).
 * A negative number, zero or a positive number, as `Array.prototype.sort` wants.
 */
export const compareCodePoints = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

// surrogates (the halves of code points above U+FFFF) move above U+E000..U+FFFF, which move down
const codePointRank = (unit: number): number => unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit
