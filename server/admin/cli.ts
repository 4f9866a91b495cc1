/**
 * `bun run admin -- <command>`: operator CLI over the admin API.
 * Environment: ADMIN_URL (default http://localhost:$PORT or 8080), ADMIN_TOKEN.
 */
import { createTRPCClient, httpLink } from "@trpc/client";
import { parseArgs } from "node:util";
import type { AdminRouter } from "./router.ts";

const usage = `usage: bun run admin -- <command> [options]

commands:
  accounts create --name NAME [plan options]
  accounts list
  keys create --account ID [--name NAME] [--scopes s1,s2] [--cidr CIDR]...
  keys list --account ID
  keys revoke --key KEY_ID
  plan set --account ID [plan options]

plan options:
  --max-concurrent N     concurrent open sessions
  --max-duration S       maximum session duration in seconds
  --credits S            seconds of audio left ("unlimited" for none)
  --record true|false    whether sessions are recorded (FLAC)

scopes: sessions:write sessions:read sessions:delete recordings:read callbacks:write
environment: ADMIN_URL (default http://localhost:8080), ADMIN_TOKEN (required)`;

export async function runAdminCli(argv: string[], env = process.env, out = (s: string) => console.log(s)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      account: { type: "string" },
      key: { type: "string" },
      scopes: { type: "string" },
      cidr: { type: "string", multiple: true },
      "max-concurrent": { type: "string" },
      "max-duration": { type: "string" },
      credits: { type: "string" },
      record: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [group, action] = positionals;
  if (values.help || !group) {
    out(usage);
    return values.help ? 0 : 2;
  }
  const token = env.ADMIN_TOKEN;
  if (!token) throw new Error("ADMIN_TOKEN is not set");
  const url = (env.ADMIN_URL ?? `http://localhost:${env.PORT ?? 8080}`).replace(/\/+$/, "") + "/admin/trpc";
  const client = createTRPCClient<AdminRouter>({ links: [httpLink({ url, headers: { authorization: `Bearer ${token}` } })] });

  const int = (v: string | undefined, flag: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`${flag} must be a number`);
    return n;
  };
  const plan = () => {
    const p: Record<string, unknown> = {};
    if (values["max-concurrent"] !== undefined) p.maxConcurrentSessions = int(values["max-concurrent"], "--max-concurrent");
    if (values["max-duration"] !== undefined) p.maxSessionDurationS = int(values["max-duration"], "--max-duration");
    if (values.credits !== undefined) p.creditsSeconds = values.credits === "unlimited" ? null : int(values.credits, "--credits");
    if (values.record !== undefined) p.recordAudio = values.record === "true";
    return p;
  };
  const need = (v: string | undefined, flag: string) => {
    if (!v) throw new Error(`${flag} is required`);
    return v;
  };
  const print = (v: unknown) => out(JSON.stringify(v, null, 2));
  const scopeList = (v: string) => {
    const list = v.split(",").map((s) => s.trim()).filter(Boolean);
    if (list.length === 0) throw new Error("--scopes must name at least one scope (omit it for every scope)");
    return list;
  };

  switch (`${group} ${action ?? ""}`.trim()) {
    case "accounts create":
      print(await client.accountsCreate.mutate({ name: need(values.name, "--name"), plan: plan() }));
      return 0;
    case "accounts list":
      print(await client.accountsList.query());
      return 0;
    case "keys create":
      print(
        await client.keysCreate.mutate({
          accountId: need(values.account, "--account"),
          name: values.name,
          scopes: values.scopes === undefined ? undefined : (scopeList(values.scopes) as any),
          allowedCidrs: values.cidr,
        }),
      );
      return 0;
    case "keys list":
      print(await client.keysList.query({ accountId: need(values.account, "--account") }));
      return 0;
    case "keys revoke":
      print(await client.keysRevoke.mutate({ keyId: need(values.key, "--key") }));
      return 0;
    case "plan set":
      print(await client.planSet.mutate({ accountId: need(values.account, "--account"), ...plan() }));
      return 0;
    default:
      out(usage);
      return 2;
  }
}

if (import.meta.main) {
  runAdminCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(`admin: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
