import type { ApiError } from "../problem.js"

/** A failed call's `detail` as an alert (read out when it appears), with a retry when there is one. */
export function ErrorMessage({ error, onRetry }: { readonly error: ApiError | undefined; readonly onRetry?: () => void }) {
  if (error === undefined) return null
  return (
    <div className="alert alert--error" role="alert">
      <p>{error.detail}</p>
      {onRetry !== undefined ? <button type="button" className="button button--small" onClick={onRetry}>Try again</button> : null}
    </div>
  )
}
