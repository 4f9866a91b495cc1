/**
 * First-start account: BOOTSTRAP_API_KEY gets a default account; an empty store without it gets one
 * printed once. Gateways sharing a store may start together: the account of BOOTSTRAP_API_KEY has an id
 * derived from the key's hash, so concurrent bootstraps converge on one account and one key.
 */
import { createHash } from "node:crypto";
import type { Logger } from "./log.ts";
import type { Store } from "./store/types.ts";

/** A stable UUID-shaped id for the bootstrap account of a key. */
function bootstrapAccountId(key: string): string {
  const h = createHash("sha256").update("bootstrap-account:" + key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function bootstrapAccount(store: Store, bootstrapKey: string | null, log: Logger, print: (line: string) => void = console.log): Promise<void> {
  if (bootstrapKey) {
    if (await store.findKeyBySecret(bootstrapKey)) return;
    const id = bootstrapAccountId(bootstrapKey);
    // Each step tolerates another gateway doing the same step at the same moment: a failure counts
    // only when what the step was to create is still missing afterwards.
    if (!(await store.getAccount(id))) {
      try {
        await store.createAccount({ id, name: "default" });
      } catch (e) {
        if (!(await store.getAccount(id))) throw e;
      }
    }
    try {
      await store.createKey({ accountId: id, name: "bootstrap", secret: bootstrapKey });
      log.info("bootstrap account created for BOOTSTRAP_API_KEY", { account_id: id });
    } catch (e) {
      if (!(await store.findKeyBySecret(bootstrapKey))) throw e;
    }
    return;
  }
  if ((await store.listAccounts()).length > 0) return;
  const account = await store.createAccount({ name: "default" });
  const { secret } = await store.createKey({ accountId: account.id, name: "bootstrap" });
  log.info("bootstrap account created", { account_id: account.id });
  print(`\nAPI key of the default account (shown once, keep it): ${secret}\n`);
}
