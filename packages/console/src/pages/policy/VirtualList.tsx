/**
 * A long list (thousands of mappings) that stays responsive: a filter box, a count of what is
 * shown (announced politely), and a scrolling region that renders only the rows in view
 * (`@tanstack/react-virtual`). Rows are list items carrying their position in the whole list
 * (`aria-posinset`/`aria-setsize`), so a screen reader still says "12 of 2,000".
 */
import { useVirtualizer } from "@tanstack/react-virtual"
import { type ReactNode, useDeferredValue, useId, useMemo, useRef, useState } from "react"

export interface VirtualListProps<A> {
  /** Names the scrolling region and the filter ("Draft mappings of Curated"). */
  readonly label: string
  readonly items: ReadonlyArray<A>
  readonly itemKey: (item: A) => string
  /** Lower-case text the filter matches (a substring, case-insensitive). */
  readonly itemText: (item: A) => string
  readonly renderItem: (item: A) => ReactNode
  /** Shown instead of the list when there are no items at all. */
  readonly empty?: ReactNode
  /** Words for the count: ["mapping", "mappings"]. */
  readonly noun?: readonly [string, string]
  /** A starting guess of one row's height in pixels (rows are measured once rendered). */
  readonly estimateSize?: number
  /** A class for the rows (`li`). */
  readonly rowClassName?: string
}

export function VirtualList<A>(props: VirtualListProps<A>) {
  const { label, items, itemKey, itemText, renderItem, empty, noun = ["item", "items"], estimateSize = 72, rowClassName } = props
  const id = useId()
  const [filter, setFilter] = useState("")
  const deferred = useDeferredValue(filter)
  const needle = deferred.trim().toLowerCase()
  const shown = useMemo(() => needle === "" ? items : items.filter((i) => itemText(i).includes(needle)), [items, needle, itemText])
  const scrollRef = useRef<HTMLDivElement>(null)
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimateSize,
    overscan: 6,
    getItemKey: (index) => itemKey(shown[index]!)
  })
  if (items.length === 0 && empty !== undefined) return <>{empty}</>
  const word = (n: number) => (n === 1 ? noun[0] : noun[1])
  return (
    <div className="vlist">
      <div className="vlist__bar">
        <label htmlFor={`${id}-filter`} className="vlist__filter-label">Filter {noun[1]}</label>
        <input
          id={`${id}-filter`}
          className="input vlist__filter"
          type="search"
          value={filter}
          placeholder="Image, platform or reason"
          onChange={(e) => setFilter(e.target.value)}
          aria-controls={`${id}-region`}
        />
        <p className="vlist__count" role="status" aria-live="polite">
          {needle === ""
            ? `${items.length.toLocaleString()} ${word(items.length)}`
            : `${shown.length.toLocaleString()} of ${items.length.toLocaleString()} ${word(items.length)} match`}
        </p>
      </div>
      {shown.length === 0
        ? <p className="vlist__none">No {noun[1]} match “{deferred.trim()}”.</p>
        : (
          <div
            ref={scrollRef}
            id={`${id}-region`}
            className="vlist__scroll"
            role="region"
            aria-label={`${label}: scrollable list`}
            tabIndex={0}
          >
            <ul className="vlist__items" style={{ height: virtualizer.getTotalSize() }}>
              {virtualizer.getVirtualItems().map((row) => {
                const item = shown[row.index]!
                return (
                  <li
                    key={row.key}
                    data-index={row.index}
                    ref={virtualizer.measureElement}
                    className={rowClassName === undefined ? "vlist__row" : `vlist__row ${rowClassName}`}
                    style={{ transform: `translateY(${row.start}px)` }}
                    aria-setsize={shown.length}
                    aria-posinset={row.index + 1}
                  >
                    {renderItem(item)}
                  </li>
                )
              })}
            </ul>
          </div>
        )}
    </div>
  )
}
