/** Tokens of a `search` text and the test that a name holds them all (the index and the filters share it). */

/** The lower-case, distinct tokens of a `search` text, sorted; empty when it has none. */
export function searchTokens(search: string): string[] {
  const tokens = search.toLowerCase().split(/\s+/).filter(Boolean);
  return [...new Set(tokens)].sort();
}

/** True when every token occurs in the lower-case name. */
export function nameHasTokens(nameLower: string, tokens: readonly string[]): boolean {
  for (const token of tokens) if (!nameLower.includes(token)) return false;
  return true;
}
