// UTF-8 and Base64 without Node's Buffer: the checks, the quick fixes and the cURL import run in
// VS Code for the Web too, in a web worker, where there is no Buffer.

/** Bytes of `text` in UTF-8, as Buffer.byteLength counts them (a lone surrogate as U+FFFD's 3), without encoding it. */
export function utf8Length(text: string): number {
  // Most texts are ASCII to their end: one native scan finds where they stop being, if they do.
  const first = text.search(NOT_ASCII);
  if (first === -1) return text.length;
  let bytes = first;
  for (let i = first; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

const NOT_ASCII = /[^\x00-\x7f]/;

/** The UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Bytes as String.fromCharCode takes them at once, at most (its arguments go on the stack). */
const CHUNK = 0x2000;

/** `text` in UTF-8, encoded as standard Base64 with padding. */
export function base64OfText(text: string): string {
  return base64OfBytes(utf8Bytes(text));
}

/** Bytes encoded as standard Base64 with padding. */
export function base64OfBytes(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The bytes of standard Base64; throws on a character outside its alphabet or a wrong length. */
export function bytesOfBase64(value: string): Uint8Array {
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
