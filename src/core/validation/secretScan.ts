// Secret scanning: literals that look like a known kind of token, anywhere in an agent file: in
// its values, and (known formats only) in its comments and keys.
import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, Scalar } from 'yaml';
import { maskExpressions, scanExpressions } from '../document/expressions';
import type { ProblemSink } from '../document/problemSink';
import { valueSpanToSource } from '../document/yamlAst';

interface TokenFormat {
  readonly kind: string;
  readonly pattern: RegExp;
  readonly secretName: string;
}

/** Formats with a recognisable shape, flagged wherever they appear. */
const TOKEN_FORMATS: readonly TokenFormat[] = [
  { kind: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g, secretName: 'GITHUB_TOKEN' },
  { kind: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, secretName: 'SLACK_TOKEN' },
  { kind: 'Slack webhook URL', pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g, secretName: 'SLACK_WEBHOOK_URL' },
  {
    kind: 'Discord webhook URL',
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/(?:v\d+\/)?webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g,
    secretName: 'DISCORD_WEBHOOK_URL',
  },
  { kind: 'Stripe secret key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g, secretName: 'STRIPE_SECRET_KEY' },
  { kind: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, secretName: 'AWS_ACCESS_KEY_ID' },
  { kind: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g, secretName: 'GOOGLE_API_KEY' },
  { kind: 'OpenAI-style API key', pattern: /\bsk-(?:[A-Za-z]+-)*[A-Za-z0-9_-]{20,}/g, secretName: 'OPENAI_API_KEY' },
  { kind: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, secretName: 'JWT' },
  { kind: 'private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/g, secretName: 'PRIVATE_KEY' },
];

export interface SecretFinding {
  readonly start: number;
  readonly end: number;
  readonly kind: string;
  readonly secretName: string;
}

const POSSIBLE_TOKEN = /[A-Za-z0-9_+/-]{11}|-----BEGIN/;
const ANY_TOKEN_FORMAT = new RegExp(TOKEN_FORMATS.map((format) => `(${format.pattern.source})`).join('|'), 'g');

/**
 * What any finding needs somewhere in the file's text: every value's characters are in the source
 * as written, except through an escape in a double-quoted string (a backslash) or a PEM header
 * folded across lines. Masking expressions only removes matches. So a file without one of these has
 * no finding, and most files are dismissed with one scan of the text instead of a walk over every
 * value (a 700 KB agent: 40 ms of a cold command-line run).
 */
// The long run is sought only where a run starts: tried at every position, each run of token
// characters shorter than 32 was read again from each of its characters (11 ms of 700 KB; 3 now).
const CANDIDATE_IN_SOURCE = new RegExp(`${ANY_TOKEN_FORMAT.source}|(?:^|[^A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32}|-----BEGIN|\\\\`);

/** Words near which a long random string is probably a credential. */
const CREDENTIAL_WORDS = /key|token|secret|passw|pwd|auth|credential|signature|bearer|basic/i;

/**
 * Token-like literals in a string (expressions are never flagged). Known formats are flagged
 * anywhere; a long random word only when it is the whole value, or when the key it belongs to or
 * the text just before it names a credential (as `token=` in a query), so commit ids and digests in
 * prose are left alone.
 */
export function findSecrets(value: string, keyName = ''): SecretFinding[] {
  // Every format needs a run of 11 token characters (a JWT's first part) or a PEM header: most
  // strings of a file (types, methods, references) have none and are dismissed with one test.
  if (value.length < 11) return [];
  const masked = value.includes('{{') ? maskExpressions(value, scanExpressions(value), ' ') : value;
  if (!POSSIBLE_TOKEN.test(masked)) return [];
  // One pass for all formats: each alternative is a capture group, in the formats' order. Matches
  // of one pass do not overlap and come in order.
  const known: SecretFinding[] = [];
  for (const match of masked.matchAll(ANY_TOKEN_FORMAT)) {
    const format = TOKEN_FORMATS[match.slice(1).findIndex((group) => group !== undefined)];
    const start = match.index;
    if (format) known.push({ start, end: start + match[0].length, kind: format.kind, secretName: format.secretName });
  }
  const found = [...known];
  // Both passes go forward through the string, so one index into `known` finds any overlap.
  let next = 0;
  const overlapsKnown = (start: number, end: number): boolean => {
    while (next < known.length && known[next]!.end <= start) next++;
    return next < known.length && known[next]!.start < end;
  };
  const trimmed = masked.trim();
  // A "/" inside a word is a path's (v1/customers/…) in a URL or a path, but Base64's own in a
  // standalone value (an AWS secret access key has them).
  const pathLike = masked.includes('://') || /^[./~]/.test(trimmed);
  // Long random-looking words: hex keys and Base64 secrets. Path segments (commit ids, digests in
  // URLs) are left alone; query values and whole values are not.
  for (const match of masked.matchAll(/[A-Za-z0-9+/_-]{32,}={0,2}/g)) {
    const start = match.index;
    const word = match[0];
    const end = start + word.length;
    if (overlapsKnown(start, end) || masked[start - 1] === '/' || (word.includes('/') && pathLike)) continue;
    const wholeValue = trimmed === word;
    if (!wholeValue && !CREDENTIAL_WORDS.test(keyName) && !CREDENTIAL_WORDS.test(masked.slice(Math.max(0, start - 20), start))) continue;
    const hex = /^[0-9a-f]{32,}$|^[0-9A-F]{32,}$/.test(word);
    const random =
      word.length >= 40 && /[a-z]/.test(word) && /[A-Z]/.test(word) && /[0-9]/.test(word) && !/^[a-z]+(?:[-_][a-z0-9]+)*$/i.test(word);
    if (hex || random) found.push({ start, end, kind: hex ? 'long hexadecimal key' : 'long random key', secretName: 'API_KEY' });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Flags token-like literals in every string value of the document, unless already flagged. */
export function checkSecrets(document: Document.Parsed, text: string, sink: ProblemSink): void {
  if (!CANDIDATE_IN_SOURCE.test(text)) return;
  const check = (node: Scalar, keyName: string): void => {
    if (typeof node.value !== 'string') return;
    for (const finding of findSecrets(node.value, keyName)) {
      if (sink.full) return;
      const span = valueSpanToSource(text, node, finding.start, finding.end);
      if (sink.overlaps('literal-credential', span)) continue;
      sink.add(
        'possible-secret',
        span,
        `This looks like a ${finding.kind}. Secrets must not be written in the file: write {{ secrets.${finding.secretName} }} instead and store the value as secret ${finding.secretName} (the command line reads AGENT_SECRET_${finding.secretName}).`,
        { data: { secretName: finding.secretName } },
      );
    }
  };
  // A plain walk rather than yaml's visit(): this runs on every keystroke over every value. Keys
  // are names, not values; aliases point at nodes walked where they are defined.
  const walk = (node: unknown, keyName: string): void => {
    if (sink.full) return;
    if (isScalar(node)) check(node, keyName);
    else if (isMap(node)) {
      for (const pair of node.items) walk(pair.value, isScalar(pair.key) ? String(pair.key.value) : '');
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, '');
    }
  };
  walk(document.contents, '');
  if (!sink.full) checkOutsideValues(text, sink);
}

/**
 * Known token formats outside the values: in comments and keys, which are committed with the file
 * as much as values are. The long-random-word rule stays with values (prose in comments has ids and
 * digests). A token inside an expression is a name, not a value.
 */
function checkOutsideValues(text: string, sink: ProblemSink): void {
  for (const match of text.matchAll(ANY_TOKEN_FORMAT)) {
    if (sink.full) return;
    const span = { start: match.index, end: match.index + match[0].length };
    if (sink.overlaps('possible-secret', span) || sink.overlaps('literal-credential', span)) continue;
    const lineStart = text.lastIndexOf('\n', span.start) + 1;
    const lineEnd = text.indexOf('\n', span.end);
    const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
    const at = span.start - lineStart;
    if (scanExpressions(line).some((expression) => at >= expression.start && at < expression.end)) continue;
    const format = TOKEN_FORMATS[match.slice(1).findIndex((group) => group !== undefined)];
    if (!format) continue;
    sink.add(
      'possible-secret',
      span,
      `This looks like a ${format.kind}, written outside any value (in a comment or a key), where it is committed with the file all the same. Remove it; if the agent needs it, store it as secret ${format.secretName} and write {{ secrets.${format.secretName} }} where it is used.`,
      { data: { secretName: format.secretName, place: 'outside-value' } },
    );
  }
}
