// The forms an API or a service may echo a secret in (issue 21, point 4), and a check, independent
// of how redaction works, that printed or stored text gives none of the secret away.

/** A hex key (the letter-case forms) and a key with characters URLs and JSON escape. */
export const ECHO_KEYS = ['c0ffee4b1d9e8a7f00c0ffee4b1d9e8a', 'sk-Live/"Q\\x+9~key-0123'] as const;

/** Each form a secret may be echoed in, by name. */
export function echoedForms(secret: string): Record<string, string> {
  const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
  const urlSafe = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
  return {
    plain: `key ${secret} here`,
    upper: `KEY ${secret.toUpperCase()} HERE`,
    lower: secret.toLowerCase(),
    percent: `https://x.example/?k=${encodeURIComponent(secret)}&n=1`,
    json: JSON.stringify({ k: secret }),
    base64: base64(secret),
    base64Unpadded: base64(secret).replace(/=+$/, ''),
    base64Url: urlSafe(secret),
    base64UrlPadded: `${urlSafe(secret)}${'='.repeat((4 - (urlSafe(secret).length % 4)) % 4)}`,
    basic: `Authorization: Basic ${base64(`user:${secret}`)}`,
    basicKeyAsUser: `Basic ${base64(`${secret}:`)}`,
    basicLongUser: `Basic ${base64(`someone@example.com:${secret}`)}`,
    inLongerBase64: base64(`{"token":"${secret}","n":1}`),
    inLongerBase64Url: urlSafe(`<<${secret}>>`),
  };
}

/**
 * A part of `secret` of `span` bytes or more that `text` still gives away: as written, in any
 * letter case, percent- or JSON-decoded, or in any Base64 decoding (standard or URL-safe, at every
 * alignment) of a run of Base64 characters. Undefined when it gives none away.
 */
export function leakedPart(text: string, secret: string, span = 6): string | undefined {
  const parts: string[] = [];
  for (let start = 0; start + span <= secret.length; start++) parts.push(secret.slice(start, start + span).toLowerCase());
  const decodings = [text, safeDecode(text), text.replace(/\\(["\\/])/g, '$1')];
  for (const run of text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
    for (let align = 0; align < 4; align++) decodings.push(Buffer.from(run.slice(align), 'base64').toString('latin1'));
  }
  for (const decoded of decodings) {
    const lower = decoded.toLowerCase();
    const found = parts.find((part) => lower.includes(part));
    if (found !== undefined) return found;
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
