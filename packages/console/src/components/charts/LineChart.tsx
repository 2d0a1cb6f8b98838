/**
 * A line chart over days as inline SVG (no chart library: a page chunk stays small), with the same
 * numbers as a table for screen readers and anyone who prefers reading them ("Show the numbers").
 * Colors come from CSS classes (`chart__line--N`), so the strict CSP needs no inline style.
 */
import { useId } from "react"

export interface Series {
  readonly name: string
  /** One value per entry of `days`, in the same order. */
  readonly values: ReadonlyArray<number>
}

export interface LineChartProps {
  readonly title: string
  readonly description?: string
  /** `YYYY-MM-DD`, oldest first. */
  readonly days: ReadonlyArray<string>
  readonly series: ReadonlyArray<Series>
}

// a small drawing scaled to the card: its labels stay legible on a phone
const width = 420
const height = 180
const pad = { top: 10, right: 12, bottom: 24, left: 32 }

/** 0, a round step, ..., at least `max` (4 or 5 ticks). */
export const ticks = (max: number): ReadonlyArray<number> => {
  if (max <= 0) return [0, 1]
  const rough = max / 4
  const magnitude = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough
  const out: Array<number> = []
  for (let v = 0; v < max + step; v += step) out.push(Math.round(v))
  return out
}

const shortDay = (day: string) => {
  const date = new Date(`${day}T00:00:00Z`)
  return Number.isNaN(date.getTime()) ? day : date.toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" })
}

export function LineChart({ title, description, days, series }: LineChartProps) {
  const id = useId()
  const max = Math.max(0, ...series.flatMap((s) => s.values))
  const yTicks = ticks(max)
  const top = yTicks[yTicks.length - 1]!
  const plotW = width - pad.left - pad.right
  const plotH = height - pad.top - pad.bottom
  const x = (i: number) => pad.left + (days.length <= 1 ? plotW / 2 : (i * plotW) / (days.length - 1))
  const y = (v: number) => pad.top + plotH - (v / top) * plotH
  const labelEvery = Math.max(1, Math.ceil(days.length / 6))
  const latest = series.map((s) => `${s.name} ${s.values[s.values.length - 1] ?? 0}`).join(", ")
  return (
    <figure className="chart" aria-labelledby={`${id}-title`}>
      <figcaption className="chart__caption">
        <span id={`${id}-title`} className="chart__title">{title}</span>
        {description !== undefined ? <span className="chart__description">{description}</span> : null}
      </figcaption>
      <ul className="chart__legend" aria-hidden="true">
        {series.map((s, i) => (
          <li key={s.name}>
            <span className={`chart__swatch chart__swatch--${i + 1}`} />
            {s.name}
          </li>
        ))}
      </ul>
      <svg
        className="chart__svg"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${title}: ${days.length} days from ${days[0] ?? "-"} to ${
          days[days.length - 1] ?? "-"
        }; latest ${latest}. The table below has every value.`}
      >
        {yTicks.map((t) => (
          <g key={t}>
            <line className="chart__grid" x1={pad.left} x2={width - pad.right} y1={y(t)} y2={y(t)} />
            <text className="chart__axis" x={pad.left - 6} y={y(t) + 4} textAnchor="end">{t}</text>
          </g>
        ))}
        {days.map((d, i) =>
          i % labelEvery === 0 || i === days.length - 1
            ? <text key={d} className="chart__axis" x={x(i)} y={height - 8} textAnchor="middle">{shortDay(d)}</text>
            : null
        )}
        {series.map((s, si) => (
          <g key={s.name} className={`chart__line chart__line--${si + 1}`}>
            {s.values.length > 1 ? <polyline points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ")} /> : null}
            {s.values.map((v, i) => <circle key={days[i]} cx={x(i)} cy={y(v)} r={s.values.length > 40 ? 1.5 : 3} />)}
          </g>
        ))}
      </svg>
      <details className="chart__data">
        <summary>Show the numbers</summary>
        <div className="table-wrap">
          <table className="table-plain">
            <caption className="visually-hidden">{title}, by day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => <th key={s.name} scope="col" className="cell--numeric">{s.name}</th>)}
              </tr>
            </thead>
            <tbody>
              {days.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{d}</th>
                  {series.map((s) => <td key={s.name} className="cell--numeric">{s.values[i] ?? 0}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
