/**
 * A form that never loses what was typed: values live in `useForm` state, untouched by a failed
 * submit. On failure the problem's `detail` shows above the fields and focus moves to the first
 * field in error (or to the message), so keyboard and screen reader users land on what to fix.
 *
 * ```tsx
 * const form = useForm({ name: "", expiresInDays: "90" })
 * const create = useMutation((api, orgId, v: typeof form.values) => api.apiKeys.createApiKey({ ... }))
 * <Form onSubmit={() => create.run(form.values)} error={create.error} pending={create.pending} submitLabel="Create key">
 *   <Field label="Name" required {...form.input("name")} error={create.error?.fieldErrors.name} />
 * </Form>
 * ```
 */
import { type ChangeEvent, type FormEvent, type ReactNode, useCallback, useRef, useState } from "react"
import type { ApiError } from "../problem.js"

export function useForm<V extends Record<string, string | boolean>>(initial: V) {
  const [values, setValues] = useState<V>(initial)
  const set = useCallback(<K extends keyof V>(key: K, value: V[K]) => setValues((v) => ({ ...v, [key]: value })), [])
  /** `value`/`onChange`/`name` of a text input bound to `key`. */
  const input = <K extends keyof V & string>(key: K) => ({
    name: key,
    value: String(values[key]),
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => set(key, e.target.value as V[K])
  })
  /** `checked`/`onChange`/`name` of a checkbox bound to `key`. */
  const checkbox = <K extends keyof V & string>(key: K) => ({
    name: key,
    type: "checkbox" as const,
    checked: values[key] === true,
    onChange: (e: ChangeEvent<HTMLInputElement>) => set(key, e.target.checked as V[K])
  })
  const reset = useCallback(() => setValues(initial), [initial])
  return { values, set, input, checkbox, reset, setValues }
}

export interface FormProps {
  /** Resolves with `{ ok }` (a mutation's outcome); the values stay as typed when it fails. */
  readonly onSubmit: () => Promise<{ readonly ok: boolean }> | void
  readonly error?: ApiError | undefined
  readonly pending?: boolean
  readonly submitLabel: string
  readonly children: ReactNode
  /** Extra buttons beside submit (Cancel). */
  readonly actions?: ReactNode
  readonly "aria-label"?: string
  readonly className?: string
}

export function Form({ onSubmit, error, pending = false, submitLabel, children, actions, className, ...rest }: FormProps) {
  const ref = useRef<HTMLFormElement>(null)
  const messageRef = useRef<HTMLDivElement>(null)
  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (pending) return
    const outcome = await onSubmit()
    if (outcome !== undefined && !outcome.ok) {
      // after React has rendered the errors
      requestAnimationFrame(() => {
        const invalid = ref.current?.querySelector<HTMLElement>("[aria-invalid='true']")
        ;(invalid ?? messageRef.current)?.focus()
      })
    }
  }
  const hasFieldErrors = error !== undefined && Object.keys(error.fieldErrors).length > 0
  return (
    <form ref={ref} className={className ?? "form"} onSubmit={submit} noValidate aria-label={rest["aria-label"]}>
      <div ref={messageRef} tabIndex={-1} className="form__message">
        {error !== undefined
          ? (
            <div className="alert alert--error" role="alert">
              <p>{error.detail}</p>
              {hasFieldErrors ? <p className="alert__more">Check the highlighted fields.</p> : null}
            </div>
          )
          : null}
      </div>
      {children}
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={pending} aria-disabled={pending}>
          {pending ? `${submitLabel}…` : submitLabel}
        </button>
        {actions}
      </div>
    </form>
  )
}
