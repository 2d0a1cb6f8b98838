/**
 * What a format reader reports for one image reference: where it is written and what it stands for.
 * `Scanner` adds the file, its kind and the normalized image.
 */
import * as Result from "effect/Result"
import { normalizePlatformScope } from "../Platform.js"

export interface Draft {
  readonly line: number
  readonly column: number
  readonly reference: string
  readonly image?: string | undefined
  readonly unresolved?: ReadonlyArray<string> | undefined
  readonly platform?: string | undefined
  readonly stage?: string | undefined
}

/** A platform as the file writes it, canonical (`linux/aarch64` is `linux/arm64`); undefined when it is not one. */
export const canonicalPlatform = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  const p = normalizePlatformScope(text)
  return Result.isSuccess(p) && p.success !== "" ? p.success : undefined
}
