/**
 * A table of rows with a caption, column headers and cursor paging ("Load more" while the server
 * has more rows). On a phone each row becomes a card whose cells carry their column's name.
 *
 * ```tsx
 * const keys = usePaged((api, orgId, cursor) => api.apiKeys.listApiKeys({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }), [])
 * <DataTable caption="API keys" paged={keys} rowKey={(k) => k.id} empty={<EmptyState title="No API keys yet" />}
 *   columns={[{ header: "Name", cell: (k) => k.name }, { header: "Status", cell: (k) => k.status }]} />
 * ```
 *
 * `paged` (a `usePaged` list) gives the rows, loading, error, retry and "Load more" at once; the
 * separate props serve lists paged some other way.
 */
import type { ReactNode } from "react"
import type { Paged } from "../api.js"
import type { ApiError } from "../problem.js"
import { ErrorMessage } from "./ErrorMessage.js"
import { Loading } from "./Loading.js"

export interface Column<A> {
  readonly header: string
  readonly cell: (row: A) => ReactNode
  /** `numeric` right-aligns; `actions` holds row buttons. */
  readonly kind?: "numeric" | "actions"
  /** Hidden header text for screen readers only (e.g. "Actions"). */
  readonly visuallyHiddenHeader?: boolean
}

export interface DataTableProps<A> {
  readonly caption: string
  readonly columns: ReadonlyArray<Column<A>>
  readonly paged?: Paged<A>
  readonly rows?: ReadonlyArray<A>
  readonly rowKey: (row: A) => string
  readonly loading?: boolean
  readonly error?: ApiError | undefined
  readonly onRetry?: () => void
  /** Present while more rows exist (see `usePaged`). */
  readonly loadMore?: (() => void) | undefined
  /** Shown instead of the table when there are no rows and nothing is loading. */
  readonly empty?: ReactNode
  /** Show the caption visually (default: only to screen readers; pages have their own headings). */
  readonly showCaption?: boolean
}

export function DataTable<A>(props: DataTableProps<A>) {
  const { caption, columns, rowKey, paged, empty, showCaption = false } = props
  const rows = props.rows ?? paged?.items ?? []
  const loading = props.loading ?? paged?.loading ?? false
  const error = props.error ?? paged?.error
  const onRetry = props.onRetry ?? paged?.reload
  const loadMore = props.loadMore ?? paged?.loadMore
  if (rows.length === 0 && loading) return <Loading label={`Loading ${caption.toLowerCase()}`} />
  if (rows.length === 0 && error !== undefined) return <ErrorMessage error={error} {...(onRetry ? { onRetry } : {})} />
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className={showCaption ? "table__caption" : "visually-hidden"}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.kind ? `cell--${c.kind}` : undefined}>
                {c.visuallyHiddenHeader === true ? <span className="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td
                  key={c.header}
                  data-label={c.visuallyHiddenHeader === true ? "" : c.header}
                  className={c.kind ? `cell--${c.kind}` : undefined}
                >
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {error !== undefined ? <ErrorMessage error={error} {...(onRetry ? { onRetry } : {})} /> : null}
      <div className="table__footer">
        <span className="table__count" aria-live="polite">{rows.length} shown</span>
        {loadMore !== undefined ? <button type="button" className="button" onClick={loadMore}>Load more</button> : null}
        {loading ? <Loading label="Loading more" /> : null}
      </div>
    </div>
  )
}
