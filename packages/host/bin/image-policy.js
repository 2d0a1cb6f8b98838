#!/usr/bin/env node
// The CLI lives in the built host package (npm install builds it through the root `prepare` script).
// `check` (the CI policy check) starts from an entry of its own, dist/check/main.js, which loads
// only what it needs (scanner, resolver, report writers): the same command, flags, help, messages
// and exit codes as in dist/cli.js, which loads the whole host and runs every other command.
import { existsSync } from "node:fs"

/**
 * The entry for these arguments: check/main.js when the command is `check`, dist/cli.js for
 * anything else. `--log-level` and `--log-format` may stand before the command (both entries read
 * them first, with their value). `--completions` and `--wizard` describe the whole command tree, so
 * they go to the entry that has it.
 */
const entryOf = (args) => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === "--log-level" || arg === "--log-format") i++
    else if (!arg.startsWith("--log-level=") && !arg.startsWith("--log-format=")) {
      const whole = args.some((a) => /^--(completions|wizard)(=|$)/.test(a))
      return arg === "check" && !whole ? "../dist/check/main.js" : "../dist/cli.js"
    }
  }
  return "../dist/cli.js"
}

const entry = new URL(entryOf(process.argv.slice(2)), import.meta.url)
if (!existsSync(entry)) {
  console.error("image-policy: the host is not built yet; run `npm install` (or `npm run build`) at the repository root")
  process.exit(1)
}
// any other failure to load (a dependency missing from an installation) is reported as it is
await import(entry.href)
