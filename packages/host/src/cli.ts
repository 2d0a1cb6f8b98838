/**
 * The `image-policy` command. The HTTP service is not built yet (see the open host issue): until it
 * is, every command prints the versions of the packages and says so, instead of pretending to serve.
 */
import { version } from "@image-policy/core"

const command = process.argv[2] ?? "serve"
console.log(`image-policy ${version} (core ${version})`)
console.log(
  `'${command}': the HTTP host is not implemented yet; this build ships the policy core and the stores ` +
    "(see README.md, section 'The two commands')."
)
