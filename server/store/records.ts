/** New account and API-key records, built the same way whichever store keeps them. */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { allScopes, defaultPlan, type Account, type ApiKeyRecord, type Plan, type Scope } from "./types.ts";

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Keys at least this long keep their first KEY_PREFIX_CHARS characters in the record, to be recognised in listings. */
const KEY_PREFIX_MIN_LENGTH = 32;
const KEY_PREFIX_CHARS = 8;

/** The part of a key kept in clear: none for short keys, whose first characters would give too much away. */
function keyPrefix(secret: string): string {
  return secret.length >= KEY_PREFIX_MIN_LENGTH ? secret.slice(0, KEY_PREFIX_CHARS) : "";
}

/** A new API key: a recognisable prefix and 24 random bytes. */
function newApiKey(): string {
  return "stt_" + randomBytes(24).toString("base64url");
}

export function newAccount(input: { name: string; plan?: Partial<Plan>; id?: string }): Account {
  return {
    id: input.id ?? randomUUID(),
    name: input.name,
    createdAt: Date.now(),
    plan: { ...defaultPlan, ...input.plan },
    callbackSecret: randomBytes(32).toString("hex"),
  };
}

/** A key record and its secret (given, or a new one); only the secret's hash is kept in the record. */
export function newKey(input: { accountId: string; name?: string; scopes?: Scope[]; allowedCidrs?: string[]; secret?: string }): { record: ApiKeyRecord; secret: string } {
  const secret = input.secret ?? newApiKey();
  const record: ApiKeyRecord = {
    id: randomUUID(),
    accountId: input.accountId,
    name: input.name ?? "default",
    prefix: keyPrefix(secret),
    hash: hashSecret(secret),
    scopes: input.scopes ? [...input.scopes] : [...allScopes],
    allowedCidrs: input.allowedCidrs ?? [],
    createdAt: Date.now(),
    revokedAt: null,
  };
  return { record, secret };
}
