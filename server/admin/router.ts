/**
 * The internal admin API (tRPC): accounts, keys and plans. Mounted under `/admin/trpc`, protected by
 * ADMIN_TOKEN, and absent from the public contract.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { z } from "zod";
import { assertCidr } from "../auth/authenticate.ts";
import { allScopes, type Scope, type Store } from "../store/types.ts";

export interface AdminContext {
  store: Store;
  authorized: boolean;
  now: () => number;
}

// Error bodies carry the code and message only: never a stack trace (tRPC adds one in development).
const t = initTRPC.context<AdminContext>().create({
  isDev: false,
  errorFormatter: ({ shape }) => ({ ...shape, data: { code: shape.data.code, httpStatus: shape.data.httpStatus } }),
});

const authed = t.procedure.use(({ ctx, next }) => {
  if (!ctx.authorized) throw new TRPCError({ code: "UNAUTHORIZED", message: "admin token missing or wrong" });
  return next();
});

const planInput = z
  .object({
    maxConcurrentSessions: z.number().int().min(0).optional(),
    maxSessionDurationS: z.number().int().min(1).optional(),
    creditsSeconds: z.number().nullable().optional(),
    recordAudio: z.boolean().optional(),
  })
  .strict();

const cidr = z.string().refine(
  (v) => {
    try {
      assertCidr(v);
      return true;
    } catch {
      return false;
    }
  },
  { message: "must be a CIDR range such as 10.0.0.0/8 or ::1/128" },
);

async function requireAccount(store: Store, id: string) {
  const account = await store.getAccount(id);
  if (!account) throw new TRPCError({ code: "NOT_FOUND", message: `no account ${id}` });
  return account;
}

const publicKey = (k: { id: string; accountId: string; name: string; prefix: string; scopes: string[]; allowedCidrs: string[]; createdAt: number; revokedAt: number | null }) => ({
  id: k.id,
  accountId: k.accountId,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  allowedCidrs: k.allowedCidrs,
  createdAt: new Date(k.createdAt).toISOString(),
  revokedAt: k.revokedAt == null ? null : new Date(k.revokedAt).toISOString(),
});

export const adminRouter = t.router({
  accountsCreate: authed
    .input(z.object({ name: z.string().min(1).max(200), plan: planInput.optional() }).strict())
    .mutation(({ ctx, input }) => ctx.store.createAccount({ name: input.name, plan: input.plan })),
  accountsList: authed.query(({ ctx }) => ctx.store.listAccounts()),
  keysCreate: authed
    .input(
      z
        .object({
          accountId: z.string(),
          name: z.string().min(1).max(200).optional(),
          // Absent means every scope; an empty list means none (a key that authenticates but may do nothing).
          scopes: z.array(z.enum(allScopes as [Scope, ...Scope[]])).optional(),
          allowedCidrs: z.array(cidr).optional(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      await requireAccount(ctx.store, input.accountId);
      const { record, secret } = await ctx.store.createKey(input);
      return { key: secret, record: publicKey(record) };
    }),
  keysList: authed
    .input(z.object({ accountId: z.string() }).strict())
    .query(async ({ ctx, input }) => {
      await requireAccount(ctx.store, input.accountId);
      return (await ctx.store.listKeys(input.accountId)).map(publicKey);
    }),
  keysRevoke: authed
    .input(z.object({ keyId: z.string() }).strict())
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.store.revokeKey(input.keyId, ctx.now()))) throw new TRPCError({ code: "NOT_FOUND", message: `no active key ${input.keyId}` });
      return { revoked: input.keyId };
    }),
  planSet: authed
    .input(z.object({ accountId: z.string() }).merge(planInput).strict())
    .mutation(async ({ ctx, input }) => {
      const { accountId, ...plan } = input;
      await requireAccount(ctx.store, accountId);
      return (await ctx.store.updatePlan(accountId, plan)).plan;
    }),
});

export type AdminRouter = typeof adminRouter;
