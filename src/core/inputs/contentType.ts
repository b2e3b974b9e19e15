// The media type of a file from its first bytes where they tell it (magic numbers), checked
// against the type its name claims: a file input's `accept:` is checked against what the content
// is, not only what the name says (a text file named cute.png is not an image). One linear look
// at a few hundred bytes; types that cannot be told from their first bytes keep their extension's.
import { mediaTypeOf } from './mediaTypes';

/** How many first bytes the content check reads. */
export const SNIFF_BYTES = 512;

const OCTET_STREAM = 'application/octet-stream';

/** Types whose content is a zip archive (Office documents): a zip is what they should look like. */
const ZIP_BASED = new Set([
  'application/zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
]);

const SIGNATURES: readonly { readonly type: string; readonly at: number; readonly bytes: readonly number[] }[] = [
  { type: 'image/png', at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', at: 0, bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', at: 0, bytes: [...'GIF87a'].map((c) => c.charCodeAt(0)) },
  { type: 'image/gif', at: 0, bytes: [...'GIF89a'].map((c) => c.charCodeAt(0)) },
  { type: 'application/pdf', at: 0, bytes: [...'%PDF-'].map((c) => c.charCodeAt(0)) },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x05, 0x06] },
  { type: 'application/gzip', at: 0, bytes: [0x1f, 0x8b] },
];

/**
 * What the first bytes of a file say it is: a media type for the formats with a signature, `text`
 * (no NUL byte), `binary` (anything else), or undefined for an empty file.
 */
export function sniffedType(head: Uint8Array): string | 'text' | 'binary' | undefined {
  if (head.length === 0) return undefined;
  for (const signature of SIGNATURES) {
    if (signature.bytes.every((byte, index) => head[signature.at + index] === byte)) return signature.type;
  }
  // RIFF....WEBP
  if (startsWith(head, 0, 'RIFF') && startsWith(head, 8, 'WEBP')) return 'image/webp';
  // Text in any 8-bit encoding has no NUL byte; binary formats nearly always have one early.
  return head.includes(0) ? 'binary' : 'text';
}

/** The type a file is sent and checked as, and whether its name's extension can be believed. */
export interface ContentType {
  readonly type: string;
  /** False when the content contradicts the extension: `accept: [.png]` then does not match. */
  readonly extensionTrusted: boolean;
}

/** The type of a file named `name` whose first bytes are `head` (see SNIFF_BYTES). */
export function contentTypeOf(name: string, head: Uint8Array): ContentType {
  const byName = mediaTypeOf(name);
  const sniffed = sniffedType(head);
  if (sniffed === undefined) return { type: byName, extensionTrusted: true };
  if (sniffed === 'text')
    return isTextual(byName) || byName === OCTET_STREAM
      ? { type: byName, extensionTrusted: true }
      : { type: 'text/plain', extensionTrusted: false };
  if (sniffed === 'binary')
    return isTextual(byName) ? { type: OCTET_STREAM, extensionTrusted: false } : { type: byName, extensionTrusted: true };
  if (sniffed === byName || (sniffed === 'application/zip' && ZIP_BASED.has(byName))) return { type: byName, extensionTrusted: true };
  // No extension (or an unknown one): the content tells the type, and contradicts nothing.
  if (byName === OCTET_STREAM) return { type: sniffed, extensionTrusted: true };
  return { type: sniffed, extensionTrusted: false };
}

function isTextual(type: string): boolean {
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type === 'application/xml' ||
    type === 'application/yaml' ||
    type === 'image/svg+xml'
  );
}

function startsWith(head: Uint8Array, at: number, text: string): boolean {
  for (let index = 0; index < text.length; index++) if (head[at + index] !== text.charCodeAt(index)) return false;
  return true;
}
