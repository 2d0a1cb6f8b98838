/**
 * The frame of every page: its `<h1>` (focused after a navigation, so screen readers announce the
 * new page), the document title, an optional description and actions beside the heading.
 * `<Page title="API keys" actions={can("api-keys:manage") ? <button…>Create key</button> : null}>…</Page>`
 */
import { type ReactNode, useEffect, useRef } from "react"

// The first page of a load keeps focus at the top of the document (where the skip link is).
let firstPage = true

export function Page({ title, description, actions, children }: {
  readonly title: string
  readonly description?: ReactNode
  readonly actions?: ReactNode
  readonly children?: ReactNode
}) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${title} · image-policy`
    if (firstPage) firstPage = false
    else heading.current?.focus()
  }, [title])
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1 ref={heading} tabIndex={-1} className="page__title">{title}</h1>
          {description !== undefined ? <p className="page__description">{description}</p> : null}
        </div>
        {actions !== undefined ? <div className="page__actions">{actions}</div> : null}
      </header>
      {children}
    </div>
  )
}
