/**
 * Horizontal bars as a real list of links (one row per policy group or team): readable and
 * navigable without the picture, the bar itself an inline SVG rect sized by value (no inline style).
 */
import { Link } from "wouter"

export interface Bar {
  readonly key: string
  readonly label: string
  readonly value: number
  /** Where the row leads (the list behind the number). */
  readonly href?: string
  /** Extra words after the value for screen readers and the eye ("of 12 branches scanned"). */
  readonly detail?: string
}

export function BarList({ title, unit, bars, empty }: {
  readonly title: string
  readonly unit: string
  readonly bars: ReadonlyArray<Bar>
  readonly empty: string
}) {
  const max = Math.max(1, ...bars.map((b) => b.value))
  return (
    <section className="barlist" aria-label={title}>
      <h3 className="barlist__title">{title}</h3>
      {bars.length === 0 ? <p className="muted">{empty}</p> : (
        <ul className="barlist__rows">
          {bars.map((b) => (
            <li key={b.key} className="barlist__row">
              <span className="barlist__label">
                {b.href !== undefined ? <Link href={b.href}>{b.label}</Link> : b.label}
              </span>
              <svg className="barlist__bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                <rect className="barlist__track" x="0" y="0" width="100" height="10" rx="2" />
                <rect
                  className={b.value > 0 ? "barlist__fill" : "barlist__fill barlist__fill--zero"}
                  x="0"
                  y="0"
                  width={(b.value / max) * 100}
                  height="10"
                  rx="2"
                />
              </svg>
              <span className="barlist__value">
                {b.value}
                <span className="visually-hidden">{` ${unit}`}</span>
                {b.detail !== undefined ? <span className="barlist__detail">{b.detail}</span> : null}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
