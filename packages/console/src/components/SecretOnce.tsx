/**
 * A secret the server shows once (a new API key, a webhook signing secret): the value, a copy
 * button, and the warning that it cannot be shown again. `onDone` dismisses it for good.
 */
import { useId, useState } from "react"

export function SecretOnce({ label, secret, onDone }: { readonly label: string; readonly secret: string; readonly onDone: () => void }) {
  const id = useId()
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no")
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret)
      setCopied("yes")
    } catch {
      // no clipboard permission (http, old browser): select the text so Ctrl+C works
      const input = document.getElementById(id) as HTMLInputElement | null
      input?.select()
      setCopied("failed")
    }
  }
  return (
    <section className="secret" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="secret__title">{label}</h2>
      <p className="secret__warning">
        <strong>Copy it now.</strong> This secret is shown only once: it cannot be shown again.
      </p>
      <div className="secret__row">
        <label htmlFor={id} className="visually-hidden">{label}</label>
        <input id={id} className="input secret__value" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button button--primary" onClick={copy}>Copy</button>
      </div>
      <p className="secret__status" role="status" aria-live="polite">
        {copied === "yes" ? "Copied to the clipboard." : copied === "failed" ? "Copy failed: the text is selected, press Ctrl+C." : ""}
      </p>
      <button type="button" className="button" onClick={onDone}>I have copied it</button>
    </section>
  )
}
