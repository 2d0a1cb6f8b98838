#!/usr/bin/env node
// The CLI lives in the built host package (npm install builds it through the root `prepare` script).
import("../dist/cli.js").catch((error) => {
  if (error && error.code === "ERR_MODULE_NOT_FOUND") {
    console.error("image-policy: the host is not built yet; run `npm install` (or `npm run build`) at the repository root")
    process.exit(1)
  }
  throw error
})
