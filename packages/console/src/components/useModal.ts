/**
 * A native modal `<dialog>` shown while `open`: `showModal` makes the browser trap focus, restore
 * it on close and cancel on Escape, which a `div` with ARIA would have to imitate.
 */
import { useEffect, useRef } from "react"

export function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return ref
}
