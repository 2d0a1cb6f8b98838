/** What the console's end-to-end suites use (see each module). */
export { axeCheck } from "./axe.js"
export { desktop, launchBrowser, phone, type TestBrowser, type Viewport } from "./browser.js"
export { distDir, ensureConsoleBuilt } from "./build.js"
export { apiKeys, type ConsoleHost, consoleSeed, startConsoleHost, users } from "./host.js"
export { type Receiver, startReceiver } from "./receiver.js"
export { artifactsDir, screenshot, screenshots } from "./screenshot.js"
export { signIn } from "./signIn.js"
export { consoleSuite } from "./suite.js"
