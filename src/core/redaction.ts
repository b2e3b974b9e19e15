// Keeping secrets (the engine's `{{ secrets.NAME }}` values, the client's API key) out of
// everything shown to people: messages, traces, outputs. One home for redaction and for cutting
// text short safely: secrets are replaced BEFORE any cut (a secret cut in two is no longer found),
// and a cut that ends in the first characters of a secret masks them too.
import { BoundedCache } from './boundedCache';
import { base64OfBytes, utf8Bytes } from './utf8';

/** What the engine puts in place of a secret value. */
export const REDACTED = '[redacted]';
/** What the client puts in place of the API key and Bearer tokens. */
export const MASK = '•••';

/** How an exchange record writes a secret: by its name, as the agent file does. */
export function secretMask(name: string): string {
  return `{{ secrets.${name} }}`;
}

/** A Bearer token in text an API may echo back (an error page showing the request's headers). */
const BEARER_TOKEN = /(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi;
/** The fewest characters of a secret's start masked at a cut (fewer for very short secrets). */
const MIN_PREFIX_AT_CUT = 4;
/**
 * Secrets shorter than this are masked only where a whole text is the secret: replacing every "t"
 * of a one-letter test secret would wreck every output and key without hiding anything.
 */
export const MIN_SECRET_IN_TEXT = 4;
/**
 * The fewest characters of a secret's Base64 looked for inside a longer Base64 text (about 10
 * characters of secret): fewer would now and then match by chance in a long Base64 output (a
 * file's bytes) and mask part of it. The Base64 of a whole secret is looked for at any length.
 */
const MIN_BASE64_CORE = 12;

export interface RedactorOptions {
  /** Put in place of each secret; REDACTED by default. */
  readonly mask?: string;
  /** Also mask every "Bearer <token>", known or not (the client: a service may echo any). */
  readonly bearerTokens?: boolean;
}

/**
 * Replaces secret values in text and in values. Each secret is also looked for in the forms it takes
 * once placed in a URL (percent-encoded, then re-encoded as the URL serialises its part; lower-cased,
 * as `new URL` does to a host name) or a JSON string, each also in upper case (a hex key printed the
 * other way), and in Base64 (see `base64Forms`), since that is how it may come back in an error or a
 * body. A bounded number of forms per secret, each looked for in one pass: linear in the text's length.
 */
export class Redactor {
  private needles: string[] = [];
  /** The mask of each needle whose secret was added with a mask of its own. */
  private readonly ownMasks = new Map<string, string>();
  /** Every mask in use: the default one and the secrets' own. */
  private readonly masks = new Set<string>();
  private readonly added = new Set<string>();
  /** Secrets under MIN_SECRET_IN_TEXT characters, masked as whole texts only, with their masks. */
  private readonly shortSecrets = new Map<string, string>();
  readonly mask: string;
  private readonly bearerTokens: boolean;

  constructor(options: RedactorOptions = {}) {
    this.mask = options.mask ?? REDACTED;
    this.masks.add(this.mask);
    this.bearerTokens = options.bearerTokens ?? false;
  }

  /**
   * Adds a secret, replaced by `options.mask` when given (an exchange names each secret:
   * `secretMask(name)`), else by the redactor's mask. The first mask given for a secret stays.
   */
  add(secret: string, options: { readonly mask?: string } = {}): void {
    // A run adds its secrets again where they are used (an agent test's, then the engine's).
    if (secret === '' || this.added.has(secret)) return;
    this.added.add(secret);
    const mask = options.mask ?? this.mask;
    this.masks.add(mask);
    if (secret.length < MIN_SECRET_IN_TEXT) {
      this.shortSecrets.set(secret, mask);
      return;
    }
    for (const form of formsOf(secret)) {
      if (form === '' || this.needles.includes(form)) continue;
      this.needles.push(form);
      if (mask !== this.mask) this.ownMasks.set(form, mask);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.needles.sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    const short = this.shortSecrets.get(value);
    if (short !== undefined) return short;
    let result = this.bearerTokens ? value.replace(BEARER_TOKEN, `$1${this.mask}`) : value;
    for (const needle of this.needles)
      if (result.includes(needle)) result = result.split(needle).join(this.ownMasks.get(needle) ?? this.mask);
    return result;
  }

  /** A plain copy of a value (files as { name, size, type }) with every string and object key redacted. */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      const plain = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
      if (plain !== value) return this.value(plain);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.value(item)]));
    }
    return value;
  }

  /**
   * At most `limit` characters of a text, redacted first, then tidied by `normalize` (e.g. white
   * space collapsed), then cut, with "…" when cut. `more` says the text given is itself only the
   * start of a longer one, so its end is a cut as well.
   */
  excerpt(text: string, limit: number, options: { readonly normalize?: (text: string) => string; readonly more?: boolean } = {}): string {
    const redacted = this.text(text);
    const whole = options.normalize ? options.normalize(redacted) : redacted;
    if (whole.length <= limit && !options.more) return whole;
    return `${this.cutRedacted(whole, limit)}…`;
  }

  /**
   * A text redacted, of which only the start was kept (a body cut at its size limit): a secret
   * that the cut split is masked too. The result may be longer than the text (masks).
   */
  redactCut(text: string): string {
    const redacted = this.text(text);
    return this.cutRedacted(redacted, redacted.length);
  }

  /**
   * Bytes that are not text (a body that does not decode) with every secret masked where they hold
   * it as UTF-8 or as Latin-1: an answer of any type may echo a token. `cutShort`: the bytes are
   * only the start of the body, so a secret's start at their end is masked too. Linear in their
   * length, as text() is.
   */
  bytes(bytes: Uint8Array, cutShort = false): Uint8Array {
    if (this.needles.length === 0) return bytes;
    // One character per byte: a secret's bytes are then found as a string is.
    let held = '';
    for (let i = 0; i < bytes.length; i += BYTES_PER_CALL) held += String.fromCharCode(...bytes.subarray(i, i + BYTES_PER_CALL));
    const forms = this.byteForms();
    let result = held;
    for (const [form, mask] of forms) if (result.includes(form)) result = result.split(form).join(mask);
    if (cutShort) result = maskStart(result, forms.keys(), (form) => forms.get(form)!);
    if (result === held) return bytes;
    const redacted = new Uint8Array(result.length);
    for (let i = 0; i < result.length; i++) redacted[i] = result.charCodeAt(i);
    return redacted;
  }

  /** Each needle's bytes in UTF-8 and in Latin-1 (where it has one), one character per byte, with its mask's. */
  private byteForms(): ReadonlyMap<string, string> {
    const forms = new Map<string, string>();
    const asBytes = (text: string): string => String.fromCharCode(...utf8Bytes(text));
    for (const needle of this.needles) {
      const mask = asBytes(this.ownMasks.get(needle) ?? this.mask);
      forms.set(asBytes(needle), mask);
      if (/^[\u0000-\u00ff]*$/.test(needle)) forms.set(needle, mask);
    }
    // Longest first, as the needles are.
    return new Map([...forms].sort((a, b) => b[0].length - a[0].length));
  }

  /** The first `limit` characters of a redacted text, never half a mask, a secret's start masked. */
  private cutRedacted(whole: string, limit: number): string {
    let end = Math.min(limit, whole.length);
    // Never leave half a mask: keep the whole of one that spans the cut.
    for (const mask of this.masks) {
      const maskStart = whole.lastIndexOf(mask, end - 1);
      if (maskStart !== -1 && maskStart + mask.length > end) end = maskStart + mask.length;
    }
    return this.maskSecretStart(whole.slice(0, end));
  }

  /** Masks the end of a cut text when it is the start of a secret (the rest was cut off). */
  private maskSecretStart(cut: string): string {
    return maskStart(cut, this.needles, (needle) => this.ownMasks.get(needle) ?? this.mask);
  }
}

/** Characters made at once by String.fromCharCode (its arguments go on the stack). */
const BYTES_PER_CALL = 0x2000;

/** The text with its end masked (`maskOf` the needle) when it is the start of one of the needles. */
function maskStart(cut: string, needles: Iterable<string>, maskOf: (needle: string) => string): string {
  for (const needle of needles) {
    const shortest = Math.max(1, Math.min(MIN_PREFIX_AT_CUT, needle.length - 1));
    for (let length = Math.min(needle.length - 1, cut.length); length >= shortest; length--) {
      if (cut.endsWith(needle.slice(0, length))) return `${cut.slice(0, cut.length - length)}${maskOf(needle)}`;
    }
  }
  return cut;
}

/** The client's redaction: Bearer tokens and every form of the API key, masked as •••. */
export function keyRedactor(apiKey?: string): Redactor {
  const redactor = new Redactor({ mask: MASK, bearerTokens: true });
  if (apiKey) redactor.add(apiKey);
  return redactor;
}

/**
 * The Base64 forms of a secret, standard and URL-safe: of the secret alone (with and without
 * padding), and its part inside the Base64 of a longer text (Basic credentials "user:secret", a
 * token in an encoded JSON document). Base64 writes 3 bytes as 4 characters, so inside a longer text
 * the secret's characters depend on where it starts (its offset, counted in bytes, modulo 3): for
 * each of the 3 offsets, the characters made of the secret's bits alone, without the one or two at
 * each end that mix them with its neighbours' (those stay visible, giving away a few bits at most).
 */
function base64Forms(secret: string): string[] {
  const bytes = utf8Bytes(secret);
  const whole = base64OfBytes(bytes);
  const forms = [whole, whole.replace(/=+$/, '')];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = new Uint8Array(offset + bytes.length);
    shifted.set(bytes, offset);
    const encoded = base64OfBytes(shifted).replace(/=+$/, '');
    // The first characters hold bits of the bytes before the secret; a last group that is not whole
    // holds bits of the bytes after it in its last character.
    const start = [0, 2, 3][offset]!;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    const core = encoded.slice(start, end);
    if (core.length >= MIN_BASE64_CORE) forms.push(core);
  }
  return [...forms, ...forms.map((form) => form.replace(/\+/g, '-').replace(/\//g, '_'))];
}

/**
 * The forms of secrets already seen: every run, agent test case and exchange record makes a
 * redactor of the same few secrets, and deriving their forms (Base64 at three offsets) cost more
 * than the rest of an exchange's record. Kept in memory only, bounded like every other memo.
 */
const knownForms = new BoundedCache<readonly string[]>(256, 64 * 1024);

/** Every form of a secret looked for in text (see Redactor). */
function formsOf(secret: string): readonly string[] {
  const known = knownForms.get(secret);
  if (known) return known;
  const percentEncoded = safeEncode(encodeURIComponent, secret);
  const encoded = [
    secret,
    percentEncoded,
    safeEncode(encodeURI, secret),
    JSON.stringify(secret).slice(1, -1),
    ...urlSerialisedForms([secret, percentEncoded]),
  ];
  const forms = [
    ...new Set([
      ...encoded,
      ...encoded.map((form) => form.toLowerCase()),
      ...encoded.map((form) => form.toUpperCase()),
      ...base64Forms(secret),
    ]),
  ];
  knownForms.set(secret, forms);
  return forms;
}

/**
 * The forms values take once a WHATWG URL serialises them in a query, a path and a fragment: the
 * engine writes a value encodeURIComponent-ed, and `new URL` then re-encodes what that leaves but
 * the part may not hold ("'" is %27 in the query of an http(s) URL); a value placed as it is gets
 * the part's own encoding. Taken from the URL serialiser itself, so every character it re-encodes
 * is covered. Through the setters: they never throw, and a "#" or "?" in a value stays in its part.
 */
function urlSerialisedForms(values: readonly string[]): string[] {
  const url = new URL('http://x/');
  const forms: string[] = [];
  const keep = (serialised: string, prefix: string): void => {
    // The parser drops tabs and newlines and resolves "." and ".." path segments: what is left of a
    // value may be too short to look for in text (see MIN_SECRET_IN_TEXT), or not under the prefix.
    if (serialised.startsWith(prefix) && serialised.length - prefix.length >= MIN_SECRET_IN_TEXT)
      forms.push(serialised.slice(prefix.length));
  };
  for (const value of values) {
    // After a prefix, so a value's own leading "?", "#" or "/" is not taken for the part's delimiter.
    url.search = `q=${value}`;
    keep(url.search, '?q=');
    url.pathname = `/p/${value}`;
    keep(url.pathname, '/p/');
    url.hash = `f=${value}`;
    keep(url.hash, '#f=');
  }
  return forms;
}

/** encodeURI and encodeURIComponent throw on a lone surrogate; such a secret cannot take that form anyway. */
function safeEncode(encode: (text: string) => string, secret: string): string {
  try {
    return encode(secret);
  } catch {
    return secret;
  }
}
