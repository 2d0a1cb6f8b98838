/**
 * Why `image-policy check` could not give an answer (exit code 2): the command line, a path it
 * cannot read, a mappings file that is not valid, an output it cannot write, or a server that
 * cannot answer (unreachable, refusing the key, an unknown repository or branch). Out-of-policy
 * findings are not a failure of the check: they are its answer (exit code 1, CheckCommand.ts).
 */
import * as Data from "effect/Data"
import type * as PlatformError from "effect/PlatformError"

export class CheckFailure extends Data.TaggedError("CheckFailure")<{
  readonly reason: "usage" | "unreadable" | "invalid-mappings" | "unwritable" | "server"
  readonly message: string
  /** More lines for stderr, e.g. every problem of a mappings file. */
  readonly details?: ReadonlyArray<string> | undefined
}> {}

/** A file system error in a reader's words (no stack, no Effect module names). */
export const describe = (error: PlatformError.PlatformError): string => {
  const reason = error.reason
  if (reason._tag === "BadArgument") return reason.description ?? "invalid path"
  switch (reason._tag) {
    case "NotFound":
      return "no such file or directory"
    case "PermissionDenied":
      return "permission denied"
    default:
      return reason.description ?? reason._tag
  }
}
