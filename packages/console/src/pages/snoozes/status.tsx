/** A snooze request's status as a badge that says it in words. */
import type { SnoozeRequest } from "@image-policy/core"

const badge: Record<SnoozeRequest.SnoozeStatus, string> = {
  pending: "badge badge--warning",
  approved: "badge badge--success",
  rejected: "badge badge--danger",
  expired: "badge"
}

const words: Record<SnoozeRequest.SnoozeStatus, string> = {
  pending: "Pending review",
  approved: "Approved",
  rejected: "Rejected",
  expired: "Expired"
}

export const snoozeStatuses: ReadonlyArray<SnoozeRequest.SnoozeStatus> = ["pending", "approved", "rejected", "expired"]

export const snoozeStatusWords = (status: SnoozeRequest.SnoozeStatus) => words[status]

export function SnoozeStatusBadge({ status }: { readonly status: SnoozeRequest.SnoozeStatus }) {
  return <span className={badge[status]}>{words[status]}</span>
}
