/**
 * The `defect` field of a worker's "failed unexpectedly" log line: the kind of failure only
 * (`Die`, `Fail`, `Interrupt`), never its text, which may quote a provider's answer or a secret.
 * Effect 3 logged `cause._tag`; an Effect 4 cause is a list of reasons, so several distinct kinds
 * read `Die,Interrupt`.
 */
import type * as Cause from "effect/Cause"

export const kindOf = (cause: Cause.Cause<unknown>): string => [...new Set(cause.reasons.map((reason) => reason._tag))].join(",") || "Empty"
