/**
 * Debian's Chromium driven by playwright-core (STACK.md): no download, no network beyond loopback,
 * HOME and TMPDIR inside the run's own folder. `newPage(viewport)` opens a page in a fresh context
 * (own cookies; what AxeBuilder needs).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

export const chromiumPath = "/usr/lib/chromium/chromium"

export const desktop = { width: 1280, height: 800 } as const
export const phone = { width: 390, height: 844 } as const
export type Viewport = { readonly width: number; readonly height: number }

export interface TestBrowser {
  readonly browser: Browser
  /** A page in a new context of its own (cookies, storage) at `viewport` (default 1280x800). */
  readonly newPage: (viewport?: Viewport) => Promise<Page>
  readonly close: () => Promise<void>
}

export const launchBrowser = async (): Promise<TestBrowser> => {
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y chromium (.ci/run does)`)
  const home = mkdtempSync(join(tmpdir(), "console-browser-"))
  mkdirSync(join(home, "tmp"))
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
    ],
    env: { ...process.env, HOME: home, TMPDIR: join(home, "tmp") }
  })
  const contexts: Array<BrowserContext> = []
  return {
    browser,
    newPage: async (viewport = desktop) => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1 })
      contexts.push(context)
      const page = await context.newPage()
      // what went wrong inside the page shows in the test's output
      page.on("pageerror", (error) => console.error(`[page error] ${error.message}`))
      page.on("console", (message) => {
        if (message.type() === "error") console.error(`[console.error] ${message.text()}`)
      })
      return page
    },
    close: async () => {
      await browser.close()
      rmSync(home, { recursive: true, force: true })
    }
  }
}
