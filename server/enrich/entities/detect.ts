/**
 * Finds entities in spoken text. Checked identifiers come from libraries: phone numbers
 * (libphonenumber-js), card numbers with their Luhn check (card-validator), IBANs (ibantools),
 * e-mail addresses, IP addresses, URLs and US social security numbers (validator); names, places,
 * organizations, dates, times and money from compromise's English tagger.
 * Speech writes digits as words and addresses as "sarah at example dot com": detection reads a view
 * of the text with numbers as digits and spoken addresses written, and reports spans of the original.
 */
import cardValidator from "card-validator";
import nlp from "compromise";
import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import { findPhoneNumbersInText, type CountryCode } from "libphonenumber-js/max";
import validator from "validator";
import { numeralEdits, servesLanguage } from "../numerals.ts";
import { applyEdits, type Edit } from "../text.ts";
import type { EntityType } from "./types.ts";

export interface Detected {
  label: EntityType;
  start: number;
  end: number;
  text: string;
  score: number;
}

/** Scores: checked by a checksum, by a library's format rules, or tagged by the NLP tagger. */
const SCORES = { checksum: 0.99, format: 0.9, tagger: 0.7 } as const;

/**
 * Spoken addresses: "<user> at <domain> dot <tld>" → "<user>@<domain>.<tld>", user and domain each
 * a chain of words joined by "dot". Of two readings sharing words ("mail me at sarah dot lee at x
 * dot com") the one with the later "at" wins: an earlier "at" is the preposition.
 */
function spokenAddressEdits(text: string): Edit[] {
  const words = [...text.matchAll(/[\p{L}\p{N}_-]+/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length, w: m[0] }));
  const isDot = (i: number) => words[i]?.w.toLowerCase() === "dot";
  const candidates: Edit[] = [];
  for (let i = 1; i + 1 < words.length; i++) {
    if (words[i]!.w.toLowerCase() !== "at") continue;
    let u = i - 1;
    while (u - 2 >= 0 && isDot(u - 1)) u -= 2;
    let d = i + 1;
    while (d + 2 < words.length && isDot(d + 1)) d += 2;
    if (d === i + 1) continue; // a domain needs at least one dot
    const join = (a: number, b: number) => words.slice(a, b + 1).filter((_, k) => k % 2 === 0).map((x) => x.w).join(".");
    const address = `${join(u, i - 1)}@${join(i + 1, d)}`.toLowerCase();
    if (validator.isEmail(address)) candidates.push({ start: words[u]!.start, end: words[d]!.end, text: address });
  }
  const out: Edit[] = [];
  for (const c of candidates.reverse()) if (!out.some((o) => c.start < o.end && c.end > o.start)) out.push(c);
  return out;
}

const COUNTRY_OF_LANGUAGE: Record<string, CountryCode> = { en: "US", fr: "FR", de: "DE", es: "ES", it: "IT", nl: "NL", pt: "PT", pl: "PL", sv: "SE", da: "DK", fi: "FI" };

function identifiers(view: string, language: string): Detected[] {
  const out: Detected[] = [];
  const push = (label: EntityType, start: number, end: number, score: number) => out.push({ label, start, end, text: view.slice(start, end), score });
  for (const m of view.matchAll(/\d(?:[ -]?\d){12,18}/g)) {
    if (cardValidator.number(m[0].replace(/\D/g, "")).isValid) push("credit_card_number", m.index, m.index + m[0].length, SCORES.checksum);
  }
  for (const m of view.matchAll(/\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30}/g)) {
    // The longest prefix of the run that is a valid IBAN.
    for (let len = m[0].length; len >= 15; len--) {
      const iban = electronicFormatIBAN(m[0].slice(0, len));
      if (iban && isValidIBAN(iban)) {
        push("iban", m.index, m.index + len, SCORES.checksum);
        break;
      }
    }
  }
  for (const m of view.matchAll(/(?<![\d-])\d{3}[- ]?\d{2}[- ]?\d{4}(?![\d-])/g)) {
    if (validator.isTaxID(m[0].replace(/\D/g, ""), "en-US") && /\b(social|security|ssn)\b/i.test(view)) push("ssn", m.index, m.index + m[0].length, SCORES.format);
  }
  const country = COUNTRY_OF_LANGUAGE[language.toLowerCase().split(/[-_]/)[0] ?? ""] ?? "US";
  for (const p of findPhoneNumbersInText(view, country)) push("phone_number", p.startsAt, p.endsAt, SCORES.format);
  for (const m of view.matchAll(/\S+@\S+/g)) {
    const candidate = m[0].replace(/[.,;:!?)]+$/, "");
    if (validator.isEmail(candidate)) push("email_address", m.index, m.index + candidate.length, SCORES.format);
  }
  for (const m of view.matchAll(/\S+/g)) {
    const candidate = m[0].replace(/[.,;:!?)]+$/, "").replace(/^\(/, "");
    const at = m.index + m[0].indexOf(candidate);
    if (validator.isIP(candidate)) push("ip_address", at, at + candidate.length, SCORES.format);
    else if (!candidate.includes("@") && /[./]/.test(candidate) && validator.isURL(candidate, { require_tld: true }) && /\.[a-z]{2,}(\/|$)/i.test(candidate) && !/^\d/.test(candidate)) push("url", at, at + candidate.length, SCORES.format);
  }
  return out;
}

type Term = { text: string; tags: string[]; offset: { start: number; length: number } };
type Match = { terms: Term[] };

function tagged(view: string): Detected[] {
  const doc = nlp(view);
  const out: Detected[] = [];
  const json = (m: { json: (o: object) => unknown }) => m.json({ offset: true, terms: { offset: true } }) as Match[];
  const push = (label: EntityType, terms: Term[], score: number) => {
    const first = terms[0];
    const last = terms[terms.length - 1];
    if (!first || !last) return;
    const start = first.offset.start;
    const end = last.offset.start + last.offset.length;
    out.push({ label, start, end, text: view.slice(start, end), score });
  };
  for (const m of json(doc.people())) push("name", m.terms.filter((t) => !t.tags.includes("Honorific")), SCORES.tagger);
  for (const m of json(doc.organizations())) push("organization", m.terms, SCORES.tagger);
  for (const m of json(doc.places())) {
    // "Boston, Massachusetts" is one match of two places: each term by its own tag.
    for (const t of m.terms) {
      const label: EntityType = t.tags.includes("City") ? "location_city" : t.tags.includes("Country") ? "location_country" : t.tags.includes("Region") ? "location_state" : "location";
      const prev = out[out.length - 1];
      if (prev && prev.label === label && /^\s+$/.test(view.slice(prev.end, t.offset.start))) {
        prev.end = t.offset.start + t.offset.length;
        prev.text = view.slice(prev.start, prev.end);
      } else push(label, [t], SCORES.tagger);
    }
  }
  for (const m of json(doc.money())) push("money", m.terms, SCORES.tagger);
  for (const m of json(doc.match("#Time+"))) push("time", m.terms, SCORES.tagger);
  for (const m of json(doc.match("#Date+"))) {
    const terms = m.terms.filter((t) => !t.tags.includes("Time"));
    if (terms.some((t) => /[\p{L}\p{N}]/u.test(t.text) && !/^(the|of|on|at|in)$/i.test(t.text))) push("date", terms, SCORES.tagger);
  }
  return out;
}

/** Entities of `text`, spans in `text`, overlaps resolved (checked identifiers first, then longer). */
export function detectEntities(text: string, language: string): Detected[] {
  const english = servesLanguage(language);
  // Digits dictated with pauses come out as "202, 555, 0193" or "41, 5, 5, 5, 5, 0, 1, 3, 2": a run of
  // three or more comma-separated groups spelling 7 to 15 digits (a phone number's lengths) is read
  // as one number; other group commas before two digits or more as spaces.
  const joined: Edit[] = [];
  for (const run of text.matchAll(/(?<![\d,]\s?)\d{1,4}(?:,\s*\d{1,4}){2,}(?!\d)/g)) {
    const digits = run[0].replace(/\D/g, "").length;
    if (digits < 7 || digits > 15) continue;
    for (const sep of run[0].matchAll(/,\s*/g)) joined.push({ start: run.index + sep.index, end: run.index + sep.index + sep[0].length, text: "" });
  }
  const inJoined = (at: number) => joined.some((e) => e.start === at);
  const groupCommas = [...text.matchAll(/(?<=\d),\s*(?=\d{2})/g)].filter((m) => !inJoined(m.index)).map((m) => ({ start: m.index, end: m.index + m[0].length, text: " " }));
  const { state, map } = applyEdits({ text, words: [] }, [...(english ? [...numeralEdits(text, language), ...spokenAddressEdits(text)] : []), ...joined, ...groupCommas]);
  const view = state.text;
  const found = [...identifiers(view, language), ...(english ? tagged(view) : [])];
  // Back to the original text: a view span inside an edit covers the whole edit.
  const back = (p: number, isStart: boolean) => map.back(p, isStart);
  const spans = found
    .map((d) => {
      const start = back(d.start, true);
      const end = back(d.end, false);
      return { ...d, start, end, text: text.slice(start, end) };
    })
    .filter((d) => d.end > d.start);
  spans.sort((a, b) => b.score - a.score || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Detected[] = [];
  for (const d of spans) if (!kept.some((k) => d.start < k.end && d.end > k.start)) kept.push(d);
  return kept.sort((a, b) => a.start - b.start);
}
