/**
 * A VCS connection's health, as its provider's answers show it. A provider that rejects the
 * connection's credentials marks the connection `error`; a later call the provider answers (it
 * accepted the credentials, whatever it said about the request) marks it `active` again. The
 * owner's `inactive` is never changed by a provider. Every provider call the workflows make
 * through a connection applies this rule: syncs, branch scans, remediation and the onboarding
 * lists (`workflows/ConnectedProvider.ts`).
 */
import type { VcsProviderError } from "./Vcs.js"
import type { ConnectionStatus } from "./VcsConnection.js"

/**
 * How one provider call ended: `Answered` (it succeeded), or the port's error (`VcsProviderError`
 * or `VcsWriteRejected`; an error instance fits as it is). A defect or an interruption is no outcome: the
 * provider said nothing about the credentials.
 */
export type CallOutcome =
  | { readonly _tag: "Answered" }
  | { readonly _tag: "VcsProviderError"; readonly reason: VcsProviderError["reason"] }
  | { readonly _tag: "VcsWriteRejected"; readonly reason: "conflict" | "forbidden" | "invalid" }

export const answered: CallOutcome = { _tag: "Answered" }

/**
 * What an outcome says about the credentials. `accepted`: the provider answered, said it knows no
 * such repository or branch, or refused a write because the branch moved or the token may not
 * write there (it read the credentials to say so). `rejected`: it refused the credentials.
 * `unknown`: it could not or would not answer now (rate limited, unreachable), this deployment has
 * no adapter for it, or the write was refused as `invalid` (the adapter refuses some writes itself,
 * before asking the provider anything).
 */
export const credentialsVerdict = (outcome: CallOutcome): "accepted" | "rejected" | "unknown" => {
  switch (outcome._tag) {
    case "Answered":
      return "accepted"
    case "VcsWriteRejected":
      return outcome.reason === "invalid" ? "unknown" : "accepted"
    case "VcsProviderError":
      switch (outcome.reason) {
        case "unauthorized":
          return "rejected"
        case "not-found":
          return "accepted"
        case "rate-limited":
        case "unavailable":
        case "not-configured":
          return "unknown"
      }
  }
}

/** The status a connection has after a provider call with `outcome`, from its status `current`. */
export const statusAfter = (current: ConnectionStatus, outcome: CallOutcome): ConnectionStatus => {
  // the owner switched it off: only the owner switches it on
  if (current === "inactive") return current
  switch (credentialsVerdict(outcome)) {
    case "accepted":
      return "active"
    case "rejected":
      return "error"
    case "unknown":
      return current
  }
}
