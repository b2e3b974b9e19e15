// A read curl command turned into an API node of an agent file. Every credential in it (the -u
// pair, a Bearer token, a key header, a cookie, a key or token in the query or in -G data, and
// any token the secret scan knows wherever it is) becomes a `{{ secrets.NAME }}` reference in the
// form the service's four auth methods take, named after the API's host; the values are handed
// back to be stored as secrets, never written into the node.
import { EXPRESSION_ROOTS } from '../document/expressions';
import { CREDENTIAL_HEADERS, isCredentialHeader, nameWords, namesCredential, parseHeaderString } from '../document/headers';
import { SECRET_ENV_PREFIX } from '../engine/secrets';
import { API_KEY_PARAMETERS, CREDENTIAL_PARAMETERS, isCredentialParameter } from '../document/urlCredentials';
import { looksLikePlaceholder } from '../validation/headerChecks';
import { findSecrets } from '../validation/secretScan';
import type { CurlRequest, IgnoredReason } from './curlCommand';
import { CurlCommandError, SHELL_OPERATOR } from './curlCommand';
import { holdsTemplate, TEMPLATE_IN_IMPORTED_TEXT } from './importedText';
import { JsonTooDeepError, MAX_JSON_DEPTH, parseJson } from '../json';
import { base64OfText, utf8Bytes } from '../utf8';

/** A secret the node refers to; `value` when the command held the real one (to store after a confirmation). */
export interface ImportedSecret {
  readonly name: string;
  readonly value?: string;
  /** Where the command had it: "-u", "Authorization", "x-api-key", "api_key". */
  readonly from: string;
}

export interface ImportedInput {
  readonly name: string;
  /** The placeholder it replaces in the command, e.g. "{owner}" or ":id". */
  readonly placeholder?: string;
  /** What an OpenAPI parameter says of it; a curl placeholder is a required string. */
  readonly type?: 'string' | 'number' | 'boolean';
  readonly required?: boolean;
  readonly enum?: readonly (string | number | boolean)[];
  readonly description?: string;
}

export type ImportNote =
  | { readonly code: IgnoredReason; readonly option: string }
  /** An api_key query parameter of a non-GET request, sent as an x-api-key header instead. */
  | { readonly code: 'api-key-moved'; readonly parameter: string }
  /** `-H "Name:"` tells curl not to send a header: there is nothing to add. */
  | { readonly code: 'header-removed'; readonly header: string }
  /** `-d` with JSON and no Content-Type: curl would label it a form; the node sends it as JSON. */
  | { readonly code: 'json-content-type' }
  /** What an OpenAPI import changed or could not map, said as it is. */
  | { readonly code: 'openapi'; readonly text: string };

export interface ApiNodeSpec {
  readonly type: 'api';
  readonly method: string;
  readonly url: string;
  readonly settings?: readonly string[];
  readonly body?: unknown;
}

export interface ImportedApiNode {
  readonly id: string;
  readonly node: ApiNodeSpec;
  readonly secrets: readonly ImportedSecret[];
  readonly inputs: readonly ImportedInput[];
  readonly notes: readonly ImportNote[];
}

export interface CurlImportOptions {
  /** The node's id; by default made from the method and the path, unique among `existingIds`. */
  readonly id?: string;
  readonly existingIds?: ReadonlySet<string>;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\b/i;
/** `$NAME`, `${NAME}`, and `${NAME:-default}` (the default is the docs' sample, not a value to keep). */
const SHELL_VARIABLE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=][^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))$/;
/** Shell variable names docs use for any API's credential: they name no API. */
const GENERIC_VARIABLE = /^(?:(?:YOUR|MY)_\w+|(?:API_?)?(?:KEY|TOKEN)|ACCESS_TOKEN|AUTH_TOKEN|BEARER_TOKEN|SECRET)$/;
/** An expression of the agent file (`{{ secrets.T }}`), as opposed to a Postman variable (`{{token}}`). */
const AGENT_EXPRESSION = new RegExp(`\\{\\{\\s*(${EXPRESSION_ROOTS.join('|')})\\b`);
/** A Postman variable that is a whole value: `{{id}}`. */
const WHOLE_TEMPLATE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][\w-]*)\s*\}\}$/;
/**
 * The import's own references, while the node is built: `\uE000secrets.NAME\uE000`. Text of the
 * command never holds the mark (it is refused), so once the node is built every "{{" in it is the
 * command's, and refused (`written`): a command is data, never a template. Then the marks are
 * written as `{{ secrets.NAME }}` and `{{ inputs.NAME }}`.
 */
const MARK = '\uE000';
const MARKED_REFERENCE = /\uE000(secrets|inputs)\.([^\uE000]+)\uE000/g;

function secretRef(name: string): string {
  return `${MARK}secrets.${name}${MARK}`;
}

function inputRef(name: string): string {
  return `${MARK}inputs.${name}${MARK}`;
}

/**
 * Text of the node with the import's references written as expressions; CurlCommandError when the
 * command put "{{" in it (or a brace against a reference, which would read as one): `place` says
 * where ("The value of the 2nd -H").
 */
function written(text: string, place: string): string {
  if (holdsTemplate(text)) throw templateError(text, place);
  if (!text.includes(MARK)) return text;
  return text.replace(MARKED_REFERENCE, (whole: string, root: string, name: string, at: number) => {
    if (text[at - 1] === '{' || text[at + whole.length] === '}')
      throw new CurlCommandError(
        'template',
        `${place} has a brace against a value the import makes a reference: "{" or "}" beside it would be read as "{{" of an agent expression, and imported text is data, never a template. Take the braces out.`,
      );
    return `{{ ${root}.${name} }}`;
  });
}

/** "The value of the 2nd -H holds an agent expression ({{ secrets.… }}): …", never the text itself. */
function templateError(text: string, place: string): CurlCommandError {
  const root = AGENT_EXPRESSION.exec(text)?.[1];
  const kind = root !== undefined ? `an agent expression ({{ ${root}.… }})` : '"{{" that is not a whole-value placeholder';
  return new CurlCommandError(
    'template',
    `${place} holds ${kind}: ${TEMPLATE_IN_IMPORTED_TEXT}. Write the value itself; a placeholder that is a whole value ({{name}}, {name}, :name) becomes an input.`,
  );
}

/** Refuses text of the command that holds an agent expression or the import's mark, before it is read. */
function checkCommandText(text: string, place: string): void {
  if (AGENT_EXPRESSION.test(text)) throw templateError(text, place);
  if (text.includes(MARK))
    throw new CurlCommandError('template', `${place} holds the character U+E000, which the import keeps for its own use. Take it out.`);
}
/** Placeholders API docs write for a value to fill in: {owner}, :id, <id>, {{id}}. */
const PARAMETER = /^(?:\{\{?\s*([A-Za-z_][\w-]*)\s*\}?\}|:([A-Za-z_][\w-]*)|<([A-Za-z_][\w-]*)>)$/;

export function apiNodeFromCurl(request: CurlRequest, options: CurlImportOptions = {}): ImportedApiNode {
  if (request.form.length > 0) {
    throw new CurlCommandError(
      'unknown-option',
      'The command sends a multipart form (-F). An API node sends JSON, text or one file input as its body, not a form: send the file as the body, or call the API from a service that takes a form.',
      '-F',
    );
  }
  checkCommandText(request.url, 'The URL');
  for (const [index, header] of request.headers.entries()) checkCommandText(header, `The value of ${headerPlace(request, index)}`);
  for (const part of request.data) checkCommandText(part.value, 'The data (-d, --json…)');
  if (request.user !== undefined) checkCommandText(request.user, 'The value of -u');
  if (request.bearer !== undefined) checkCommandText(request.bearer, 'The value of --oauth2-bearer');
  const inputs: ImportedInput[] = [];
  const withHostInputs = hostInputs(request.url, inputs);
  let url: URL;
  try {
    url = new URL(withHostInputs.url);
  } catch {
    throw new CurlCommandError(
      'no-url',
      /\s/.test(request.url)
        ? "The command's URL is words, not an address (a placeholder the docs left to fill in?). Put the address to call in its place."
        : "The command's URL is not an address an API node can call. Check the address in the command.",
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CurlCommandError('no-url', `The command calls a ${url.protocol}// address; an API node calls http:// and https:// only.`);

  const hostname = url.hostname
    .split('.')
    .filter((label) => !HOST_INPUT_LABEL.test(label))
    .join('.');
  const apiName = hostWord(hostname);
  const secrets = new SecretNames();
  // What the shell runs after curl is named by its operator only: it may be another command with a credential.
  const notes: ImportNote[] = request.ignored.map((ignored) => ({
    code: ignored.reason,
    option: ignored.reason === 'shell' ? (SHELL_OPERATOR.exec(ignored.option)?.[0] ?? '|') : ignored.option,
  }));
  const settings: string[] = [];
  /** Where the command gave each setting that holds its text, by the setting's index. */
  const settingPlaces = new Map<number, string>();
  const hasData = request.data.length > 0;
  const method = request.method ?? (request.head ? 'HEAD' : hasData && !request.dataInQuery ? 'POST' : 'GET');

  // Headers, credentials as secret references.
  let hasAuthorization = false;
  for (const [index, raw] of request.headers.entries()) {
    const header = parseHeaderString(raw);
    if (!header) {
      // curl sends "Name;" as an empty header; anything else without a colon is not a header.
      if (/^[^:;\s]+;$/.test(raw.trim())) settings.push(`${raw.trim().slice(0, -1)}:`);
      else
        throw new CurlCommandError(
          'missing-value',
          `The value of ${headerPlace(request, index)} is not a header (it has no ":"): write it as "Name: value".`,
          '-H',
        );
      continue;
    }
    if (header.value === '') {
      notes.push({ code: 'header-removed', header: header.name });
      continue;
    }
    const lower = header.name.toLowerCase();
    if (lower === 'authorization') hasAuthorization = true;
    // A Postman variable as a whole value ({{request_id}}) is an input, as in the URL; a credential's is a secret.
    const placeholder = isCredentialHeader(header.name) ? undefined : WHOLE_TEMPLATE_PLACEHOLDER.exec(header.value)?.[1];
    const value =
      placeholder !== undefined
        ? inputFor(placeholder.replace(/-/g, '_'), header.value, inputs)
        : credentialHeaderValue(header.name, agentSecretReferences(header.value, secrets, header.name), apiName, secrets);
    // Any header may hold a token (X-Session-Token: ghp_…): read as validation reads a setting.
    settingPlaces.set(settings.length, `The value of ${headerPlace(request, index)}`);
    settings.push(scannedSecretReferences(`${header.name}: ${value}`, '', { host: apiName, from: header.name, secrets }));
  }
  // curl sends "https://user:password@host/" as Basic credentials, like -u.
  const userinfo = url.username !== '' || url.password !== '' ? `${decodeSegment(url.username)}:${decodeSegment(url.password)}` : undefined;
  const user = request.user ?? userinfo;
  if (user !== undefined || request.bearer !== undefined) {
    if (hasAuthorization)
      throw new CurlCommandError(
        'unknown-option',
        `The command gives credentials twice: an Authorization header and ${user !== undefined ? '-u (or user:password@ in the URL)' : '--oauth2-bearer'}. Keep one of them.`,
      );
    if (user !== undefined) {
      // "$USER:$TOKEN", "user:password" or "api:YOUR_API_KEY" are for the reader to fill in.
      const colon = user.indexOf(':');
      const password = user.slice(colon + 1);
      const filledIn = !/\$\{?[A-Za-z_]/.test(user) && !isDocsPlaceholder(password !== '' ? password : user.slice(0, colon));
      const name = secrets.name(
        secretStem(apiName, 'BASIC'),
        filledIn ? base64OfText(user) : undefined,
        request.user !== undefined ? '-u' : 'the URL',
      );
      settings.push(`Authorization: Basic ${secretRef(name)}`);
    } else {
      settings.push(
        `Authorization: Bearer ${secretRef(secretFor(request.bearer!, secretStem(apiName, 'TOKEN'), '--oauth2-bearer', secrets))}`,
      );
    }
  }

  // The query, -G data after the URL's own parameters: credentials become secrets (an API key of a
  // non-GET request moves to a header). Each parameter is kept as written (its encoding too), but
  // credentials and placeholders.
  const queryParts = url.search.slice(1).split('&');
  if (request.dataInQuery) queryParts.push(...formEncodedData(request, 'query').flatMap((data) => data.split('&')));
  const query: string[] = [];
  for (const part of queryParts) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = decodeQueryPart(equals === -1 ? part : part.slice(0, equals));
    const value = equals === -1 ? '' : decodeQueryPart(part.slice(equals + 1));
    const lower = name.toLowerCase();
    const suffix = API_KEY_PARAMETERS.has(lower) ? 'API_KEY' : CREDENTIAL_PARAMETERS.get(lower);
    if ((suffix !== undefined || namesCredential(name)) && value.trim() !== '') {
      const secret =
        suffix !== undefined
          ? secretFor(value, secretStem(apiName, suffix), name, secrets)
          : namedCredentialSecret(name, value, apiName, name, secrets);
      if (method !== 'GET' && API_KEY_PARAMETERS.has(lower)) {
        settings.push(`x-api-key: ${secretRef(secret)}`);
        notes.push({ code: 'api-key-moved', parameter: name });
      } else {
        query.push(`${part.slice(0, equals)}=${secretRef(secret)}`);
      }
      continue;
    }
    const parameter = parameterOf(value, inputs) ?? (SHELL_VARIABLE_IN.test(value) ? shellVariables(value, inputs, secrets) : undefined);
    query.push(parameter === undefined ? part : `${part.slice(0, equals)}=${parameter}`);
  }

  const path = url.pathname
    .split('/')
    .map(
      (segment) =>
        parameterOf(decodeSegment(segment), inputs) ??
        (CAPITALISED_PLACEHOLDER.test(segment)
          ? inputFor(segment.toLowerCase(), segment, inputs)
          : shellVariables(segment, inputs, secrets)),
    )
    .join('/');
  const wholeUrlSecret = urlSecret(request.url, secrets);
  const nodeUrl = written(
    scannedSecretReferences(
      wholeUrlSecret?.reference ??
        withHostInputs.restore(`${url.protocol}//${url.host}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`),
      'url',
      { host: apiName, from: 'the URL', secrets },
    ),
    'The URL',
  );

  const body =
    hasData && !request.dataInQuery
      ? writtenBody(
          bodySecretReferences(
            importedBody(bodyOf(request, settings, notes), { inputs, secrets, host: apiName, form: isForm(settings) }),
            'body',
            {
              host: apiName,
              from: 'the body',
              secrets,
            },
          ),
        )
      : undefined;
  const nodeSettings = settings.map((setting, index) => written(setting, settingPlaces.get(index) ?? 'A header'));
  // A URL that is a secret names the node after what it is, never after a part of it.
  const id =
    options.id ??
    uniqueId(
      wholeUrlSecret
        ? `${method.toLowerCase()}_${wholeUrlSecret.name.toLowerCase().replace(/_url$/, '')}`
        : defaultId(method, url.pathname, apiName),
      options.existingIds ?? new Set(),
    );
  return {
    id,
    node: {
      type: 'api',
      method,
      url: nodeUrl,
      ...(nodeSettings.length > 0 ? { settings: nodeSettings } : {}),
      ...(body !== undefined ? { body } : {}),
    },
    secrets: secrets.all(),
    inputs,
    notes,
  };
}

/** The secret-name stem of an API: "api.github.com" is GITHUB, "helpdesk.example.com" HELPDESK. */
export function hostWord(hostname: string): string {
  const labels = hostname.toLowerCase().split('.').filter(Boolean);
  if (labels.length === 0 || /^\d+$/.test(labels[labels.length - 1]!) || hostname.includes(':')) return 'API';
  const meaningful = (labels.length > 1 ? labels.slice(0, -1) : labels).filter(
    (label) => !/^(api|apis|www|rest|v\d+|gateway|service|services|co|com|org|net)$/.test(label),
  );
  const word = (meaningful[0] ?? labels[0] ?? 'api')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return word === '' || word === 'LOCALHOST' ? 'API' : /^\d/.test(word) ? `_${word}` : word;
}

/** HOST_SUFFIX; an API with no name of its own (an IP address, localhost) gets API_KEY, not API_API_KEY. */
function secretStem(host: string, suffix: string): string {
  return host === 'API' && suffix.startsWith('API_') ? suffix : `${host}_${suffix}`;
}

/** Secret names handed out for one node: one name per value, a second value under the same stem gets "_2". */
class SecretNames {
  private readonly secrets: ImportedSecret[] = [];

  name(wanted: string, value: string | undefined, from: string): string {
    const same = this.secrets.find((secret) => secret.value !== undefined && secret.value === value);
    if (same) return same.name;
    let name = wanted;
    for (let n = 2; this.secrets.some((secret) => secret.name === name); n++) name = `${wanted}_${n}`;
    this.secrets.push({ name, ...(value !== undefined ? { value } : {}), from });
    return name;
  }

  /** A secret the command names itself ($AGENT_SECRET_NAME): the same name wherever it is used. */
  named(name: string, from: string): string {
    if (!this.secrets.some((secret) => secret.name === name)) this.secrets.push({ name, from });
    return name;
  }

  all(): ImportedSecret[] {
    return [...this.secrets];
  }
}

/**
 * The secret for a credential value: `$NAME` (a shell variable in the docs' command) names it, a
 * placeholder (`<TOKEN>`, `YOUR_API_KEY`) leaves the value to be set, anything else is the value.
 */
function secretFor(value: string, wanted: string, from: string, secrets: SecretNames): string {
  const variable = SHELL_VARIABLE.exec(value.trim());
  if (variable) {
    // "$OPENAI_API_KEY" names the secret; "$TOKEN" or "$YOUR_API_KEY" says nothing the API's name does not.
    const name = (variable[1] ?? variable[2])!.toUpperCase();
    // "$AGENT_SECRET_NAME" is how agent-workflows itself writes the secret NAME (Copy Node as cURL).
    const agentSecret = agentSecretName(name);
    if (agentSecret !== undefined) return secrets.named(agentSecret, from);
    return secrets.name(GENERIC_VARIABLE.test(name) ? wanted : name, undefined, from);
  }
  return secrets.name(wanted, isDocsPlaceholder(value) ? undefined : value.trim(), from);
}

/**
 * A credential the docs left to fill in, never a value to store: `<TOKEN>`, `{token}`,
 * `{{token}}`, `YOUR_API_KEY`, words (`server token`, `OAUTH-TOKEN`, `SENDGRID_APIKEY`), or a
 * token shape filled with x (`xoxb-xxxxxxxxx-xxxx`). A real key has no space and is not a name.
 */
function isDocsPlaceholder(value: string): boolean {
  const text = value.trim();
  return (
    text === '' ||
    looksLikePlaceholder(text) ||
    /^\{.*\}$/.test(text) ||
    /^your/i.test(text) ||
    /\s/.test(text) ||
    (/^[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)*$/.test(text) && /(?:^|[-_.])(?:API)?(?:KEY|TOKEN|SECRET|PASSWORD|JWT)S?$/.test(text)) ||
    /x{6,}|X{6,}|\*{3,}|\.{3,}/.test(text)
  );
}

function credentialHeaderValue(name: string, value: string, host: string, secrets: SecretNames): string {
  // "$AGENT_SECRET_NAME" made it a reference already.
  if (value.includes(MARK)) return value;
  const lower = name.toLowerCase();
  if (lower === 'cookie') return cookieHeaderValue(value, host, name, secrets);
  if (!CREDENTIAL_HEADERS.has(lower)) {
    // A header whose name says it holds a credential (X-Vault-Token, X-Api-Secret) is one, whatever its value looks like.
    return namesCredential(name) ? secretRef(namedCredentialSecret(name, value, host, name, secrets)) : value;
  }
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    // A scheme alone ("Bearer", its token lost with the page's "<YOUR-TOKEN>") still names the form.
    const match = /^(\S+)\s+(.+)$/.exec(value) ?? /^(Bearer|Basic|Token)()$/i.exec(value);
    if (!match) return secretRef(secretFor(value, secretStem(host, 'TOKEN'), name, secrets));
    const scheme = match[1]!;
    const suffix = /^basic$/i.test(scheme) ? 'BASIC' : 'TOKEN';
    // An auth-param ("Token token=…", PagerDuty's form) keeps its name; only the value is secret.
    // Base64 credentials have "=" only at their end, so they never read as one.
    const param = suffix === 'TOKEN' ? /^([A-Za-z_][\w-]*=)("?)(.+)\2$/.exec(match[2]!) : null;
    if (param)
      return `${scheme} ${param[1]}${param[2]}${secretRef(secretFor(param[3]!, secretStem(host, 'TOKEN'), name, secrets))}${param[2]}`;
    return `${scheme} ${secretRef(secretFor(match[2]!, secretStem(host, suffix), name, secrets))}`;
  }
  return secretRef(secretFor(value, secretStem(host, 'API_KEY'), name, secrets));
}

/**
 * A Cookie header (-b, or the one a browser's "Copy as cURL" always writes): a session cookie is
 * as good as a password. One cookie keeps its name, as the OpenAPI import writes one
 * (`session={{ secrets.HOST_COOKIE }}`); several are one secret, the header's whole value.
 */
function cookieHeaderValue(value: string, host: string, from: string, secrets: SecretNames): string {
  const cookies = value
    .split(';')
    .map((cookie) => cookie.trim())
    .filter((cookie) => cookie !== '');
  const single = cookies.length === 1 ? /^([^=\s]+)=(.*)$/.exec(cookies[0]!) : null;
  if (single) return `${single[1]}=${secretRef(secretFor(single[2]!, secretStem(host, 'COOKIE'), from, secrets))}`;
  // A cookie left to fill in (a shell variable, a placeholder) leaves the whole secret to be set.
  const filledIn = !SHELL_VARIABLE_IN.test(value) && cookies.every((cookie) => !isDocsPlaceholder(cookie.slice(cookie.indexOf('=') + 1)));
  return secretRef(secrets.name(secretStem(host, 'COOKIE'), filledIn ? value.trim() : undefined, from));
}

/** Where scanned literals are: the API's name for the secrets that name none, and what to say they came from. */
interface ScanPlace {
  readonly host: string;
  readonly from: string;
  readonly secrets: SecretNames;
}

/**
 * The text with each literal the secret scan finds (a token format such as ghp_ or sk_live_, a long
 * random key beside a credential word) as a `{{ secrets.NAME }}` reference: what validation would
 * flag in the node is never written into it. `keyName` is the key validation reads the text under.
 */
function scannedSecretReferences(text: string, keyName: string, place: ScanPlace): string {
  const findings = findSecrets(text, keyName);
  if (findings.length === 0) return text;
  let replaced = '';
  let at = 0;
  for (const finding of findings) {
    const literal = text.slice(finding.start, finding.end);
    // A format names its secret (GITHUB_TOKEN); a long random key names no API: the host does.
    const wanted = finding.secretName === 'API_KEY' ? secretStem(place.host, 'API_KEY') : finding.secretName;
    const name = place.secrets.name(wanted, isDocsPlaceholder(literal) ? undefined : literal, place.from);
    replaced += `${text.slice(at, finding.start)}${secretRef(name)}`;
    at = finding.end;
  }
  return replaced + text.slice(at);
}

/** A body's strings through `scannedSecretReferences`, each under its key as validation reads the node's YAML. */
function bodySecretReferences(body: unknown, keyName: string, place: ScanPlace): unknown {
  if (typeof body === 'string') return scannedSecretReferences(body, keyName, place);
  if (Array.isArray(body)) return body.map((item) => bodySecretReferences(item, '', place));
  if (body !== null && typeof body === 'object')
    return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, bodySecretReferences(value, key, place)]));
  return body;
}

/** A path segment the docs write for the reader to fill in: BASE_ID, TABLE_NAME, YOUR_ACCOUNT_SID. */
const CAPITALISED_PLACEHOLDER = /^(?:YOUR_[A-Z0-9_]+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:ID|NAME|SID|DOMAIN|REF|KEY|SLUG|NUMBER|EMAIL))$/;
/**
 * A URL that is itself a credential, as the secret scan knows them (a Slack webhook URL): the whole
 * URL is the secret, the node's URL its reference; undefined for any other URL.
 */
function urlSecret(url: string, secrets: SecretNames): { name: string; reference: string } | undefined {
  const finding = findSecrets(url).find((found) => found.start === 0);
  if (!finding) return undefined;
  const credential = url.slice(0, finding.end);
  const name = secrets.name(finding.secretName, isDocsPlaceholder(credential) ? undefined : credential, 'the URL');
  return { name, reference: `${secretRef(name)}${url.slice(finding.end)}` };
}

/** `$AGENT_SECRET_NAME` or `${AGENT_SECRET_NAME}` within a text. */
const AGENT_SECRET_VARIABLE = new RegExp(
  `\\$(?:\\{${SECRET_ENV_PREFIX}([A-Za-z_][A-Za-z0-9_]*)\\}|${SECRET_ENV_PREFIX}([A-Za-z_][A-Za-z0-9_]*))`,
  'g',
);

/** NAME of the shell variable AGENT_SECRET_NAME (as the CLI and Copy Node as cURL write secrets). */
function agentSecretName(variable: string): string | undefined {
  return variable.startsWith(SECRET_ENV_PREFIX) && variable.length > SECRET_ENV_PREFIX.length
    ? variable.slice(SECRET_ENV_PREFIX.length)
    : undefined;
}

/** Each `$AGENT_SECRET_NAME` of a text as `{{ secrets.NAME }}`, the secret named, no value kept. */
function agentSecretReferences(text: string, secrets: SecretNames, from: string): string {
  return text.replace(AGENT_SECRET_VARIABLE, (_whole, braced?: string, bare?: string) => secretRef(secrets.named((braced ?? bare)!, from)));
}

/** `$NAME` or `${NAME}` within a word (a path segment "bot$TELEGRAM_BOT_TOKEN"). */
const SHELL_VARIABLE_IN = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=][^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))/;
/** What a placeholder of the host stands in for while the URL is read (a host has no "<" or "{{"). */
const HOST_INPUT_LABEL = /^aw-input-\d+$/;

/**
 * Shell variables in a part of the URL: a secret when the name says it is one (`$TELEGRAM_BOT_TOKEN`),
 * an input otherwise (`$CF_ZONE_ID`); curl would have sent the shell's value, never "$NAME".
 */
function shellVariables(text: string, inputs: ImportedInput[], secrets: SecretNames): string {
  return text.replace(new RegExp(SHELL_VARIABLE_IN.source, 'g'), (whole, braced?: string, bare?: string) => {
    const name = (braced ?? bare)!;
    const agentSecret = agentSecretName(name);
    if (agentSecret !== undefined) return secretRef(secrets.named(agentSecret, 'the URL'));
    // A shell variable whose name says it holds a credential is a secret, never an input.
    if (namesCredential(name)) return secretRef(secrets.name(name.toUpperCase(), undefined, 'the URL'));
    return inputFor(name.toLowerCase(), whole, inputs);
  });
}

/**
 * Placeholders in the host ("https://{subdomain}.zendesk.com", "<PROJECT_REF>.supabase.co",
 * "$SHOPIFY_STORE_DOMAIN") as inputs: the URL is read with a stand-in label for each, which
 * `restore` turns into the input's reference in the node's URL.
 */
function hostInputs(raw: string, inputs: ImportedInput[]): { url: string; restore: (url: string) => string } {
  // "${ES_URL}/_cat/indices": the variable is the whole base URL, scheme included.
  const base = /^\$\{?([A-Za-z_]\w*)(?::?[-=][^}]*)?\}?(?=[/?#]|$)/.exec(raw);
  if (base) {
    const reference = inputFor(base[1]!.toLowerCase(), base[0], inputs);
    return { url: `https://aw-input-0${raw.slice(base[0].length)}`, restore: (url) => url.replace('https://aw-input-0', reference) };
  }
  const parts = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(raw);
  if (!parts) return { url: raw, restore: (url) => url };
  const references: string[] = [];
  // Only the host: a user name or password ("user:$PASS@") is the -u's business.
  const at = parts[2]!.lastIndexOf('@') + 1;
  const hostPart = parts[2]!.slice(at).replace(/\{\{?\s*[A-Za-z_][\w-]*\s*\}?\}|<[A-Za-z_][\w-]*>|\$\{?[A-Za-z_]\w*\}?/g, (placeholder) => {
    const variable = /^\$\{?(\w+)\}?$/.exec(placeholder);
    references.push(variable ? inputFor(variable[1]!.toLowerCase(), placeholder, inputs) : parameterOf(placeholder, inputs)!);
    return `aw-input-${references.length - 1}`;
  });
  return {
    url: `${parts[1]}${parts[2]!.slice(0, at)}${hostPart}${parts[3]}`,
    restore: (url) => url.replace(/aw-input-(\d+)/g, (label, index: string) => references[Number(index)] ?? label),
  };
}

function inputFor(name: string, placeholder: string, inputs: ImportedInput[]): string {
  if (!inputs.some((input) => input.name === name)) inputs.push({ name, placeholder });
  return inputRef(name);
}

/** A value written as a placeholder ({owner}, :id, <id>) becomes an input reference. */
function parameterOf(text: string, inputs: ImportedInput[]): string | undefined {
  const match = PARAMETER.exec(text);
  const raw = match ? (match[1] ?? match[2] ?? match[3]) : undefined;
  if (raw === undefined) return undefined;
  return inputFor(raw.replace(/-/g, '_'), text, inputs);
}

function decodeQueryPart(text: string): string {
  return decodeSegment(text.replace(/\+/g, ' '));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * -d and --data-urlencode parts as curl joins them: with "&", --data-urlencode's content encoded.
 * curl writes the escapes in capitals in a body (%C3%A9) and in small letters in the query of -G
 * (%c3%a9): the node sends the same bytes (a signed request depends on them).
 */
function formEncodedData(request: CurlRequest, into: 'body' | 'query'): string[] {
  const encode = (text: string): string => curlUrlEncode(text, into === 'body');
  return request.data.map((part) => {
    if (part.kind !== 'urlencode') return part.value;
    const equals = part.value.indexOf('=');
    if (equals === -1) return encode(part.value);
    const name = part.value.slice(0, equals);
    const content = encode(part.value.slice(equals + 1));
    return name === '' ? content : `${name}=${content}`;
  });
}

/** Encoded as curl's --data-urlencode does: letters, digits and -._~ kept, a space as +, the rest %XX (or %xx). */
function curlUrlEncode(text: string, capitals: boolean): string {
  let encoded = '';
  for (const byte of utf8Bytes(text)) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char)) encoded += char;
    else if (char === ' ') encoded += '+';
    else {
      const hex = byte.toString(16).padStart(2, '0');
      encoded += `%${capitals ? hex.toUpperCase() : hex}`;
    }
  }
  return encoded;
}

/**
 * The body and its Content-Type as curl would send them: --json is JSON; -d is form-encoded unless
 * a header says otherwise. JSON text becomes a mapping in the node (the engine sends it as JSON).
 */
function bodyOf(request: CurlRequest, settings: string[], notes: ImportNote[]): unknown {
  const isJson = request.data.some((part) => part.kind === 'json');
  const typeIndex = settings.findIndex((setting) => /^content-type\s*:/i.test(setting));
  if (isJson) {
    if (typeIndex === -1) settings.push('Content-Type: application/json');
    if (!settings.some((setting) => /^accept\s*:/i.test(setting))) settings.push('Accept: application/json');
  }
  const text = isJson ? request.data.map((part) => part.value).join('') : formEncodedData(request, 'body').join('&');
  if (!isJson && typeIndex === -1) {
    // curl labels -d data a form whatever it holds; API docs write JSON with -d and no header all
    // the time, and the API reads it as JSON: so does the node, and says so.
    const json = jsonObjectOf(text);
    if (json !== undefined) {
      settings.push('Content-Type: application/json');
      notes.push({ code: 'json-content-type' });
      return json;
    }
    settings.push('Content-Type: application/x-www-form-urlencoded');
  }
  const type = settings.find((setting) => /^content-type\s*:/i.test(setting))?.replace(/^[^:]*:\s*/, '') ?? '';
  // Text that is not valid JSON (a template the docs left to fill in) is sent as it is.
  return (JSON_MEDIA.test(type) ? jsonObjectOf(text) : undefined) ?? text;
}

/** Where the body's values go when the import makes references of them. */
interface BodyReferences {
  readonly inputs: ImportedInput[];
  readonly secrets: SecretNames;
  /** The API's name, for the secrets of credential fields. */
  readonly host: string;
  /** The body is form-encoded: its fields are read. */
  readonly form: boolean;
}

function isForm(settings: readonly string[]): boolean {
  return settings.some((setting) => /^content-type\s*:\s*application\/x-www-form-urlencoded/i.test(setting));
}

/**
 * The secret of a value under a name that says it is a credential (`X-Vault-Token`, a `password`
 * field): named after the token's format when the secret scan knows it (`ghp_…` GITHUB_TOKEN),
 * else after the API and the name (EXAMPLE_VAULT_TOKEN, EXAMPLE_PASSWORD).
 */
function namedCredentialSecret(name: string, value: string, host: string, from: string, secrets: SecretNames): string {
  const trimmed = value.trim();
  const known = findSecrets(trimmed).find(
    (finding) => finding.start === 0 && finding.end === trimmed.length && finding.secretName !== 'API_KEY',
  );
  const words = nameWords(name);
  const suffix = (words[0] === 'x' && words.length > 1 ? words.slice(1) : words).join('_').toUpperCase().slice(0, 40).replace(/_+$/, '');
  return secretFor(value, known?.secretName ?? secretStem(host, suffix === '' ? 'SECRET' : suffix), from, secrets);
}

/**
 * A form's fields (`a=1&password=…`): a field whose name says it holds a credential is a secret,
 * its value as written (what the body sends); a whole-value `{{name}}` an input.
 */
function importedFormFields(text: string, references: BodyReferences): string {
  return text
    .split('&')
    .map((field) => {
      const equals = field.indexOf('=');
      if (equals <= 0) return agentSecretReferences(field, references.secrets, 'the body');
      const name = field.slice(0, equals);
      const value = field.slice(equals + 1);
      const decodedName = decodeQueryPart(name);
      if (value.trim() !== '' && (namesCredential(decodedName) || isCredentialParameter(decodedName)))
        return `${name}=${secretRef(namedCredentialSecret(decodedName, value, references.host, 'the body', references.secrets))}`;
      const placeholder = WHOLE_TEMPLATE_PLACEHOLDER.exec(value)?.[1];
      if (placeholder !== undefined) return `${name}=${inputFor(placeholder.replace(/-/g, '_'), value, references.inputs)}`;
      return agentSecretReferences(field, references.secrets, 'the body');
    })
    .join('&');
}

/**
 * The body with the import's references: each `$AGENT_SECRET_NAME` a secret; in JSON, a string that
 * is a whole Postman variable (`"{{customer_id}}"`) an input, as in the URL. Each string of JSON is
 * read after parsing, so an escape (`\u007b`) hides nothing from `writtenBody`.
 */
function importedBody(body: unknown, references: BodyReferences): unknown {
  if (typeof body !== 'string') return importedJson(body, references);
  return references.form ? importedFormFields(body, references) : agentSecretReferences(body, references.secrets, 'the body');
}

function importedJson(value: unknown, references: BodyReferences, path: readonly (string | number)[] = []): unknown {
  if (typeof value === 'string') {
    checkCommandText(value, bodyPlace(path));
    const placeholder = WHOLE_TEMPLATE_PLACEHOLDER.exec(value)?.[1];
    return placeholder !== undefined
      ? inputFor(placeholder.replace(/-/g, '_'), value, references.inputs)
      : agentSecretReferences(value, references.secrets, 'the body');
  }
  if (Array.isArray(value)) return value.map((item, index) => importedJson(item, references, [...path, index]));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      checkCommandText(key, `A key of ${bodyPlace(path).replace(/^(The|A) /, (start) => start.toLowerCase())}`);
      // A field whose name says it holds a credential ("password", "client_secret", at any depth) is a secret.
      if (typeof item === 'string' && item.trim() !== '' && namesCredential(key)) {
        checkCommandText(item, bodyPlace([...path, key]));
        return [key, secretRef(namedCredentialSecret(key, item, references.host, 'the body', references.secrets))];
      }
      return [key, importedJson(item, references, [...path, key])];
    }),
  );
}

/** The body as the node holds it: `written` for each string, a key with "{{" refused; `path` names where. */
function writtenBody(body: unknown, path: readonly (string | number)[] = []): unknown {
  if (typeof body === 'string') return written(body, bodyPlace(path));
  if (Array.isArray(body)) return body.map((item, index) => writtenBody(item, [...path, index]));
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      if (holdsTemplate(key)) throw templateError(key, `A key of ${bodyPlace(path).replace(/^(The|A) /, (start) => start.toLowerCase())}`);
      return [key, writtenBody(value, [...path, key])];
    }),
  );
}

/** "The body", "The body at items.0.name": keys named only when they are plain names (a key may be anything). */
function bodyPlace(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'The body';
  const plain = path.every((part) => typeof part === 'number' || /^[A-Za-z_][\w-]{0,39}$/.test(part));
  return plain ? `The body at ${path.join('.')}` : 'A value in the body';
}

/** The body's JSON, parsed within MAX_JSON_DEPTH: the import and the YAML writer walk it recursively. */
function jsonObjectOf(text: string): object | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    const parsed = parseJson(text);
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined;
  } catch (error) {
    if (error instanceof JsonTooDeepError)
      throw new CurlCommandError(
        'too-deep',
        `The body's JSON is nested too deeply: an imported body nests arrays and objects at most ${MAX_JSON_DEPTH} levels deep. Close the brackets that are left open, or flatten the structure.`,
      );
    return undefined;
  }
}

/** "post_issues" for POST /repos/{owner}/{repo}/issues. */
function defaultId(method: string, pathname: string, apiName: string): string {
  const segments = pathname
    .split('/')
    .map(decodeSegment)
    .filter(
      (segment) =>
        segment !== '' &&
        !PARAMETER.test(segment) &&
        !CAPITALISED_PLACEHOLDER.test(segment) &&
        !/^v\d+$/.test(segment) &&
        // A token in the path is a secret in the URL: never in the id.
        findSecrets(segment).length === 0,
    );
  const last = segments[segments.length - 1] ?? apiName.toLowerCase();
  const word = last
    .toLowerCase()
    .replace(/\.[a-z]+$/, '')
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `${method.toLowerCase()}_${word === '' ? 'request' : word}`;
}

function uniqueId(wanted: string, taken: ReadonlySet<string>): string {
  let id = /^[a-z_]/.test(wanted) ? wanted : `n_${wanted}`;
  const base = id;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  return id;
}

/** Where the command gave its header at `index` ("the 2nd -H"), for errors that must not quote it. */
function headerPlace(request: CurlRequest, index: number): string {
  return request.headerPlaces[index] ?? 'a header option';
}
