/**
 * Short confirmations ("Key revoked") in one status region (`aria-live`), so screen readers
 * announce them without moving focus. `const toast = useToast(); toast.show("Key revoked")`.
 */
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react"

type Kind = "success" | "error" | "info"
interface Item {
  readonly id: number
  readonly message: string
  readonly kind: Kind
}
interface Toasts {
  readonly show: (message: string, kind?: Kind) => void
}

const Context = createContext<Toasts>({ show: () => {} })
export const useToast = () => useContext(Context)

let nextId = 0

export function ToastProvider({ children }: { readonly children: ReactNode }) {
  const [items, setItems] = useState<ReadonlyArray<Item>>([])
  const dismiss = useCallback((id: number) => setItems((all) => all.filter((i) => i.id !== id)), [])
  const show = useCallback((message: string, kind: Kind = "success") => {
    const id = ++nextId
    setItems((all) => [...all.slice(-2), { id, message, kind }])
    window.setTimeout(() => dismiss(id), kind === "error" ? 10_000 : 5_000)
  }, [dismiss])
  const value = useMemo(() => ({ show }), [show])
  return (
    <Context.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {items.map((i) => (
          <div key={i.id} className={`toast toast--${i.kind}`}>
            <span>{i.message}</span>
            <button type="button" className="toast__close" onClick={() => dismiss(i.id)} aria-label="Dismiss">×</button>
          </div>
        ))}
      </div>
    </Context.Provider>
  )
}
