/**
 * Values applied to options the init body omits (served by GET /v2/live/defaults), read from the
 * contracts' `default:` values, and the merge of a request with them: the options a session actually
 * runs with. No default is written here: change it in contracts/schemas and regenerate.
 */
import * as schemas from "../../generated/openapi/schemas.gen.ts";
import type { EndOfTurnDefaults, LanguageConfig, LatencyProfileSettings, LiveDefaults, LiveSessionInit, MessagesConfig } from "../../generated/openapi/types.gen.ts";
import { STREAMING_PROFILES, type StreamingProfile } from "../session/profiles.ts";

interface JsonSchema {
  default?: unknown;
  $ref?: string;
  properties?: Record<string, JsonSchema>;
}

const components = schemas as unknown as Record<string, JsonSchema>;

function resolve(ref: string): JsonSchema {
  const schema = components[`${ref.slice(ref.lastIndexOf("/") + 1)}Schema`];
  if (!schema) throw new Error(`contract default: unknown schema ${ref}`);
  return schema;
}

/**
 * The contract's default of a schema: its own `default:`, that of the schema it references, or for an
 * object, its members' defaults (members defaulting to null left out; undefined when none has one).
 */
function defaultOf(schema: JsonSchema | undefined): unknown {
  if (!schema) return undefined;
  if ("default" in schema) return schema.default;
  if (schema.$ref) return defaultOf(resolve(schema.$ref));
  if (!schema.properties) return undefined;
  const members = Object.entries(schema.properties)
    .map(([name, member]) => [name, defaultOf(member)] as const)
    .filter(([, value]) => value !== undefined && value !== null);
  return members.length > 0 ? Object.fromEntries(members) : undefined;
}

/**
 * Every member of LiveDefaults: the default the init body's member declares, else the one the
 * LiveDefaults member declares (e.g. `end_of_turn`, whose init members default to null).
 */
function contractDefaults(): LiveDefaults {
  const init = schemas.LiveSessionInitSchema.properties as Record<string, JsonSchema>;
  const own = schemas.LiveDefaultsSchema.properties as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(own)) {
    const fromInit = defaultOf(init[name]);
    const value = fromInit !== undefined ? fromInit : defaultOf(own[name]);
    if (value !== undefined) out[name] = value;
  }
  const missing = schemas.LiveDefaultsSchema.required.filter((name) => !(name in out));
  if (missing.length > 0) throw new Error(`contract defaults missing for: ${missing.join(", ")}`);
  return out as LiveDefaults;
}

const profileSettings = (p: StreamingProfile): LatencyProfileSettings => ({
  partial_interval_ms: p.partialIntervalMs,
  agreement: p.agreement,
  max_buffer_s: p.maxBufferS,
  final_beam_size: p.finalBeamSize,
  final_reuses_partial: p.reuseCoveringDecode,
  final_revises_committed: p.reviseCommitted,
  short_encoder_windows: p.lowLatencyDecodes,
  short_partial_windows: p.shortPartialWindows,
});

/** The contract's defaults, and what each latency profile sets (the streaming policy's own table). */
export const liveDefaults: LiveDefaults = {
  ...contractDefaults(),
  profiles: {
    low_latency: profileSettings(STREAMING_PROFILES.low_latency),
    balanced: profileSettings(STREAMING_PROFILES.balanced),
    accurate: profileSettings(STREAMING_PROFILES.accurate),
  },
};
export const endOfTurnDefaults = liveDefaults.end_of_turn as Required<EndOfTurnDefaults>;
export const messagesDefaults = liveDefaults.messages_config as Required<MessagesConfig>;
export const callbackMessagesDefaults = liveDefaults.callback_config as Required<MessagesConfig>;

/** Init members that always have a value once defaults are applied (scalars of LiveDefaults). */
type Defaulted =
  | "encoding"
  | "bit_depth"
  | "sample_rate"
  | "channels"
  | "model"
  | "profile"
  | "endpointing"
  | "maximum_duration_without_endpointing"
  | "callback"
  | "turn_router"
  | "numerals"
  | "punctuation"
  | "diarization";

/** The options a session runs with: the request, every omitted member filled from the defaults. */
export type AppliedOptions = Omit<LiveSessionInit, Defaulted | "end_of_turn" | "messages_config" | "language_config"> &
  Pick<LiveDefaults, Defaulted> & {
    language_config: Required<LanguageConfig>;
    messages_config: Required<MessagesConfig>;
    end_of_turn: Required<EndOfTurnDefaults>;
  };

/** The members of `o` that are set (neither null nor undefined). */
const dropNulls = <T extends object>(o: T | null | undefined): { [K in keyof T]?: NonNullable<T[K]> } =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: NonNullable<T[K]> };

export function applyDefaults(init: LiveSessionInit): AppliedOptions {
  const d = liveDefaults;
  const applied: AppliedOptions = {
    ...init,
    encoding: init.encoding ?? d.encoding,
    bit_depth: init.encoding === "wav/alaw" || init.encoding === "wav/ulaw" ? 8 : (init.bit_depth ?? d.bit_depth),
    sample_rate: init.sample_rate ?? d.sample_rate,
    channels: init.channels ?? d.channels,
    model: init.model ?? d.model,
    profile: init.profile ?? d.profile,
    endpointing: init.endpointing ?? d.endpointing,
    maximum_duration_without_endpointing: init.maximum_duration_without_endpointing ?? d.maximum_duration_without_endpointing,
    language_config: {
      languages: init.language_config?.languages ?? [...d.language_config.languages!],
      code_switching: init.language_config?.code_switching ?? d.language_config.code_switching!,
    },
    messages_config: { ...messagesDefaults, ...dropNulls(init.messages_config) },
    callback: init.callback ?? d.callback,
    end_of_turn: { ...endOfTurnDefaults, ...dropNulls(init.end_of_turn) },
    turn_router: init.turn_router ?? d.turn_router,
    numerals: init.numerals ?? d.numerals,
    punctuation: init.punctuation ?? d.punctuation,
    diarization: init.diarization ?? d.diarization,
  };
  if (init.callback_config) applied.callback_config = { ...callbackMessagesDefaults, ...dropNulls(init.callback_config) } as typeof init.callback_config;
  return applied;
}
