/** @image-policy/adapters: storage, VCS, webhook transport and crypto adapters. */
export * as PgliteClient from "./storage/sql/PgliteClient.js"
export * as PgClient from "./storage/sql/PgClient.js"
export * as SecretBox from "./crypto/SecretBox.js"
export * as Ids from "./crypto/Ids.js"
export * as ApiKeyHash from "./crypto/ApiKeyHash.js"
