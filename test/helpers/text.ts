/** Lower case, punctuation dropped, single spaces: how tests compare recognised text ("A." → "a"). */
export const words = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
