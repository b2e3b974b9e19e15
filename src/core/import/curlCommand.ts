// A `curl` command as an API's docs print it, read into the request it makes. Words are split by
// `shlex` (POSIX quoting, `$'…'` included); this file only joins the line continuations of the
// three shells people copy from and reads curl's own options. An option it does not take is an
// error that names it: nothing in a pasted command is dropped without a word.
import { split } from 'shlex';
import { isCredentialParameter } from '../document/urlCredentials';
import { findSecrets } from '../validation/secretScan';

export type CurlShell = 'posix' | 'cmd' | 'powershell';

export interface CurlDataPart {
  /** `--data-urlencode` parts are encoded when the request is built; `--json` marks a JSON body. */
  readonly kind: 'data' | 'urlencode' | 'json';
  readonly value: string;
}

export interface CurlFormPart {
  readonly name: string;
  /** A file part (`name=@path`) names a file; a text part has a value. */
  readonly file?: string;
  readonly value?: string;
  readonly type?: string;
}

/** What a curl command asks for, before it is turned into an API node. */
export interface CurlRequest {
  /** Upper case; undefined when the command leaves it to curl (GET, POST with data, HEAD with -I). */
  readonly method?: string;
  readonly url: string;
  /** "Name: value" as written. */
  readonly headers: readonly string[];
  /** Where each header was given, for errors that must not quote it: "the 2nd -H", "-A", "the 1st -b". */
  readonly headerPlaces: readonly string[];
  readonly data: readonly CurlDataPart[];
  readonly form: readonly CurlFormPart[];
  /** `-G`: the data goes in the query. */
  readonly dataInQuery: boolean;
  /** `-u user:password`. */
  readonly user?: string;
  /** `--oauth2-bearer`. */
  readonly bearer?: string;
  /** `-I`/`--head`. */
  readonly head: boolean;
  /** Options that change nothing the node sends (output, timing, TLS checks): kept to say so. */
  readonly ignored: readonly IgnoredOption[];
  readonly shell: CurlShell;
}

export type IgnoredReason =
  /** `-k`: the engine always verifies certificates. */
  | 'insecure'
  /** `-L`: the engine follows redirects itself (credentials dropped on another origin). */
  | 'follows-redirects'
  /** `--compressed`: the engine reads gzip, br and deflate answers. */
  | 'compressed'
  /** How curl prints, saves or times the answer: no effect on the request. */
  | 'output'
  /** What the shell runs after curl (`| jq .`, `2> /dev/null`, `&& echo done`): not part of the request. */
  | 'shell';

export interface IgnoredOption {
  readonly option: string;
  readonly reason: IgnoredReason;
}

export type CurlErrorCode =
  | 'not-curl'
  | 'unbalanced-quote'
  | 'no-url'
  | 'two-urls'
  | 'unknown-option'
  | 'missing-value'
  | 'reads-file'
  | 'password-prompt'
  /** The body's JSON nests deeper than MAX_JSON_DEPTH. */
  | 'too-deep'
  /** Text of the command would be written as an agent expression ("{{"): a command is data. */
  | 'template';

/**
 * A command that cannot be read: `code` says why, `option` which option when one is at fault. The
 * message names where and what kind of value is at fault, never the value: any word of a pasted
 * command may be a credential.
 */
export class CurlCommandError extends Error {
  constructor(
    readonly code: CurlErrorCode,
    message: string,
    readonly option?: string,
  ) {
    super(message);
    this.name = 'CurlCommandError';
  }
}

type OptionAction =
  | { readonly kind: 'method' }
  | { readonly kind: 'url' }
  | { readonly kind: 'header' }
  | { readonly kind: 'data'; readonly data: CurlDataPart['kind'] | 'raw' | 'binary' }
  | { readonly kind: 'form'; readonly literal: boolean }
  | { readonly kind: 'get' }
  | { readonly kind: 'head' }
  | { readonly kind: 'user' }
  | { readonly kind: 'bearer' }
  | { readonly kind: 'header-from'; readonly header: string }
  | { readonly kind: 'cookie' }
  | { readonly kind: 'ignore'; readonly reason: IgnoredReason; readonly takesValue: boolean };

const LONG_OPTIONS: ReadonlyMap<string, OptionAction> = new Map<string, OptionAction>([
  ['--request', { kind: 'method' }],
  ['--url', { kind: 'url' }],
  ['--header', { kind: 'header' }],
  ['--data', { kind: 'data', data: 'data' }],
  ['--data-ascii', { kind: 'data', data: 'data' }],
  ['--data-raw', { kind: 'data', data: 'raw' }],
  ['--data-binary', { kind: 'data', data: 'binary' }],
  ['--data-urlencode', { kind: 'data', data: 'urlencode' }],
  ['--json', { kind: 'data', data: 'json' }],
  ['--form', { kind: 'form', literal: false }],
  ['--form-string', { kind: 'form', literal: true }],
  ['--get', { kind: 'get' }],
  ['--head', { kind: 'head' }],
  ['--user', { kind: 'user' }],
  ['--basic', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--oauth2-bearer', { kind: 'bearer' }],
  ['--user-agent', { kind: 'header-from', header: 'User-Agent' }],
  ['--referer', { kind: 'header-from', header: 'Referer' }],
  ['--cookie', { kind: 'cookie' }],
  ['--location', { kind: 'ignore', reason: 'follows-redirects', takesValue: false }],
  ['--compressed', { kind: 'ignore', reason: 'compressed', takesValue: false }],
  ['--insecure', { kind: 'ignore', reason: 'insecure', takesValue: false }],
  ['--silent', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--show-error', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--verbose', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--include', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--fail', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--fail-with-body', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--globoff', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--no-progress-meter', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--progress-bar', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--http1.1', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--http2', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--output', { kind: 'ignore', reason: 'output', takesValue: true }],
  ['--remote-name', { kind: 'ignore', reason: 'output', takesValue: false }],
  ['--write-out', { kind: 'ignore', reason: 'output', takesValue: true }],
  ['--max-time', { kind: 'ignore', reason: 'output', takesValue: true }],
  ['--connect-timeout', { kind: 'ignore', reason: 'output', takesValue: true }],
  ['--retry', { kind: 'ignore', reason: 'output', takesValue: true }],
  ['--max-redirs', { kind: 'ignore', reason: 'output', takesValue: true }],
  ['--dump-header', { kind: 'ignore', reason: 'output', takesValue: true }],
]);

const SHORT_OPTIONS: ReadonlyMap<string, string> = new Map([
  ['X', '--request'],
  ['H', '--header'],
  ['d', '--data'],
  ['F', '--form'],
  ['G', '--get'],
  ['I', '--head'],
  ['u', '--user'],
  ['A', '--user-agent'],
  ['e', '--referer'],
  ['b', '--cookie'],
  ['L', '--location'],
  ['k', '--insecure'],
  ['s', '--silent'],
  ['S', '--show-error'],
  ['v', '--verbose'],
  ['i', '--include'],
  ['f', '--fail'],
  ['g', '--globoff'],
  ['o', '--output'],
  ['O', '--remote-name'],
  ['w', '--write-out'],
  ['m', '--max-time'],
  ['D', '--dump-header'],
]);

/** A word the shell reads as a pipe, a redirection or the end of the command: "|", "2>", "&&", ";". */
export const SHELL_OPERATOR = /^(?:\|\|?|&&?|;|\d*>>?|&>|<)/;

function takesValue(action: OptionAction): boolean {
  switch (action.kind) {
    case 'get':
    case 'head':
      return false;
    case 'ignore':
      return action.takesValue;
    default:
      return true;
  }
}

/**
 * The shell a command was copied from, by its line continuations: `^` (Windows cmd), a backtick
 * (PowerShell), else POSIX (a backslash, or one line).
 */
export function shellOf(command: string): CurlShell {
  if (/\^[ \t]*\r?\n/.test(command) || /\^"/.test(command)) return 'cmd';
  if (/`[ \t]*\r?\n/.test(command)) return 'powershell';
  return 'posix';
}

/**
 * A shell prompt docs print in front of the command: `$`, `%`, `#`, `>`, `PS C:\>`, oh-my-zsh's
 * `➜ dir`. The directory needs one character at least: `➜\s*\S*?\s*` shared a run of spaces
 * between two `\s*` every way there is, 50 s for 200,000 spaces not followed by curl.
 */
const PROMPT = /^(?:[$%#>]|PS [^>\n]*>|➜(?:\s*\S+?)?)\s*(?=curl(?:\.exe)?\s)/i;

/**
 * The command in POSIX words for shlex: cmd's carets and PowerShell's backticks and doubled single
 * quotes rewritten to what they mean. A prompt in front is dropped.
 */
function toPosix(command: string, shell: CurlShell): string {
  let text = command.trim().replace(PROMPT, '');
  if (shell === 'cmd') {
    // cmd: "^" + newline continues the line; "^x" is x (Chrome's "Copy as cURL (cmd)" escapes every quote).
    text = text.replace(/\^[ \t]*\r?\n/g, ' ').replace(/\^(.)/g, '$1');
  } else if (shell === 'powershell') {
    text = text
      .replace(/`[ \t]*\r?\n/g, ' ')
      // A single-quoted PowerShell string writes ' as ''.
      .replace(/'((?:[^']|'')*)'/g, (_whole, inner: string) => `'${inner.replace(/''/g, `'"'"'`)}'`);
  } else {
    text = text.replace(/\\[ \t]*\r?\n/g, ' ');
  }
  return text;
}

/**
 * The text with a space before a pipe or redirection glued to a closing quote (`-d '{…}'| jq .`),
 * so that it is a word of its own. Only shlex says whether a quote closes there: the text up to
 * the operator must split. At most 64 such places are tried, each one split (bounded work).
 */
function apartFromGluedOperator(text: string): string {
  let tried = 0;
  for (const match of text.matchAll(/(?<=['"])(?:\||;|&|\d*>)/g)) {
    if (++tried > 64) break;
    try {
      split(text.slice(0, match.index));
    } catch {
      continue;
    }
    return `${text.slice(0, match.index)} ${text.slice(match.index)}`;
  }
  return text;
}

/** Reads a pasted `curl …` command. Throws CurlCommandError when it cannot. */
export function parseCurlCommand(command: string): CurlRequest {
  const shell = shellOf(command);
  let words: string[];
  try {
    words = split(apartFromGluedOperator(toPosix(command, shell)));
  } catch {
    throw new CurlCommandError(
      'unbalanced-quote',
      'The command has a quote that is never closed. Copy the whole command again, up to its last line.',
    );
  }
  const program = words.shift() ?? '';
  if (!/(^|[/\\])curl(\.exe)?$/i.test(program))
    throw new CurlCommandError('not-curl', `This is not a curl command: it starts with ${programKind(program)}, not "curl".`);
  const urls: string[] = [];
  const headers: string[] = [];
  const headerPlaces: string[] = [];
  /** How many times each option (by its long name) was given so far: "the 2nd -H". */
  const given = new Map<string, number>();
  const data: CurlDataPart[] = [];
  const form: CurlFormPart[] = [];
  const ignored: IgnoredOption[] = [];
  let method: string | undefined;
  let dataInQuery = false;
  let head = false;
  let user: string | undefined;
  let bearer: string | undefined;

  const apply = (option: string, long: string, action: OptionAction, value: string): void => {
    const count = (given.get(long) ?? 0) + 1;
    given.set(long, count);
    const place = `the ${ordinal(count)} ${option}`;
    switch (action.kind) {
      case 'method':
        method = value.toUpperCase();
        return;
      case 'url':
        urls.push(value);
        return;
      case 'header':
        if (value.startsWith('@'))
          throw new CurlCommandError(
            'reads-file',
            `The value of ${place} starts with "@": curl reads headers from a file there, which is not part of the command. Write each header as -H "Name: value".`,
            option,
          );
        headers.push(value);
        headerPlaces.push(place);
        return;
      case 'data':
        data.push(dataPart(option, place, action.data, value));
        return;
      case 'form':
        form.push(formPart(option, place, value, action.literal));
        return;
      case 'get':
        dataInQuery = true;
        return;
      case 'head':
        head = true;
        return;
      case 'user':
        if (!value.includes(':'))
          throw new CurlCommandError(
            'password-prompt',
            `The value of ${option} has no ":" and so no password: curl would ask for one. Write it as ${option} "user:password".`,
            option,
          );
        user = value;
        return;
      case 'bearer':
        bearer = value;
        return;
      case 'header-from':
        headers.push(`${action.header}: ${value}`);
        headerPlaces.push(place);
        return;
      case 'cookie':
        if (!value.includes('='))
          throw new CurlCommandError(
            'reads-file',
            `The value of ${place} has no "=": curl reads cookies from a file there. Write them as ${option} "name=value".`,
            option,
          );
        headers.push(`Cookie: ${value}`);
        headerPlaces.push(place);
        return;
      case 'ignore':
        ignored.push({ option, reason: action.reason });
        return;
    }
  };

  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const valueAfter = (option: string): string => {
      const value = words[++index];
      if (value === undefined) throw new CurlCommandError('missing-value', `${option} needs a value after it.`, option);
      return value;
    };
    if (word.startsWith('--') && word.length > 2) {
      const action = LONG_OPTIONS.get(word);
      if (!action) throw unknownOption(word);
      apply(word, word, action, takesValue(action) ? valueAfter(word) : '');
    } else if (word.startsWith('-') && word.length > 1) {
      // Short options may be bundled (-sSL) and take their value attached (-XPOST) or next.
      for (let at = 1; at < word.length; at++) {
        const letter = word[at]!;
        const long = SHORT_OPTIONS.get(letter);
        const action = long ? LONG_OPTIONS.get(long) : undefined;
        if (!action) throw unknownOption(`-${letter}`);
        if (takesValue(action)) {
          const rest = word.slice(at + 1);
          apply(`-${letter}`, long!, action, rest !== '' ? rest : valueAfter(`-${letter}`));
          break;
        }
        apply(`-${letter}`, long!, action, '');
      }
    } else if (SHELL_OPERATOR.test(word)) {
      // A pipe or redirection ends curl's words (an option's value was taken above, so "-d '|'" is
      // data); docs print "| jq ." after their commands all the time.
      ignored.push({ option: words.slice(index).join(' '), reason: 'shell' });
      break;
    } else {
      urls.push(word);
    }
  }
  if (urls.length === 0)
    throw new CurlCommandError('no-url', 'The command has no URL. Add the address to call, e.g. curl https://api.example.com/v1/items.');
  if (urls.length > 1)
    throw new CurlCommandError(
      'two-urls',
      `The command calls ${urls.length} URLs, and an API node makes one call: ${urlWordKinds(urls)}. Keep one URL, or put back the quotes a value lost (-H "Authorization: Bearer …").`,
    );
  return {
    ...(method !== undefined ? { method } : {}),
    url: withScheme(urls[0]!),
    headers,
    headerPlaces,
    data,
    form,
    dataInQuery,
    ...(user !== undefined ? { user } : {}),
    ...(bearer !== undefined ? { bearer } : {}),
    head,
    ignored,
    shell,
  };
}

/** "1st", "2nd", "3rd", "11th", "22nd". */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The first word of a command that is not curl, quoted only when it is a plain command name. */
function programKind(word: string): string {
  const assignment = /^([A-Za-z_][A-Za-z0-9_]{0,40})=/.exec(word);
  // "OPENAI_API_KEY=sk-… curl …": the name is the variable's, the value may be the key.
  if (assignment) return `a shell variable assignment (${assignment[1]}=…)`;
  if (/^[A-Za-z][A-Za-z0-9._-]{0,23}$/.test(word) && findSecrets(word, 'key').length === 0) return `"${word}"`;
  return word === '' ? 'nothing' : 'a word that is no command name';
}

/** The words read as URLs, each by its place and kind ("the 2nd a Bearer credential"), never quoted. */
function urlWordKinds(urls: readonly string[]): string {
  const shown = urls.slice(0, 6).map((word, index) => `the ${ordinal(index + 1)} is ${urlWordKind(word, urls[index - 1])}`);
  return `${shown.join(', ')}${urls.length > shown.length ? `, and ${urls.length - shown.length} more` : ''}`;
}

const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Digest|ApiKey|Negotiate)$/i;

/** What a word taken for a URL is: "a URL with a password", "a Bearer credential", "a word that is no URL". */
function urlWordKind(word: string, before: string | undefined): string {
  // An auth scheme is one of a few fixed words: it may be named.
  if (AUTH_SCHEME.test(word)) return `the auth scheme ${word}`;
  if (before !== undefined && AUTH_SCHEME.test(before)) return `a ${before} credential`;
  const finding = findSecrets(word, 'key')[0];
  if (finding && !/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return `a ${finding.kind}`;
  let url: URL | undefined;
  try {
    url = /\s/.test(word) ? undefined : new URL(withScheme(word));
  } catch {
    url = undefined;
  }
  if (!url || (!url.hostname.includes('.') && url.hostname !== 'localhost' && !word.includes('://'))) return 'a word that is no URL';
  if (url.password !== '') return 'a URL with a password';
  if (url.username !== '') return 'a URL with a user name';
  if ([...url.searchParams.keys()].some((name) => isCredentialParameter(name)) || finding) return 'a URL with a credential in it';
  return 'a URL';
}

function unknownOption(word: string): CurlCommandError {
  // "--token=sk_live_…": the option's name only, never what is glued to it.
  const name = /^--?[A-Za-z0-9][A-Za-z0-9.-]{0,40}/.exec(word)?.[0];
  return new CurlCommandError(
    'unknown-option',
    `The curl option ${name ?? 'there'} is not understood here, so the node could differ from what the command sends. Remove it (or write it as a header), then paste the command again.`,
    name,
  );
}

function dataPart(option: string, place: string, kind: CurlDataPart['kind'] | 'raw' | 'binary', value: string): CurlDataPart {
  // -d, --data-binary and --json read a file after "@"; --data-raw never does.
  if (kind !== 'raw' && kind !== 'urlencode' && value.startsWith('@'))
    throw new CurlCommandError(
      'reads-file',
      `The value of ${place} starts with "@": curl sends the content of a file there, which is not part of the command. Paste the content in its place.`,
      option,
    );
  if (kind === 'urlencode' && /^[^=]*@/.test(value) && !value.includes('='))
    throw new CurlCommandError(
      'reads-file',
      `The value of ${place} is "name@file": curl sends the content of a file there, which is not part of the command. Paste the content in its place.`,
      option,
    );
  return { kind: kind === 'raw' || kind === 'binary' ? 'data' : kind, value };
}

function formPart(option: string, place: string, value: string, literal: boolean): CurlFormPart {
  const equals = value.indexOf('=');
  if (equals <= 0)
    throw new CurlCommandError('missing-value', `The value of ${place} needs the form "name=value" or "name=@file".`, option);
  const name = value.slice(0, equals);
  const content = value.slice(equals + 1);
  if (!literal && content.startsWith('@')) {
    const [path, ...params] = content.slice(1).split(';');
    const type = params.find((param) => param.startsWith('type='))?.slice(5);
    return { name, file: (path ?? '').replace(/^"(.*)"$/, '$1'), ...(type ? { type } : {}) };
  }
  if (!literal && content.startsWith('<'))
    throw new CurlCommandError(
      'reads-file',
      `The value of ${place} is "name=<file": curl sends the content of a file as text there, which is not part of the command. Paste the text in its place.`,
      option,
    );
  return { name, value: content };
}

/**
 * curl calls "example.com/x" over http: keep the scheme explicit (https when none is written is
 * safer, but not what curl does). A URL that starts with a shell variable ("${ES_URL}/_search")
 * has its scheme in the variable.
 */
function withScheme(url: string): string {
  // Words ("REPLACE THIS WITH A WEBHOOK URL") are no host: left as written, to be named in the error.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.startsWith('$') || /\s/.test(url) ? url : `http://${url}`;
}
