/**
 * A confirmation in a native modal `<dialog>` (focus trapped and restored by the browser, Escape
 * cancels). `open` shows it; the confirm button runs `onConfirm`, which may fail: its error shows
 * inside the dialog and the dialog stays open. With `mutation`, the dialog shows that change's
 * pending state and error, clears the error when it closes, and calls `onDone` with the change's
 * value before closing, so a page only says what to run and what follows:
 *
 * `<ConfirmDialog target={revoking} title="Revoke this key?" confirmLabel="Revoke key" danger mutation={revoke}
 *   onConfirm={(key) => revoke.run(key.id)} onDone={(_, key) => { toast.show(`${key.name} revoked`); keys.reload() }}
 *   onClose={() => setRevoking(undefined)}>…</ConfirmDialog>`
 *
 * `target` (the row the dialog acts on) opens it while set and reaches `onConfirm` and `onDone`;
 * without one, `open` shows it.
 */
import { type ReactNode, useId } from "react"
import type { Outcome } from "../api.js"
import type { ApiError } from "../problem.js"
import { useModal } from "./useModal.js"

export interface ConfirmDialogProps<A, T> {
  readonly open?: boolean
  readonly target?: T | undefined
  readonly title: string
  readonly children?: ReactNode
  readonly confirmLabel: string
  readonly cancelLabel?: string
  readonly danger?: boolean
  readonly pending?: boolean
  readonly error?: ApiError | undefined
  /** The change the dialog runs (`useMutation`): its `pending` and `error` are shown, and closing clears the error. */
  readonly mutation?: { readonly pending: boolean; readonly error: ApiError | undefined; readonly reset: () => void }
  /** Resolves ok to close the dialog (after `onDone`); a failure keeps it open with the error shown. */
  readonly onConfirm: (target: T) => Promise<Outcome<A> | { readonly ok: boolean }> | void
  /** After a successful `onConfirm`, before the dialog closes: the toast, the reload. */
  readonly onDone?: (value: A, target: T) => void
  readonly onClose: () => void
}

export function ConfirmDialog<A = unknown, T = undefined>(props: ConfirmDialogProps<A, T>) {
  const { target, title, children, confirmLabel, cancelLabel = "Cancel", danger = false, mutation, onConfirm, onDone } = props
  const open = props.open ?? target !== undefined
  const pending = props.pending ?? mutation?.pending ?? false
  const error = props.error ?? mutation?.error
  const onClose = () => {
    mutation?.reset()
    props.onClose()
  }
  const ref = useModal(open)
  const titleId = useId()
  const confirm = async () => {
    // the row it was opened for, even if a reload replaced it meanwhile
    const acted = target as T
    const outcome = await onConfirm(acted)
    if (outcome === undefined || outcome.ok) {
      if (outcome !== undefined && "value" in outcome) onDone?.(outcome.value, acted)
      onClose()
    }
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
