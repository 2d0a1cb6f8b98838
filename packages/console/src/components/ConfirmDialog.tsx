/**
 * A confirmation in a native modal `<dialog>` (focus trapped and restored by the browser, Escape
 * cancels). `open` shows it; the confirm button runs `onConfirm`, which may fail: its error shows
 * inside the dialog and the dialog stays open.
 *
 * `<ConfirmDialog open={!!revoking} title="Revoke this key?" confirmLabel="Revoke key" danger
 *   onConfirm={() => revoke.run(revoking.id)} onClose={() => setRevoking(undefined)} error={revoke.error}>…</ConfirmDialog>`
 */
import { type ReactNode, useEffect, useId, useRef } from "react"
import type { ApiError } from "../problem.js"

export interface ConfirmDialogProps {
  readonly open: boolean
  readonly title: string
  readonly children?: ReactNode
  readonly confirmLabel: string
  readonly cancelLabel?: string
  readonly danger?: boolean
  readonly pending?: boolean
  readonly error?: ApiError | undefined
  /** Resolves `{ ok: true }` to close the dialog; `{ ok: false }` keeps it open with `error` shown. */
  readonly onConfirm: () => Promise<{ readonly ok: boolean }> | void
  readonly onClose: () => void
}

export function ConfirmDialog(props: ConfirmDialogProps) {
  const { open, title, children, confirmLabel, cancelLabel = "Cancel", danger = false, pending = false, error, onConfirm, onClose } = props
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  const confirm = async () => {
    const outcome = await onConfirm()
    if (outcome === undefined || outcome.ok) onClose()
  }
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId} className="dialog__title">{title}</h2>
      <div className="dialog__body">{children}</div>
      {error !== undefined
        ? (
          <div className="alert alert--error" role="alert">
            <p>{error.detail}</p>
          </div>
        )
        : null}
      <div className="dialog__actions">
        <button type="button" className="button" onClick={onClose} autoFocus>{cancelLabel}</button>
        <button type="button" className={danger ? "button button--danger" : "button button--primary"} onClick={confirm} disabled={pending}>
          {pending ? `${confirmLabel}…` : confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
