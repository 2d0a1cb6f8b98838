import * as MemoryStore from "../src/storage/memory/MemoryStore.js"
import { storeContract } from "./storeContract.js"

storeContract("memory", MemoryStore.layer, { concurrency: true })
