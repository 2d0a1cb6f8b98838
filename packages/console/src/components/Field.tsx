/**
 * A labelled form field whose hint and error are bound to the control by `aria-describedby`
 * (and `aria-invalid` when in error), so a screen reader reads them with the field.
 *
 * `<Field label="Name" error={fieldErrors.name} value={v.name} onChange={(e) => set("name", e.target.value)} />`
 * renders an `<input>`; for a select or textarea pass a render function:
 * `<Field label="Role" error={...}>{(control) => <select {...control} value=…>…</select>}</Field>`.
 */
import { type InputHTMLAttributes, type ReactNode, useId } from "react"

export interface ControlProps {
  readonly id: string
  readonly "aria-describedby"?: string
  readonly "aria-invalid"?: true
}

export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "children" | "id"> {
  readonly label: string
  readonly hint?: ReactNode
  readonly error?: string | undefined
  readonly children?: (control: ControlProps) => ReactNode
}

export function Field({ label, hint, error, children, required, ...input }: FieldProps) {
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = [hint !== undefined ? hintId : undefined, error !== undefined ? errorId : undefined].filter(Boolean).join(" ")
  const control: ControlProps = {
    id,
    ...(describedBy !== "" ? { "aria-describedby": describedBy } : {}),
    ...(error !== undefined ? { "aria-invalid": true as const } : {})
  }
  return (
    <div className={error !== undefined ? "field field--invalid" : "field"}>
      <label htmlFor={id} className="field__label">
        {label}
        {required === true ? <span className="field__required" aria-hidden="true">*</span> : null}
      </label>
      {hint !== undefined ? <p id={hintId} className="field__hint">{hint}</p> : null}
      {children !== undefined ? children(control) : <input className="input" required={required} {...input} {...control} />}
      {error !== undefined ? <p id={errorId} className="field__error">{error}</p> : null}
    </div>
  )
}
