/**
 * `image-policy check` on its own: the entry bin/image-policy.js starts when the command is
 * `check`, so a CI job does not load what only the service needs (HTTP API, stores, PGlite,
 * workers, the console). The same command as in cli.ts (CheckCommand.command under
 * CommandLine.root), with the same global flags, help, messages and exit codes; the decision API's
 * client is loaded only for `--server` (Decider.ts).
 */
import { version } from "@image-policy/core"
import * as Command from "effect/cli/Command"
import * as CommandLine from "../runtime/CommandLine.js"
import * as CheckCommand from "./CheckCommand.js"

// `--log-format` and `--log-level` first, as cli.ts does: a wrong one ends the process here (exit 2)
const invocation = CommandLine.read(process.argv.slice(2))

CommandLine.run(Command.runWith(CommandLine.root([CheckCommand.command]), { version })(invocation.args))
