// Every agent in examples/ runs: validated by the command line with no errors, then executed by the
// workflow engine against the demo's mock APIs on 127.0.0.1 (scripts/demo/mockApis.ts), with the
// demo's secrets. Each case checks the outputs and exactly which credential each API received, and
// where: the header or query parameter the example is there to show. (docs.test.ts checks that the
// examples have no problems at all.)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { executeAgent } from '../../src/core/engine/engine';
import type { ExecutionResult } from '../../src/core/engine/engine';
import { resolveInputs } from '../../src/core/engine/inputs';
import type { GivenFile } from '../../src/core/engine/inputs';
import type { GivenInputs } from '../../src/core/inputs/inputValues';
import { DEMO_SECRETS, startMockApis } from '../../scripts/demo/mockApis';
import type { CredentialRule, MockApis, MockCall } from '../../scripts/demo/mockApis';
import { repoRoot } from '../support/paths';

const examplesDir = join(repoRoot, 'examples');
const receiptFile = join(examplesDir, 'files', 'receipt.pdf');

interface ExpectedCall {
  readonly method: string;
  readonly host: string;
  readonly path: string;
  /** The one credential the call must carry (and no other). */
  readonly credential: CredentialRule;
  /** The whole query, api_key included. */
  readonly query?: Readonly<Record<string, string>>;
  /** The JSON body. */
  readonly json?: unknown;
}

interface ExampleCase {
  /** What the example is there to show, for the test title. */
  readonly shows: string;
  readonly given: GivenInputs<unknown, GivenFile>;
  readonly outputs: Readonly<Record<string, unknown>>;
  /** In the order the mock APIs answered them (parallel calls: any order). */
  readonly calls: readonly ExpectedCall[];
  readonly parallel?: boolean;
}

const CASES: Readonly<Record<string, ExampleCase>> = {
  'weather-report.agent.yaml': {
    shows: 'an API key in the x-api-key header',
    given: { values: { city: 'Lisbon' } },
    outputs: { report: 'Lisbon: Sunny, 24 degrees (metric).', temperature: 24 },
    calls: [
      {
        method: 'GET',
        host: 'weather.example.com',
        path: '/v1/current',
        credential: { kind: 'x-api-key', secret: 'WEATHER_API_KEY' },
        query: { city: 'Lisbon', units: 'metric' },
      },
    ],
  },
  'exchange-rates.agent.yaml': {
    shows: 'an API key in the URL (?api_key=)',
    given: { values: { amount: '250', to: 'USD' } },
    outputs: { text: '250 EUR is 270 USD at 1.08 (rate of 2025-06-30).', result: 270, rate: 1.08 },
    calls: [
      {
        method: 'GET',
        host: 'fx.example.com',
        path: '/v1/convert',
        credential: { kind: 'api_key', secret: 'FX_API_KEY' },
        query: { from: 'EUR', to: 'USD', amount: '250', api_key: DEMO_SECRETS.FX_API_KEY },
      },
    ],
  },
  'bug-report.agent.yaml': {
    shows: 'Basic authentication on a POST',
    given: {
      values: { project: 'WEB', title: 'Checkout button does nothing on Safari', details: 'Add an item, press Checkout: nothing happens.' },
    },
    outputs: { key: 'WEB-42', url: 'https://tracker.example.com/browse/WEB-42' },
    calls: [
      {
        method: 'POST',
        host: 'tracker.example.com',
        path: '/rest/api/2/issue',
        credential: { kind: 'basic', secret: 'TRACKER_BASIC' },
        json: {
          fields: {
            project: { key: 'WEB' },
            issuetype: { name: 'Bug' },
            summary: 'Checkout button does nothing on Safari',
            description: 'Add an item, press Checkout: nothing happens.',
            labels: ['major'],
          },
        },
      },
    ],
  },
  'receipt-scanner.agent.yaml': {
    shows: 'a file input uploaded as the body, with a Bearer token, then an x-api-key call',
    given: {
      values: { employee: 'E-314' },
      files: { receipt: { name: 'receipt.pdf', size: statSync(receiptFile).size, type: 'application/pdf', path: receiptFile } },
    },
    outputs: {
      claim_id: 'EXP-2025-0193',
      status: 'submitted',
      receipt: {
        merchant: 'CAFE AURORA',
        date: '2025-06-27',
        total: 23.4,
        currency: 'EUR',
        media_type: 'application/pdf',
        bytes: statSync(receiptFile).size,
      },
    },
    calls: [
      { method: 'POST', host: 'ocr.example.com', path: '/v1/receipts', credential: { kind: 'bearer', secret: 'OCR_TOKEN' } },
      {
        method: 'POST',
        host: 'expenses.example.com',
        path: '/api/claims',
        credential: { kind: 'x-api-key', secret: 'EXPENSES_API_KEY' },
        json: {
          employee: 'E-314',
          purpose: 'Business meal',
          merchant: 'CAFE AURORA',
          date: '2025-06-27',
          amount: 23.4,
          currency: 'EUR',
          attachment: 'receipt.pdf',
        },
      },
    ],
  },
  'customer-360.agent.yaml': {
    shows: 'independent nodes running in parallel (Bearer, Basic and ?api_key=)',
    given: { values: { customer_id: 'C-1042' } },
    outputs: {
      summary: 'Ada Lovelace: 2 open invoices, 3 tickets.',
      profile: { id: 'C-1042', name: 'Ada Lovelace', email: 'ada@analytical.example', plan: 'enterprise', since: '2019-03-01' },
      invoices: [
        { number: 'INV-2025-118', amount: 1200, currency: 'EUR', due: '2025-07-31' },
        { number: 'INV-2025-131', amount: 340.5, currency: 'EUR', due: '2025-08-15' },
      ],
    },
    calls: [
      {
        method: 'GET',
        host: 'crm.example.com',
        path: '/v2/customers/C-1042',
        credential: { kind: 'bearer', secret: 'CRM_TOKEN' },
        query: {},
      },
      {
        method: 'POST',
        host: 'billing.example.com',
        path: '/api/invoices/search',
        credential: { kind: 'basic', secret: 'BILLING_BASIC' },
        json: { customer: 'C-1042', status: 'open' },
      },
      {
        method: 'GET',
        host: 'support.example.com',
        path: '/api/tickets',
        credential: { kind: 'api_key', secret: 'SUPPORT_API_KEY' },
        query: { customer: 'C-1042', api_key: DEMO_SECRETS.SUPPORT_API_KEY },
      },
    ],
    parallel: true,
  },
  'ticket-summarizer.agent.yaml': {
    shows: 'a chain of three calls: ?api_key=, then Bearer, then Basic',
    given: {
      values: { ticket: 'The CSV export times out after 30 seconds. It started yesterday.', customer_id: 'C-1042', priority: 'high' },
    },
    outputs: {
      summary: 'Ada Lovelace reports: The CSV export times out after 30 seconds (priority high).',
      ticket_url: 'https://helpdesk.example.com/tickets/4711',
    },
    calls: [
      {
        method: 'GET',
        host: 'crm.example.com',
        path: '/v2/customers/C-1042',
        credential: { kind: 'api_key', secret: 'CRM_KEY' },
        query: { api_key: DEMO_SECRETS.CRM_KEY },
      },
      {
        method: 'POST',
        host: 'llm.example.com',
        path: '/v1/summarize',
        credential: { kind: 'bearer', secret: 'LLM_TOKEN' },
        json: { text: 'The CSV export times out after 30 seconds. It started yesterday.', priority: 'high', customer: 'Ada Lovelace' },
      },
      {
        method: 'POST',
        host: 'helpdesk.example.com',
        path: '/api/tickets',
        credential: { kind: 'basic', secret: 'HELPDESK_BASIC' },
        json: {
          title: 'The CSV export times out after 30 seconds. It started yesterday.',
          text: 'Ada Lovelace reports: The CSV export times out after 30 seconds (priority high).',
        },
      },
    ],
  },
};

const exampleFiles = readdirSync(examplesDir)
  .filter((name) => /\.agent\.ya?ml$/.test(name))
  .sort();
const demoSecrets = async (name: string): Promise<string | undefined> => (DEMO_SECRETS as Readonly<Record<string, string>>)[name];

/** The credential a call carried, wherever it was: checks there is exactly the expected one. */
function assertCredential(call: MockCall, expected: CredentialRule, where: string): void {
  const secret = DEMO_SECRETS[expected.secret];
  const authorization = call.headers.authorization;
  const apiKeyHeader = call.headers['x-api-key'];
  const apiKeyQuery = call.query.api_key;
  switch (expected.kind) {
    case 'bearer':
      assert.equal(authorization, `Bearer ${secret}`, where);
      break;
    case 'basic':
      assert.equal(authorization, `Basic ${secret}`, where);
      // What a Basic secret must hold: the Base64 of user:password.
      assert.match(Buffer.from(secret, 'base64').toString('utf8'), /^[^:]+:.+$/, where);
      break;
    case 'x-api-key':
      assert.equal(apiKeyHeader, secret, where);
      break;
    case 'api_key':
      assert.equal(apiKeyQuery, secret, where);
      break;
  }
  // No other credential went along.
  if (expected.kind !== 'bearer' && expected.kind !== 'basic') assert.equal(authorization, undefined, `${where}: no Authorization header`);
  if (expected.kind !== 'x-api-key') assert.equal(apiKeyHeader, undefined, `${where}: no x-api-key header`);
  if (expected.kind !== 'api_key') assert.equal(apiKeyQuery, undefined, `${where}: no api_key in the URL`);
  assert.deepEqual(call.credential, expected, `${where}: the mock API accepted it`);
}

function finishedOutputs(result: ExecutionResult): Readonly<Record<string, unknown>> {
  assert.equal(result.status, 'finished', result.status !== 'finished' ? result.error.message : '');
  return result.status === 'finished' ? result.outputs : {};
}

describe('examples', () => {
  let mocks: MockApis;
  beforeEach(async () => {
    // A little latency, so calls that overlap are seen to overlap.
    mocks = await startMockApis({ latencyMs: 150 });
  });
  afterEach(async () => {
    await mocks.close();
  });

  it('has a case below for every example, and an example for every case', () => {
    assert.deepEqual(exampleFiles, Object.keys(CASES).sort());
  });

  it('validate with no errors with the command line', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'validate', ...exampleFiles.map((name) => join(examplesDir, name))],
      { encoding: 'utf8' },
    );
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^${exampleFiles.length} files checked: 0 errors, 0 warnings, 0 infos\\.`));
  });

  it('cover the four authorization methods, a file input and parallel nodes', () => {
    const kinds = new Set(Object.values(CASES).flatMap((example) => example.calls.map((call) => call.credential.kind)));
    assert.deepEqual([...kinds].sort(), ['api_key', 'basic', 'bearer', 'x-api-key']);
    assert.ok(
      Object.values(CASES).some((example) => Object.keys(example.given.files ?? {}).length > 0),
      'an example with a file input',
    );
    assert.ok(
      Object.values(CASES).some((example) => example.parallel),
      'an example with parallel nodes',
    );
  });

  for (const name of exampleFiles) {
    const text = readFileSync(join(examplesDir, name), 'utf8');

    it(`${name} starts with a comment saying what it shows and naming every secret it needs`, () => {
      const header = /^(?:#.*\n)+/.exec(text)?.[0] ?? '';
      assert.ok(header.split('\n').length > 2, `${name} has a comment header`);
      const secrets = loadAgent(text, name).plan.secretNames;
      assert.ok(secrets.length > 0);
      for (const secret of secrets) {
        assert.match(header, new RegExp(`\\b${secret}\\b`), `the header names ${secret}`);
        assert.ok(Object.hasOwn(DEMO_SECRETS, secret), `the demo has a value for ${secret}`);
      }
    });

    const example = CASES[name];
    if (!example) continue;
    it(`${name} runs against the mock APIs and sends the expected credentials: ${example.shows}`, async () => {
      const agent = loadAgent(text, name);
      const result = await executeAgent(agent, resolveInputs(agent.model, example.given), {
        secrets: demoSecrets,
        dispatcher: mocks.dispatcher,
        timeoutMs: 20_000,
      });
      assert.deepEqual(finishedOutputs(result), example.outputs);

      const calls = [...mocks.calls];
      assert.equal(calls.length, example.calls.length, calls.map((call) => `${call.method} ${call.host}${call.path}`).join(', '));
      for (const expected of example.calls) {
        const where = `${expected.method} https://${expected.host}${expected.path}`;
        const call = calls.find(
          (candidate) => candidate.host === expected.host && candidate.path === expected.path && candidate.method === expected.method,
        );
        assert.ok(call, `${where} was called`);
        assert.ok(call.status < 300, `${where} answered ${call.status}: ${call.body.toString()}`);
        assertCredential(call, expected.credential, where);
        if (expected.query) assert.deepEqual(call.query, expected.query, `${where}: query`);
        if (expected.json !== undefined) {
          assert.match(String(call.headers['content-type']), /^application\/json/, `${where}: Content-Type`);
          assert.deepEqual(JSON.parse(call.body.toString('utf8')), expected.json, `${where}: body`);
        }
      }
      if (!example.parallel) {
        // A chain: each call starts after the one before it was answered, in the order listed.
        assert.deepEqual(
          calls.map((call) => call.host),
          example.calls.map((call) => call.host),
        );
        for (let index = 1; index < calls.length; index++)
          assert.ok(calls[index]!.receivedAt >= calls[index - 1]!.answeredAt, `call ${index + 1} waited for call ${index}`);
      } else {
        // Every call arrived before any was answered: they ran at the same time.
        assert.ok(
          Math.max(...calls.map((call) => call.receivedAt)) < Math.min(...calls.map((call) => call.answeredAt)),
          'the independent calls overlapped',
        );
      }
    });
  }

  it('sends the file of a file input as the body, with its media type', async () => {
    const agent = loadAgent(readFileSync(join(examplesDir, 'receipt-scanner.agent.yaml'), 'utf8'));
    finishedOutputs(
      await executeAgent(agent, resolveInputs(agent.model, CASES['receipt-scanner.agent.yaml']!.given), {
        secrets: demoSecrets,
        dispatcher: mocks.dispatcher,
      }),
    );
    const upload = mocks.calls.find((call) => call.host === 'ocr.example.com');
    assert.ok(upload);
    assert.equal(upload.headers['content-type'], 'application/pdf');
    assert.ok(upload.body.equals(readFileSync(receiptFile)), 'the bytes of examples/files/receipt.pdf');
  });

  it('fails when a credential is wrong: the mock APIs check it (401), and the secret stays out of the error', async () => {
    const agent = loadAgent(readFileSync(join(examplesDir, 'weather-report.agent.yaml'), 'utf8'));
    const result = await executeAgent(agent, resolveInputs(agent.model, { values: { city: 'Lisbon' } }), {
      secrets: async (name) => (name === 'WEATHER_API_KEY' ? 'not-the-weather-key' : undefined),
      dispatcher: mocks.dispatcher,
    });
    assert.equal(result.status, 'failed');
    assert.match(
      result.status === 'failed' ? result.error.message : '',
      /Node "current" failed: GET https:\/\/weather\.example\.com\/v1\/current answered 401/,
    );
    assert.doesNotMatch(JSON.stringify(result), /not-the-weather-key/);
    assert.equal(mocks.calls[0]?.credential, undefined);
  });
});
