import type { ReactNode } from "react"

/** What a list says when it has nothing yet, with the action that fills it (if the user may take it). */
export function EmptyState({ title, children, action }: {
  readonly title: string
  readonly children?: ReactNode
  readonly action?: ReactNode
}) {
  return (
    <div className="empty">
      <p className="empty__title">{title}</p>
      {children !== undefined ? <div className="empty__body">{children}</div> : null}
      {action !== undefined ? <div className="empty__action">{action}</div> : null}
    </div>
  )
}
