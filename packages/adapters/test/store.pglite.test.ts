import { afterAll } from "vitest"
import * as PgliteClient from "../src/storage/sql/PgliteClient.js"
import { migrated } from "../src/storage/StoreConfig.js"
import { storeContract } from "./storeContract.js"
import { freshPglite } from "./support/pglite.js"

// one in-memory PGlite for the file: creating one costs seconds (STACK.md trap 6)
const pglite = await freshPglite()
afterAll(() => pglite.close())

storeContract("pglite", migrated(PgliteClient.layerFromInstance(pglite)), { concurrency: true })
