import * as PgClient from "../src/storage/sql/PgClient.js"
import { migrated } from "../src/storage/StoreConfig.js"
import { storeContract } from "./storeContract.js"
import { pgDescribe } from "./support/postgres.js"

await pgDescribe("store", (url) => {
  storeContract("postgres", migrated(PgClient.layerFromUrl(url, { maxConnections: 8 })), { concurrency: true })
})
