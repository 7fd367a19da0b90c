const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The index just past the string that opens at `at` (a quote). indexOf finds each next
 * quote at memchr speed: most of a reply's bytes are in strings (base64 account data).
 */
function skipString(text: string, at: number): number {
  let quote = text.indexOf('"', at + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** The index just past the JSON value that starts at `at`. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return skipString(text, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let i = at;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = skipString(text, i) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
  }
  return text.length;
}

const skipSpace = (text: string, at: number): number => {
  let i = at;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
};

/**
 * The text of member `key` of the JSON object `text`, exactly as it was written, or
 * undefined when it has none. `text` must be JSON already parsed once (the client checks
 * every reply): this only finds where the member lies. Forwarding that text instead of
 * re-serializing the parsed value keeps what JSON.parse changes: a u64 such as
 * `rentEpoch` 18446744073709551615 becomes another number once parsed.
 */
export function memberText(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const keyEnd = skipString(text, i);
    const name = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipSpace(text, i + 1);
    const end = skipValue(text, start);
    if (name === key) return text.slice(start, end);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(text, i + 1);
  }
  return undefined;
}

/** The texts of the elements of the JSON array `text`, as written (undefined when it is no array). */
export function elementTexts(text: string): string[] | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACKET) return undefined;
  const out: string[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return out;
  while (i < text.length) {
    const end = skipValue(text, i);
    out.push(text.slice(i, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return out;
}

/** The text of a JSON-RPC response's `result`, as the node wrote it (see memberText). */
export const resultText = (text: string): string | undefined => memberText(text, 'result');
