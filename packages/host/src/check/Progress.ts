/**
 * The progress line of `check` on stderr: `checking 1,200/5,000 files`, redrawn in place, only on a
 * terminal and only while more than a second of work remains by the rate so far. Piped or
 * redirected output never gets it, so CI logs and `--format json 2>&1` stay clean.
 */

export interface ProgressStream {
  readonly isTTY?: boolean | undefined
  readonly write: (text: string) => unknown
}

export interface Progress {
  /** One more file done. */
  readonly advance: () => void
  /** The work is over: the line is erased if it was drawn. */
  readonly end: () => void
}

/** How long the rate so far needs before it is trusted, and how often the line is redrawn (ms). */
const settleMs = 200
const redrawMs = 100

/** The work left at the rate so far (ms); unknown (Infinity) before anything is done. */
export const remainingMs = (elapsedMs: number, done: number, total: number): number =>
  done === 0 ? Number.POSITIVE_INFINITY : (elapsedMs / done) * (total - done)

const count = (n: number) => n.toLocaleString("en-US")

export const make = (total: number, stream: ProgressStream, now: () => number): Progress => {
  if (stream.isTTY !== true) return { advance: () => {}, end: () => {} }
  const started = now()
  let done = 0
  let drawnAt: number | undefined
  return {
    advance: () => {
      done++
      const at = now()
      const elapsed = at - started
      if (elapsed < settleMs || (drawnAt !== undefined && at - drawnAt < redrawMs)) return
      if (remainingMs(elapsed, done, total) <= 1000 && drawnAt === undefined) return
      drawnAt = at
      // \r and erase-line: the line is redrawn where it stands
      stream.write(`\r\u001b[2Kchecking ${count(done)}/${count(total)} files`)
    },
    end: () => {
      if (drawnAt !== undefined) stream.write("\r\u001b[2K")
    }
  }
}
