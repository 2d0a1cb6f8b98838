/** Lines of a chart over the history's days, built from per-day entries (policy groups, teams). */
import type { Series } from "./LineChart.js"

// a chart stays readable with a few lines: the largest series by name, the rest summed as one
const maxLines = 4

/**
 * One line per policy group (or team) over the days of the history: the `maxLines` with the most
 * findings out of policy over the range, then "Others" summing the rest. A group absent on a day
 * (created later) counts 0 there; its latest name labels the line.
 */
export const seriesOf = <E extends { readonly name: string; readonly outOfPolicyFindings: number }>(
  points: ReadonlyArray<{ readonly day: string }>,
  entries: (point: number) => ReadonlyArray<E>,
  keyOf: (entry: E) => string
): Array<Series> => {
  const byKey = new Map<string, { name: string; values: Array<number>; total: number }>()
  points.forEach((_, i) => {
    for (const entry of entries(i)) {
      const key = keyOf(entry)
      const line = byKey.get(key) ?? { name: entry.name, values: points.map(() => 0), total: 0 }
      line.name = entry.name
      line.values[i] = entry.outOfPolicyFindings
      line.total += entry.outOfPolicyFindings
      byKey.set(key, line)
    }
  })
  const lines = [...byKey.values()].sort((a, b) => b.total - a.total || a.name.localeCompare(b.name))
  const shown = lines.length <= maxLines + 1 ? lines : lines.slice(0, maxLines)
  const rest = lines.slice(shown.length)
  const series: Array<Series> = shown.map((l) => ({ name: l.name, values: l.values }))
  if (rest.length > 0) {
    series.push({ name: `${rest.length} others`, values: points.map((_, i) => rest.reduce((sum, l) => sum + l.values[i]!, 0)) })
  }
  return series
}
