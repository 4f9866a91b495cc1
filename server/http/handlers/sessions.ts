/** GET /v2/live, GET /v2/live/{id}, DELETE /v2/live/{id}. */
import { rm } from "node:fs/promises";
import type { LiveSessionList } from "../../../generated/openapi/types.gen.ts";
import { settleExpiry } from "../../session-records/expiry.ts";
import { isRunning } from "../../session-records/limits.ts";
import { presentSession } from "../../session-records/presenter.ts";
import type { SessionListQuery, SessionRecord } from "../../store/types.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import { operationById } from "../../../generated/operations.ts";
import { queryDefaults } from "../contract.ts";
import type { Handler, HandlerContext, QueryOf } from "../handler.ts";
import { jsonDepthExceeded, MAX_JSON_DEPTH } from "../json-depth.ts";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's session, its URL expiry settled; 404 for an unknown id or another account's. */
export async function ownSession(ctx: HandlerContext<"getLiveSession" | "deleteLiveSession" | "getLiveSessionRecording">): Promise<SessionRecord> {
  const id = ctx.params.id ?? "";
  const found = uuid.test(id) ? await ctx.deps.store.getSession(ctx.principal.account.id, id.toLowerCase()) : null;
  if (!found) throw notFound();
  return settleExpiry(ctx.deps.store, found, ctx.deps.clock.now());
}

const listDefaults = queryDefaults(operationById("listLiveSessions")) as Required<Pick<QueryOf<"listLiveSessions">, "limit" | "offset">>;

/**
 * The listing query. `custom_metadata` comes in two forms (the contract's parameter description): the
 * deepObject form, read by the contract (`values.custom_metadata`), and the JSON form, a JSON object in
 * the plain parameter (`custom_metadata={...}`), read here from the query string.
 */
function listQuery(values: QueryOf<"listLiveSessions">, search: URLSearchParams): { query: SessionListQuery; errors: string[] } {
  const errors: string[] = [];
  const query: SessionListQuery = { limit: values.limit ?? listDefaults.limit, offset: values.offset ?? listDefaults.offset };
  if (typeof values.cursor === "string") {
    const c = decodeCursor(values.cursor);
    if (c) query.before = c;
    else errors.push("cursor: is not a cursor returned in `next`");
  }
  if (typeof values.date === "string") {
    query.createdFrom = Date.parse(`${values.date}T00:00:00Z`);
    query.createdTo = query.createdFrom + 86_400_000;
  }
  if (typeof values.after_date === "string") query.after = Date.parse(values.after_date);
  if (typeof values.before_date === "string") query.beforeDate = Date.parse(values.before_date);
  if (Array.isArray(values.status)) query.statuses = values.status;
  const metadata: Record<string, unknown> = {};
  const json = search.getAll("custom_metadata");
  if (json.length > 1) errors.push("custom_metadata: the JSON form must be given once");
  else if (json.length === 1) {
    try {
      if (jsonDepthExceeded(json[0]!) !== null) throw new Error();
      const parsed = JSON.parse(json[0]!);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
      Object.assign(metadata, parsed);
    } catch {
      errors.push(`custom_metadata: must be a JSON object nested at most ${MAX_JSON_DEPTH} levels, or use custom_metadata[<key>]=<value>`);
    }
  }
  if (values.custom_metadata) Object.assign(metadata, values.custom_metadata);
  const badKeys = Object.keys(metadata).filter((k) => k.includes("\0") || !k.isWellFormed());
  if (badKeys.length) errors.push("custom_metadata: keys must not contain NUL characters or unpaired surrogates");
  else if (Object.keys(metadata).length) query.customMetadata = metadata;
  return { query, errors };
}

export const listLiveSessions: Handler<"listLiveSessions"> = async (ctx) => {
  const { values, errors } = ctx.query();
  const parsed = listQuery(values, ctx.info.url.searchParams);
  if (errors.length || parsed.errors.length) throw badRequest([...errors, ...parsed.errors]);
  const { store, clock, config } = ctx.deps;
  const now = clock.now();
  const records = await store.listSessions(ctx.principal.account.id, { ...parsed.query, limit: parsed.query.limit + 1 });
  const hasMore = records.length > parsed.query.limit;
  const page = await Promise.all(records.slice(0, parsed.query.limit).map((r) => settleExpiry(store, r, now)));

  const publicUrl = (params: URLSearchParams) => {
    const qs = params.toString();
    return `${config.publicUrl}${ctx.info.path}${qs ? `?${qs}` : ""}`;
  };
  const base = new URLSearchParams(ctx.info.url.searchParams);
  base.delete("cursor");
  base.delete("offset");
  let next: string | null = null;
  if (hasMore) {
    const last = page[page.length - 1]!;
    const p = new URLSearchParams(base);
    p.set("cursor", encodeCursor({ createdAt: last.createdAt, seq: last.seq }));
    next = publicUrl(p);
  }
  const body: LiveSessionList = {
    first: publicUrl(base),
    current: publicUrl(ctx.info.url.searchParams),
    next,
    items: page.map(presentSession),
  };
  return ctx.reply(200, body);
};

export const getLiveSession: Handler<"getLiveSession"> = async (ctx) => ctx.reply(200, presentSession(await ownSession(ctx)));

export const deleteLiveSession: Handler<"deleteLiveSession"> = async (ctx) => {
  const session = await ownSession(ctx);
  if (isRunning(session.status)) throw new ApiError(403, "the session is still running; end it before deleting it", "session_running");
  await ctx.deps.store.deleteSession(session.id);
  if (session.recordingPath) await rm(session.recordingPath, { force: true });
  ctx.deps.log.info("session deleted", { request_id: ctx.info.requestId, session_id: session.id });
  return new Response(null, { status: 202 });
};
