// What an agent test file (NAME.agent.test.yaml) says, read from its YAML with the place of every
// part, so that results point back into the file: the agent under test and its cases, each with
// inputs, test secrets, mocked API answers and expectations.
import type { Span } from '../document/problems';
import type { Matcher } from './matchers';
import type { ValuePath } from './valuePath';

/** Checks on the request an API node sent to its mock. */
export interface RequestExpectations {
  readonly method?: Matcher;
  readonly url?: Matcher;
  /** By lower-case header name. */
  readonly headers?: ReadonlyMap<string, Matcher>;
  /** On the body as JSON when it parses as JSON, else as text. */
  readonly body?: Matcher;
}

/** The answer an API node gets instead of calling its API. */
export interface MockAnswer {
  readonly node: string;
  readonly span: Span;
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** A mapping or list is sent as JSON; text as it is. */
  readonly body: unknown;
  readonly delayMs: number;
  readonly expectRequest?: RequestExpectations;
}

/** An expectation on the value at a path inside a node's body. */
export interface BodyPathExpectation {
  /** The path as written (`items[0].title`), for messages. */
  readonly text: string;
  readonly path: ValuePath;
  readonly matcher: Matcher;
}

export interface NodeExpectations {
  readonly span: Span;
  /** The node's HTTP status (API nodes; also when the node failed on it). */
  readonly status?: Matcher;
  readonly body?: Matcher;
  /** Values deep inside the body, by path (`body_paths`). */
  readonly bodyPaths?: readonly BodyPathExpectation[];
  /** By lower-case header name. */
  readonly headers?: ReadonlyMap<string, Matcher>;
}

export interface CaseExpectations {
  /** By output name. */
  readonly outputs?: ReadonlyMap<string, Matcher>;
  readonly outputsSpan?: Span;
  readonly nodes?: ReadonlyMap<string, NodeExpectations>;
  /** The node the execution must fail at. */
  readonly failsAt?: { readonly node: string; readonly span: Span };
  /** The failure's message. */
  readonly error?: Matcher;
  /** The most the case may take. */
  readonly withinMs?: { readonly ms: number; readonly span: Span };
}

export interface TestCase {
  readonly name: string;
  /** The case's key in the file: where its result is shown. */
  readonly span: Span;
  readonly inputs: Readonly<Record<string, unknown>>;
  /** File inputs: paths relative to the test file. */
  readonly files: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, string>>;
  readonly mocks: ReadonlyMap<string, MockAnswer>;
  readonly expect: CaseExpectations;
  /** `--update` writes the actual outputs into expect.outputs. */
  readonly snapshot: boolean;
  /** API nodes without a mock call their real API. */
  readonly live: boolean;
  /** The case always runs against the deployed agent (mocks and node expectations do not apply). */
  readonly deployed: boolean;
}
