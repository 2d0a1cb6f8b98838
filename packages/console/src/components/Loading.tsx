/** A polite "Loading…" status: announced by screen readers, shown with a spinner. */
export function Loading({ label = "Loading", fullPage = false }: { readonly label?: string; readonly fullPage?: boolean }) {
  return (
    <div className={fullPage ? "loading loading--page" : "loading"} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}…</span>
    </div>
  )
}
