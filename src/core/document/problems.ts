// Problems found in an agent file, and the catalogue of their stable codes.

export type Severity = 'error' | 'warning' | 'info';

/** A span of the source text, in UTF-16 offsets (what both `yaml` and VS Code count in). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A 1-based line/column range, as a compiler prints it. */
export interface LineRange {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

export interface Problem {
  readonly code: ProblemCode;
  readonly severity: Severity;
  /** What is wrong and how to fix it. */
  readonly message: string;
  readonly span: Span;
  readonly range: LineRange;
  /** Facts a quick fix needs (e.g. the suggested name); never a secret value. */
  readonly data?: Readonly<Record<string, string>>;
}

/**
 * Every code a problem can carry, with its default severity and a one-line summary. Codes are
 * stable: they appear in the command line's JSON output and are documented in docs/agent-yaml.md.
 */
export const PROBLEM_CODES = {
  // The file as a whole: document/parse.ts (too-many-problems: document/problemSink.ts).
  'empty-file': { severity: 'error', summary: 'The file has no content.' },
  'not-text': { severity: 'error', summary: 'The file is binary, not YAML text.' },
  'file-too-large': { severity: 'error', summary: 'The file is larger than agent files may be.' },
  'yaml-syntax': { severity: 'error', summary: 'The YAML cannot be parsed.' },
  'yaml-warning': { severity: 'warning', summary: 'The YAML parser warns about a construct.' },
  'duplicate-key': { severity: 'error', summary: 'A mapping has the same key twice.' },
  'multiple-documents': { severity: 'error', summary: 'The file holds more than one YAML document.' },
  'not-a-mapping': { severity: 'error', summary: 'The document is not a mapping of keys.' },
  'alias-limit': { severity: 'error', summary: 'YAML aliases expand too much (an alias bomb).' },
  'too-many-problems': { severity: 'info', summary: 'Only the first problems are shown.' },
  // In the editor only: the validation worker stopped a check that took too long
  // (src/language/validationWorkerClient.ts).
  'validation-stopped': { severity: 'warning', summary: 'Checking the file took too long and was stopped.' },
  // The JSON Schema's rules: validation/schemaCheck.ts.
  'missing-property': { severity: 'error', summary: 'A required key is missing.' },
  'unknown-property': { severity: 'error', summary: 'A key that the format does not have.' },
  'wrong-type': { severity: 'error', summary: 'A value of the wrong type.' },
  'invalid-value': { severity: 'error', summary: 'A value outside what the key allows.' },
  'invalid-name': { severity: 'error', summary: 'An input, output or node name with invalid characters.' },
  'unsupported-version': { severity: 'error', summary: 'The format version is not 1.' },
  'unknown-node-type': { severity: 'error', summary: 'A node type other than api or template.' },
  'invalid-input-type': { severity: 'error', summary: 'An input type other than string, number, boolean or file.' },
  'unknown-http-method': { severity: 'error', summary: 'An API node method that is not an HTTP method.' },
  // Expressions and references: validation/references.ts (defaults, accept: declarationsCheck.ts).
  'expression-syntax': { severity: 'error', summary: 'A {{ }} expression that cannot be read.' },
  'unknown-expression-root': {
    severity: 'error',
    summary: 'An expression that starts with something other than inputs, nodes or secrets.',
  },
  'unknown-input': { severity: 'error', summary: 'A reference to an input that is not declared.' },
  'unknown-node': { severity: 'error', summary: 'A reference to a node that does not exist.' },
  'invalid-node-field': { severity: 'error', summary: 'A node reference without body, status or headers.' },
  'invalid-secret-name': { severity: 'error', summary: 'A secret name that is not a valid identifier.' },
  cycle: { severity: 'error', summary: 'Nodes that depend on each other in a circle.' },
  'output-without-reference': { severity: 'warning', summary: 'An output that references no input or node.' },
  'unused-input': { severity: 'info', summary: 'An input that nothing references.' },
  'invalid-input-default': { severity: 'error', summary: 'An input default or allowed value that does not match its type.' },
  'accept-without-file': { severity: 'warning', summary: 'accept on an input that is not a file.' },
  // API nodes: validation/apiNodeCheck.ts (header strings: validation/headerChecks.ts).
  'invalid-url': { severity: 'error', summary: 'A URL that cannot be parsed.' },
  'unsupported-url-scheme': { severity: 'error', summary: 'A URL that is not http or https.' },
  'insecure-url': { severity: 'warning', summary: 'Credentials sent over plain http to a remote host.' },
  'header-missing-colon': { severity: 'error', summary: 'A settings string that is not "Name: value".' },
  'invalid-header-name': { severity: 'error', summary: 'A header name that is not an RFC 9110 token.' },
  'expression-in-header-name': { severity: 'error', summary: 'A header name built from a {{ }} expression.' },
  'invalid-header-value': { severity: 'error', summary: 'A header value with line breaks or control characters.' },
  'empty-header-value': { severity: 'warning', summary: 'A header with no value.' },
  'duplicate-header': { severity: 'warning', summary: 'The same header twice in one node.' },
  'body-not-allowed': { severity: 'error', summary: 'A body on a GET or HEAD request.' },
  'json-body-without-content-type': { severity: 'warning', summary: 'A JSON body with no Content-Type header.' },
  'multipart-without-form': { severity: 'error', summary: 'A multipart/form-data Content-Type on a node, which sends no form.' },
  'api-key-in-url-non-get': { severity: 'warning', summary: 'api_key in the URL of a request that is not GET.' },
  // Authorization: validation/headerChecks.ts (possible-secret: validation/secretScan.ts).
  'bearer-missing-token': { severity: 'error', summary: 'Authorization: Bearer with no token.' },
  'bearer-quoted-token': { severity: 'error', summary: 'A Bearer token in quotes.' },
  'bearer-token-has-spaces': { severity: 'error', summary: 'A Bearer token with spaces inside.' },
  'basic-missing-credentials': { severity: 'error', summary: 'Authorization: Basic with no credentials.' },
  'basic-not-encoded': { severity: 'error', summary: 'A Basic value written as plain user:password.' },
  'basic-invalid-base64': { severity: 'error', summary: 'A Basic value that is not valid Base64.' },
  'basic-missing-colon': { severity: 'error', summary: 'A Basic value that does not decode to user:password.' },
  'missing-auth-scheme': { severity: 'warning', summary: 'An Authorization value with no scheme.' },
  'api-key-empty': { severity: 'error', summary: 'An empty x-api-key header or api_key parameter.' },
  'literal-credential': { severity: 'warning', summary: 'A credential written in the file instead of a secret.' },
  'possible-secret': { severity: 'warning', summary: 'A literal that looks like a known kind of token or key.' },
  // Deployment: validation/declarationsCheck.ts.
  'insecure-base-url': { severity: 'warning', summary: 'A deployment base URL on plain http to a remote host.' },
  // Environments: environments/environmentsFile.ts (the agent file's overrides: validation/declarationsCheck.ts).
  'unknown-default-environment': { severity: 'error', summary: 'default: names an environment the file does not declare.' },
  'unknown-environment': { severity: 'warning', summary: 'An override for an environment the workspace does not declare.' },
  'protected-environment-override': {
    severity: 'error',
    summary: 'An agent file sets the baseUrl or account of a protected environment that does not allow it.',
  },
  // Test files (NAME.agent.test.yaml): testing/testFile.ts.
  'unknown-agent': { severity: 'error', summary: 'The agent under test cannot be read.' },
  'unknown-output': { severity: 'error', summary: 'An expectation on an output the agent does not have.' },
  'missing-mock': { severity: 'error', summary: 'An API node with no mock in a case that is not live.' },
  'unused-secret': { severity: 'warning', summary: 'A test value for a secret the agent does not use.' },
  'invalid-expectation': { severity: 'error', summary: 'An expectation with an unknown operator or a bad operand.' },
  'test-file-alias': { severity: 'error', summary: 'A YAML alias (*name) in a test file, which its cases would not read.' },
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** Orders problems by position, then by severity (errors first). */
export function compareProblems(a: Problem, b: Problem): number {
  return a.span.start - b.span.start || severityRank(a.severity) - severityRank(b.severity) || a.span.end - b.span.end;
}

function severityRank(severity: Severity): number {
  return severity === 'error' ? 0 : severity === 'warning' ? 1 : 2;
}
