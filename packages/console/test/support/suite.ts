/** The console host and browser every end-to-end describe block starts the same way. */
import { afterAll, beforeAll } from "vitest"
import { launchBrowser, type TestBrowser } from "./browser.js"
import { type ConsoleHost, type ConsoleHostOptions, startConsoleHost } from "./host.js"

/**
 * A console host (with `options`) and a browser for the describe block this is called in: started
 * together before its tests and handed to `started`, closed after them. The block's own
 * `beforeAll`, registered after this, runs with both started.
 */
export const consoleSuite = (
  options: ConsoleHostOptions,
  started: (suite: { readonly host: ConsoleHost; readonly browser: TestBrowser }) => void
): void => {
  let host: ConsoleHost | undefined
  let browser: TestBrowser | undefined
  beforeAll(async () => {
    ;[host, browser] = await Promise.all([startConsoleHost(options), launchBrowser()])
    started({ host, browser })
  })
  afterAll(async () => {
    await browser?.close()
    await host?.stop()
  })
}
