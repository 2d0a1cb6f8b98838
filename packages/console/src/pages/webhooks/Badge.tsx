import type { ReactNode } from "react"

export function Badge({ kind, children }: { readonly kind?: "success" | "danger" | "warning"; readonly children: ReactNode }) {
  return <span className={kind === undefined ? "badge" : `badge badge--${kind}`}>{children}</span>
}
