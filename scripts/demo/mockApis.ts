// Stand-ins for the APIs the example agents call (crm.example.com, weather.example.com, …), all on
// one HTTP server on 127.0.0.1, so the demo and the tests run every example with no internet and no
// accounts. The examples keep their real-looking https:// URLs: `dispatcher` connects every request,
// whatever its host, to this server in plain HTTP (undici sends the original Host header), and the
// server tells the APIs apart by that header. Each API checks its credential where the real one would
// look for it (401 when it is missing or wrong), and every call is recorded, so a test can check
// exactly what an agent sent.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';

function basic(user: string, password: string): string {
  return Buffer.from(`${user}:${password}`).toString('base64');
}

/**
 * Made-up values for every secret the examples use; the mock APIs accept exactly these. (Basic
 * secrets hold the Base64 of "user:password", as the real ones must.)
 */
export const DEMO_SECRETS = {
  CRM_TOKEN: 'demo-crm-token-7d41c2',
  CRM_KEY: 'demo-crm-key-52be90',
  BILLING_BASIC: basic('billing-bot', 'demo-billing-pass'),
  SUPPORT_API_KEY: 'demo-support-key-0c8e13',
  LLM_TOKEN: 'demo-llm-token-9a6f27',
  HELPDESK_BASIC: basic('helpdesk-bot', 'demo-helpdesk-pass'),
  WEATHER_API_KEY: 'demo-weather-key-e21d55',
  FX_API_KEY: 'demo-fx-key-38aa70',
  TRACKER_BASIC: basic('dev@example.com', 'demo-tracker-token'),
  OCR_TOKEN: 'demo-ocr-token-b7c019',
  EXPENSES_API_KEY: 'demo-expenses-key-64f2d8',
} as const satisfies Readonly<Record<string, string>>;

export type DemoSecretName = keyof typeof DEMO_SECRETS;

/** Where an API expects its credential: the four authorization methods of the generic API node. */
export type CredentialRule =
  | { readonly kind: 'bearer'; readonly secret: DemoSecretName }
  | { readonly kind: 'basic'; readonly secret: DemoSecretName }
  | { readonly kind: 'x-api-key'; readonly secret: DemoSecretName }
  | { readonly kind: 'api_key'; readonly secret: DemoSecretName };

/** One request a mock API received. */
export interface MockCall {
  readonly method: string;
  /** The Host header: which API was called. */
  readonly host: string;
  /** The path, without the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The rule whose secret the request carried, or undefined when it carried none of the expected ones. */
  readonly credential?: CredentialRule;
  readonly status: number;
  /** performance.now() when the request arrived and when it was answered. */
  readonly receivedAt: number;
  readonly answeredAt: number;
}

export interface MockApis {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Sends every request, whatever its URL's host, to the mock server. */
  readonly dispatcher: Dispatcher;
  /** The hosts the mock server answers for. */
  readonly hosts: readonly string[];
  readonly calls: readonly MockCall[];
  close(): Promise<void>;
}

export interface MockApiOptions {
  /** Answer each request after this long, like a real API over the network (default 0). */
  readonly latencyMs?: number;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

interface Incoming {
  /** The path's captured parts. */
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The body as JSON (undefined when it is not). */
  readonly json: unknown;
}

interface Route {
  readonly host: string;
  readonly method: string;
  readonly path: RegExp;
  /** The request must carry one of these. */
  readonly credentials: readonly CredentialRule[];
  readonly answer: (request: Incoming) => Answer;
}

const CUSTOMERS: Readonly<Record<string, { name: string; email: string; plan: string; since: string }>> = {
  'C-1042': { name: 'Ada Lovelace', email: 'ada@analytical.example', plan: 'enterprise', since: '2019-03-01' },
  'C-2001': { name: 'Grace Hopper', email: 'grace@cobol.example', plan: 'team', since: '2021-09-15' },
};

const INVOICES: Readonly<Record<string, readonly { number: string; amount: number; currency: string; due: string }[]>> = {
  'C-1042': [
    { number: 'INV-2025-118', amount: 1200, currency: 'EUR', due: '2025-07-31' },
    { number: 'INV-2025-131', amount: 340.5, currency: 'EUR', due: '2025-08-15' },
  ],
};

const TICKETS: Readonly<Record<string, readonly { id: string; subject: string; status: string }[]>> = {
  'C-1042': [
    { id: 'T-881', subject: 'CSV export times out', status: 'open' },
    { id: 'T-897', subject: 'Invite link expired', status: 'open' },
    { id: 'T-902', subject: 'Dark mode request', status: 'pending' },
  ],
};

/** Weather by city, in °C. */
const WEATHER: Readonly<Record<string, { summary: string; celsius: number }>> = {
  lisbon: { summary: 'Sunny', celsius: 24 },
  oslo: { summary: 'Light rain', celsius: 12 },
  tokyo: { summary: 'Humid and cloudy', celsius: 28 },
};

/** Units of each currency per euro, on RATES_DATE. */
const RATES: Readonly<Record<string, number>> = { EUR: 1, USD: 1.08, GBP: 0.85, CHF: 0.96, JPY: 169.2 };
const RATES_DATE = '2025-06-30';

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
const error = (status: number, message: string): Answer => ({ status, body: { error: message } });

const ROUTES: readonly Route[] = [
  {
    host: 'crm.example.com',
    method: 'GET',
    path: /^\/v2\/customers\/([^/]+)$/,
    // The CRM takes an OAuth token (customer-360) or its API key in the query (ticket-summarizer).
    credentials: [
      { kind: 'bearer', secret: 'CRM_TOKEN' },
      { kind: 'api_key', secret: 'CRM_KEY' },
    ],
    answer: ({ params }) => {
      const id = decodeURIComponent(params[0]!);
      const customer = CUSTOMERS[id];
      return customer ? { status: 200, body: { id, ...customer } } : error(404, `No customer ${id}.`);
    },
  },
  {
    host: 'billing.example.com',
    method: 'POST',
    path: /^\/api\/invoices\/search$/,
    credentials: [{ kind: 'basic', secret: 'BILLING_BASIC' }],
    answer: ({ json }) => {
      const { customer, status } = (json ?? {}) as { customer?: unknown; status?: unknown };
      if (typeof customer !== 'string') return error(400, 'Give "customer" in the JSON body.');
      const items = status === 'open' || status === undefined ? (INVOICES[customer] ?? []) : [];
      return { status: 200, body: { count: items.length, items } };
    },
  },
  {
    host: 'support.example.com',
    method: 'GET',
    path: /^\/api\/tickets$/,
    credentials: [{ kind: 'api_key', secret: 'SUPPORT_API_KEY' }],
    answer: ({ query }) => {
      const items = TICKETS[query.get('customer') ?? ''] ?? [];
      return { status: 200, body: { total: items.length, items } };
    },
  },
  {
    host: 'llm.example.com',
    method: 'POST',
    path: /^\/v1\/summarize$/,
    credentials: [{ kind: 'bearer', secret: 'LLM_TOKEN' }],
    answer: ({ json }) => {
      const { text, priority, customer } = (json ?? {}) as { text?: unknown; priority?: unknown; customer?: unknown };
      if (typeof text !== 'string' || text.trim() === '') return error(400, 'Give the "text" to summarize.');
      // Not a language model: the first sentence stands in for a summary.
      const first = text
        .trim()
        .split(/(?<=[.!?])\s/)[0]!
        .replace(/[.!?]$/, '');
      const who = typeof customer === 'string' && customer !== '' ? customer : 'A customer';
      return {
        status: 200,
        body: { summary: `${who} reports: ${first} (priority ${String(priority ?? 'normal')}).`, model: 'demo-summarizer-1' },
      };
    },
  },
  {
    host: 'helpdesk.example.com',
    method: 'POST',
    path: /^\/api\/tickets$/,
    credentials: [{ kind: 'basic', secret: 'HELPDESK_BASIC' }],
    answer: ({ json }) => {
      const { title } = (json ?? {}) as { title?: unknown };
      if (typeof title !== 'string') return error(400, 'Give the ticket\'s "title".');
      return { status: 201, body: { id: 4711, title }, headers: { location: 'https://helpdesk.example.com/tickets/4711' } };
    },
  },
  {
    host: 'weather.example.com',
    method: 'GET',
    path: /^\/v1\/current$/,
    credentials: [{ kind: 'x-api-key', secret: 'WEATHER_API_KEY' }],
    answer: ({ query }) => {
      const city = query.get('city') ?? '';
      const weather = WEATHER[city.trim().toLowerCase()];
      if (!weather) return error(404, `No weather station for "${city}"; try ${Object.keys(WEATHER).join(', ')}.`);
      const imperial = query.get('units') === 'imperial';
      return {
        status: 200,
        body: { city, summary: weather.summary, temperature: imperial ? Math.round((weather.celsius * 9) / 5 + 32) : weather.celsius },
      };
    },
  },
  {
    host: 'fx.example.com',
    method: 'GET',
    path: /^\/v1\/convert$/,
    credentials: [{ kind: 'api_key', secret: 'FX_API_KEY' }],
    answer: ({ query }) => {
      const from = (query.get('from') ?? '').toUpperCase();
      const to = (query.get('to') ?? '').toUpperCase();
      const amount = Number(query.get('amount'));
      const fromRate = RATES[from];
      const toRate = RATES[to];
      if (fromRate === undefined || toRate === undefined) return error(400, `Unknown currency; known: ${Object.keys(RATES).join(', ')}.`);
      if (!Number.isFinite(amount)) return error(400, '"amount" must be a number.');
      const rate = round(toRate / fromRate, 4);
      return { status: 200, body: { from, to, amount, rate, result: round(amount * rate, 2), date: RATES_DATE } };
    },
  },
  {
    host: 'tracker.example.com',
    method: 'POST',
    path: /^\/rest\/api\/2\/issue$/,
    credentials: [{ kind: 'basic', secret: 'TRACKER_BASIC' }],
    answer: ({ json }) => {
      const fields = ((json ?? {}) as { fields?: { project?: { key?: unknown }; summary?: unknown } }).fields;
      const project = fields?.project?.key;
      if (typeof project !== 'string' || !/^[A-Z][A-Z0-9]*$/.test(project))
        return error(400, 'fields.project.key must be a project key such as WEB.');
      if (typeof fields?.summary !== 'string' || fields.summary.trim() === '') return error(400, 'fields.summary is required.');
      return { status: 201, body: { id: '10042', key: `${project}-42`, self: 'https://tracker.example.com/rest/api/2/issue/10042' } };
    },
  },
  {
    host: 'ocr.example.com',
    method: 'POST',
    path: /^\/v1\/receipts$/,
    credentials: [{ kind: 'bearer', secret: 'OCR_TOKEN' }],
    answer: ({ headers, body }) => {
      const type = (headers['content-type'] ?? '').split(';')[0]!.trim();
      if (type !== 'application/pdf' && !type.startsWith('image/'))
        return error(415, `Send a PDF or an image, not ${type || 'no Content-Type'}.`);
      const receipt = readReceipt(body);
      if (!receipt) return error(422, 'No receipt text found in the file.');
      return { status: 200, body: { ...receipt, media_type: type, bytes: body.length } };
    },
  },
  {
    host: 'expenses.example.com',
    method: 'POST',
    path: /^\/api\/claims$/,
    credentials: [{ kind: 'x-api-key', secret: 'EXPENSES_API_KEY' }],
    answer: ({ json }) => {
      const claim = (json ?? {}) as { employee?: unknown; amount?: unknown; currency?: unknown };
      if (typeof claim.employee !== 'string' || typeof claim.amount !== 'number')
        return error(400, 'A claim needs "employee" and a numeric "amount".');
      return {
        status: 201,
        body: { id: 'EXP-2025-0193', status: 'submitted', employee: claim.employee, amount: claim.amount, currency: claim.currency },
      };
    },
  },
];

/**
 * Not OCR: reads the text lines of a simple PDF (the strings shown with Tj), enough for
 * examples/files/receipt.pdf. The first line is the merchant; a date and a "TOTAL <currency>
 * <amount>" line give the rest.
 */
function readReceipt(file: Buffer): { merchant: string; date: string; total: number; currency: string } | undefined {
  const lines = [...file.toString('latin1').matchAll(/\(((?:[^()\\]|\\.)*)\)\s*Tj/g)]
    .map((match) => match[1]!.trim())
    .filter((line) => line !== '');
  const date = lines.join('\n').match(/\b(\d{4}-\d{2}-\d{2})\b/)?.[1];
  const total = lines.join('\n').match(/\bTOTAL\s+([A-Z]{3})\s+(\d+(?:\.\d+)?)/i);
  if (!lines[0] || !date || !total) return undefined;
  return { merchant: lines[0], date, total: Number(total[2]), currency: total[1]!.toUpperCase() };
}

/** Which rule, if any, the request satisfies; each method is looked for where the real API looks. */
function credentialOf(rules: readonly CredentialRule[], headers: IncomingHttpHeaders, query: URLSearchParams): CredentialRule | undefined {
  return rules.find((rule) => {
    const secret = DEMO_SECRETS[rule.secret];
    switch (rule.kind) {
      case 'bearer':
        return headers.authorization === `Bearer ${secret}`;
      case 'basic':
        return headers.authorization === `Basic ${secret}`;
      case 'x-api-key':
        return headers['x-api-key'] === secret;
      case 'api_key':
        return query.get('api_key') === secret;
    }
  });
}

/** How a rule's credential is sent, for messages: "Authorization: Bearer <CRM_TOKEN>". */
export function describeCredential(rule: CredentialRule): string {
  switch (rule.kind) {
    case 'bearer':
      return `Authorization: Bearer <${rule.secret}>`;
    case 'basic':
      return `Authorization: Basic <${rule.secret}>`;
    case 'x-api-key':
      return `x-api-key: <${rule.secret}>`;
    case 'api_key':
      return `?api_key=<${rule.secret}>`;
  }
}

export async function startMockApis(options: MockApiOptions = {}): Promise<MockApis> {
  const calls: MockCall[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    const receivedAt = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      const url = new URL(request.url ?? '/', 'http://mock.invalid');
      const route = ROUTES.find((candidate) => candidate.host === host && candidate.path.test(url.pathname));
      const credential = route ? credentialOf(route.credentials, request.headers, url.searchParams) : undefined;
      let answer: Answer;
      if (!route) answer = error(404, `No mock API for ${request.method ?? '?'} ${host}${url.pathname}.`);
      else if (route.method !== request.method) answer = { ...error(405, `Use ${route.method}.`), headers: { allow: route.method } };
      else if (!credential)
        answer = error(401, `Missing or wrong credential: send ${route.credentials.map(describeCredential).join(' or ')}.`);
      else {
        let json: unknown;
        try {
          json = /json/i.test(request.headers['content-type'] ?? '') ? JSON.parse(body.toString('utf8')) : undefined;
        } catch {
          json = undefined;
        }
        answer = route.answer({
          params: url.pathname.match(route.path)!.slice(1),
          query: url.searchParams,
          headers: request.headers,
          body,
          json,
        });
      }
      const send = (): void => {
        timers.delete(timer);
        calls.push({
          method: request.method ?? '',
          host,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: request.headers,
          body,
          ...(credential ? { credential } : {}),
          status: answer.status,
          receivedAt,
          answeredAt: performance.now(),
        });
        reply(response, answer);
      };
      const timer = setTimeout(send, options.latencyMs ?? 0);
      timers.add(timer);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  // Every connection, to any host and port, goes to the mock server. Plain TCP even for https://
  // URLs: undici then speaks HTTP/1.1 over it, with the URL's host in the Host header.
  const dispatcher = new Agent({
    connect: (_target, callback) => {
      const socket = connect(port, '127.0.0.1');
      const onError = (cause: Error): void => callback(cause, null);
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        callback(null, socket);
      });
    },
  });

  return {
    url: `http://127.0.0.1:${port}`,
    dispatcher,
    hosts: [...new Set(ROUTES.map((route) => route.host))],
    calls,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await dispatcher.destroy();
      await new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
    },
  };
}

function reply(response: ServerResponse, answer: Answer): void {
  response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  response.end(JSON.stringify(answer.body));
}
