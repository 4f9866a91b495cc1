/** First-start account: BOOTSTRAP_API_KEY gets a default account; an empty store without it gets one printed once. */
import type { Logger } from "./log.ts";
import type { Store } from "./store/types.ts";

export function bootstrapAccount(store: Store, bootstrapKey: string | null, log: Logger, print: (line: string) => void = console.log): void {
  if (bootstrapKey) {
    if (store.findKeyBySecret(bootstrapKey)) return;
    const account = store.createAccount({ name: "default" });
    store.createKey({ accountId: account.id, name: "bootstrap", secret: bootstrapKey });
    log.info("bootstrap account created for BOOTSTRAP_API_KEY", { account_id: account.id });
    return;
  }
  if (store.listAccounts().length > 0) return;
  const account = store.createAccount({ name: "default" });
  const { secret } = store.createKey({ accountId: account.id, name: "bootstrap" });
  log.info("bootstrap account created", { account_id: account.id });
  print(`\nAPI key of the default account (shown once, keep it): ${secret}\n`);
}
