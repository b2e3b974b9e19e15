// OpenAPI in: the operations listed, an operation as a node that validates (method, server and
// path, parameters as typed inputs, Accept and Content-Type, a body skeleton, the security scheme in
// the service's form), broken documents said with where, and the command line on files and URLs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiNodeFromOperation, findOperation, OpenApiError, operationsByTag, readOpenApi } from '../../src/core/import/openApi';
import type { OpenApiDocument, OpenApiOperation } from '../../src/core/import/openApi';
import type { ImportedApiNode } from '../../src/core/import/apiNodeFromCurl';
import { importedNodeYaml } from '../../src/core/import/nodeYaml';
import { validateAgentText } from '../../src/core/validation/validate';
import { runCliCaptured } from '../support/cli';
import { startServer } from '../support/httpServer';
import { largeOpenApi } from '../support/largeOpenApi';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';

const FIXTURES = join(repoRoot, 'test', 'fixtures', 'openapi');

function fixture(name: string): OpenApiDocument {
  return readOpenApi(readFileSync(join(FIXTURES, name), 'utf8'));
}

async function node(document: OpenApiDocument, operation: string): Promise<ImportedApiNode> {
  const found = findOperation(document, operation);
  assert.ok(found, `operation ${operation}`);
  return apiNodeFromOperation(document, found);
}

function agentAround(imported: ImportedApiNode): string {
  return `version: 1\nname: Imported\n${importedNodeYaml(imported)}outputs:\n  result: { from: "{{ nodes.${imported.id}.body }}" }\n`;
}

/** A document whose one operation, POST /a, takes a body of the schema named `bodySchema`. */
function bodyDocument(bodySchema: string, schemas: Record<string, unknown>): OpenApiDocument {
  return readOpenApi(
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'Bodies', version: '1' },
      servers: [{ url: 'https://bodies.example.com' }],
      paths: {
        '/a': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${bodySchema}` } } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
      components: { schemas },
    }),
  );
}

function openApiError(work: () => unknown): OpenApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof OpenApiError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('OpenAPI import', () => {
  it('lists the operations of a 3.0 document with their tags, ids and summaries', () => {
    const document = fixture('petstore-3.0.yaml');
    assert.equal(document.version, 'openapi-3.0');
    assert.deepEqual(
      document.operations.map(
        (operation) => `${operation.key} ${operation.operationId} [${operation.tags.join(',')}] ${operation.summary}`,
      ),
      [
        'GET /pets listPets [pets] List all pets',
        'POST /pets createPet [pets] Create a pet',
        'GET /pets/{petId} showPetById [pets] Info for a specific pet',
        'DELETE /pets/{petId} deletePet [admin] Delete a pet',
      ],
    );
  });

  it('makes an operation a node: server with its variables, typed inputs, the key in the query of a GET', async () => {
    const imported = await node(fixture('petstore-3.0.yaml'), 'listPets');
    assert.equal(imported.id, 'list_pets');
    assert.deepEqual(imported.node, {
      type: 'api',
      method: 'GET',
      url: 'https://eu.petstore.example.com/v1/pets?status={{ inputs.status }}&api_key={{ secrets.API_KEY }}',
      settings: ['Accept: application/json'],
    });
    assert.deepEqual(imported.inputs, [
      {
        name: 'status',
        type: 'string',
        required: true,
        enum: ['available', 'pending', 'sold'],
        description: 'The status of the pets to list',
      },
    ]);
    assert.deepEqual(imported.secrets, [{ name: 'API_KEY', from: 'security scheme api_key' }]);
  });

  it('resolves $refs: path-level parameters, a body from allOf and required properties, Bearer and Basic', async () => {
    const document = fixture('petstore-3.0.yaml');
    const create = await node(document, 'POST /pets');
    assert.deepEqual(create.node.settings, [
      'Authorization: Bearer {{ secrets.BEARER_AUTH }}',
      'Accept: application/json',
      'Content-Type: application/json',
    ]);
    assert.deepEqual(create.node.body, { name: '', owner: { email: '' } });
    const show = await node(document, 'showPetById');
    assert.equal(show.node.url, 'https://eu.petstore.example.com/v1/pets/{{ inputs.petId }}?api_key={{ secrets.API_KEY }}');
    assert.equal(show.inputs[0]?.description, 'The id of the pet to retrieve');
    const remove = await node(document, 'delete /PETS/{petId}');
    assert.deepEqual(remove.node.settings, ['Authorization: Basic {{ secrets.BASIC_AUTH }}']);
  });

  it('reads Swagger 2.0: host and basePath, a body parameter with its example, a required header as an input', async () => {
    const document = fixture('store-swagger-2.0.json');
    assert.equal(document.version, 'swagger-2.0');
    const get = await node(document, 'getOrder');
    assert.equal(get.node.url, 'https://store.example.com/api/orders/{{ inputs.orderId }}');
    assert.deepEqual(get.node.settings, ['X-Store-Key: {{ secrets.STORE_KEY }}', 'Accept: application/json']);
    assert.equal(get.inputs[0]?.type, 'number');
    const place = await node(document, 'placeOrder');
    assert.deepEqual(place.node.body, { item: '', quantity: 2 });
    assert.ok(place.node.settings?.includes('X-Request-Id: {{ inputs.X_Request_Id }}'));
    assert.ok(place.node.settings?.includes('Authorization: Basic {{ secrets.STORE_BASIC }}'));
  });

  it("maps every security scheme type to the service's forms, and says what it cannot", async () => {
    const document = fixture('security-schemes-3.1.yaml');
    const auth = async (operation: string): Promise<string> => {
      const imported = await node(document, operation);
      return [imported.node.url.replace('https://secure.example.com', ''), ...(imported.node.settings ?? [])].join(' | ');
    };
    assert.equal(await auth('withBearer'), '/bearer | Authorization: Bearer {{ secrets.BEARER }}');
    assert.equal(await auth('withBasic'), '/basic | Authorization: Basic {{ secrets.BASIC }}');
    assert.equal(await auth('withHeaderKey'), '/header-key | X-API-Key: {{ secrets.HEADER_KEY }}');
    assert.equal(await auth('withQueryKey'), '/query-key?api_key={{ secrets.QUERY_KEY }}');
    assert.equal(await auth('postWithQueryKey'), '/query-key | x-api-key: {{ secrets.QUERY_KEY }}');
    assert.equal(await auth('withCookieKey'), '/cookie-key | Cookie: session={{ secrets.COOKIE_KEY }}');
    assert.equal(await auth('withOauth'), '/oauth | Authorization: Bearer {{ secrets.OAUTH }}');
    assert.equal(await auth('withOidc'), '/oidc | Authorization: Bearer {{ secrets.OIDC }}');
    assert.match(JSON.stringify((await node(document, 'withOauth')).notes), /get the token elsewhere/);
    assert.match(JSON.stringify((await node(document, 'withMutualTls')).notes), /mtls \(mutualTLS\) has no form/);
    assert.match(JSON.stringify((await node(document, 'withDigest')).notes), /digest \(http digest\) has no form/);
  });

  it('writes nodes that validate with no problem, for every operation of every fixture', async () => {
    for (const name of ['petstore-3.0.yaml', 'store-swagger-2.0.json', 'security-schemes-3.1.yaml']) {
      const document = fixture(name);
      for (const operation of document.operations) {
        const text = agentAround(await apiNodeFromOperation(document, operation));
        assert.deepEqual(
          validateAgentText(text).problems.map((problem) => `${problem.code}: ${problem.message}`),
          [],
          `${name} ${operation.key}\n${text}`,
        );
      }
    }
  });

  it('says where a document is broken', async () => {
    assert.match(
      openApiError(() => readOpenApi('openapi: 3.0.0\npaths:\n  /a: [1\n  b: 2\n')).message,
      /not valid YAML.*\(line \d+, column \d+\)/,
    );
    assert.match(openApiError(() => readOpenApi('{"openapi": "3.0.0", ')).message, /not valid JSON/);
    assert.match(openApiError(() => readOpenApi('info: { title: x }\npaths: {}\n')).message, /neither "openapi: 3.x" nor "swagger/);
    assert.match(openApiError(() => readOpenApi('openapi: 3.0.0\ninfo: { title: x }\n')).message, /has no "paths".*\(#\/paths\)/);
    assert.match(openApiError(() => readOpenApi('openapi: 4.0.0\npaths: {}\n')).message, /OpenAPI 4\.0\.0 is not read here/);
    const missing = readOpenApi(
      'openapi: 3.0.0\ninfo: { title: x, version: "1" }\npaths:\n  /a:\n    get:\n      parameters: [{ $ref: "#/components/parameters/Nope" }]\n      responses: {}\n',
    );
    await assert.rejects(
      apiNodeFromOperation(missing, missing.operations[0]!),
      /refers to something the document does not have \(#\/components\/parameters\/Nope\)/,
    );
    const external = readOpenApi(
      'openapi: 3.0.0\ninfo: { title: x, version: "1" }\npaths:\n  /a:\n    get:\n      parameters: [{ $ref: "/etc/passwd#/x" }]\n      responses: {}\n',
    );
    await assert.rejects(
      apiNodeFromOperation(external, external.operations[0]!),
      /refers to another document \(\/etc\/passwd#\/x\), which is not read/,
    );
  });

  it('groups the operations by their first tag, in the order tags appear, the untagged last', () => {
    const operation = (key: string, ...tags: string[]): OpenApiOperation => ({ key, method: 'GET', path: key, tags, deprecated: false });
    const groups = operationsByTag([operation('a'), operation('b', 'pets'), operation('c', 'admin', 'pets'), operation('d', 'pets')]);
    assert.deepEqual(
      groups.map((group) => [group.tag, group.operations.map((each) => each.key)]),
      [
        ['pets', ['b', 'd']],
        ['admin', ['c']],
        [undefined, ['a']],
      ],
    );
    // One group of 50,000: adding each to a copy of the group took minutes (a 2 MB document can
    // list that many operations, untagged).
    const untagged = Array.from({ length: 50_000 }, (_, index) => operation(`GET /items${index}`));
    const [only, ...others] = operationsByTag(untagged);
    assert.deepEqual(others, []);
    assert.equal(only?.tag, undefined);
    assert.equal(only?.operations.length, 50_000);
    assert.equal(only?.operations[49_999], untagged[49_999]);
  });

  it('lists a 10 MB document and makes a node from it, its schema graph a cycle', async () => {
    const text = JSON.stringify(largeOpenApi(10 * 1024 * 1024));
    assert.ok(text.length > 9 * 1024 * 1024);
    const document = readOpenApi(text);
    assert.ok(document.operations.length > 20_000);
    const imported = await node(document, 'updateThing100');
    assert.deepEqual(imported.node.body, { id: 0, name: '' });
  });

  it('writes a schema that requires itself, 30 times over, as a small body that validates', async () => {
    const names = Array.from({ length: 30 }, (_, index) => `p${index}`);
    const self = { $ref: '#/components/schemas/A' };
    const document = bodyDocument('A', {
      A: { type: 'object', required: names, properties: Object.fromEntries(names.map((name) => [name, self])) },
    });
    const imported = await node(document, 'POST /a');
    // Every property is the schema again: each is written empty rather than 30^7 times expanded.
    assert.deepEqual(imported.node.body, Object.fromEntries(names.map((name) => [name, {}])));
    assert.ok(JSON.stringify(imported.node.body).length < 300);
    assert.deepEqual(validateAgentText(agentAround(imported)).problems, []);
  });

  it('cuts a cycle through another schema where it comes back, A -> B -> A', async () => {
    const document = bodyDocument('A', {
      A: { type: 'object', required: ['b'], properties: { b: { $ref: '#/components/schemas/B' } } },
      B: {
        type: 'object',
        required: ['a', 'name'],
        properties: { a: { $ref: '#/components/schemas/A' }, name: { type: 'string' } },
      },
    });
    const imported = await node(document, 'POST /a');
    assert.deepEqual(imported.node.body, { b: { a: {}, name: '' } });
    assert.deepEqual(imported.notes, []);
  });

  it('cuts a body of too many values short, and says so naming the schema', async () => {
    const names = Array.from({ length: 2000 }, (_, index) => `p${index}`);
    const wide = await node(
      bodyDocument('Wide', {
        Wide: {
          type: 'object',
          required: names,
          properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
        },
      }),
      'POST /a',
    );
    const kept = Object.keys(wide.node.body as object);
    assert.ok(kept.length > 100 && kept.length < 1000, `${kept.length} properties`);
    assert.deepEqual(kept, names.slice(0, kept.length));
    assert.match(JSON.stringify(wide.notes), /example body is cut short.*schema Wide/);
    assert.deepEqual(validateAgentText(agentAround(wide)).problems, []);
    // No cycle, but ten of the next level at each of seven levels: 10^7 values uncut.
    const level = (index: number): Record<string, unknown> => ({
      type: 'object',
      required: names.slice(0, 10),
      properties: Object.fromEntries(
        names.slice(0, 10).map((name) => [name, index < 7 ? { $ref: `#/components/schemas/L${index + 1}` } : { type: 'integer' }]),
      ),
    });
    const layered = await node(
      bodyDocument('L0', Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`L${index}`, level(index)]))),
      'POST /a',
    );
    assert.ok(JSON.stringify(layered.node.body).length < 20_000);
    assert.match(JSON.stringify(layered.notes), /example body is cut short.*schema L\d/);
  });
});

describe('agent-workflows import openapi', () => {
  it('lists the operations by tag, and prints one as a node naming its secrets', async () => {
    const file = join(FIXTURES, 'petstore-3.0.yaml');
    const list = await runCliCaptured(['import', 'openapi', file, '--list'], { cwd: process.cwd(), env: {} });
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      /^admin\n {2}DELETE \/pets\/\{petId\} +deletePet +Delete a pet\npets\n {2}GET \/pets +listPets +List all pets\n/,
    );
    const one = await runCliCaptured(['import', 'openapi', file, '--operation', 'createPet'], { cwd: process.cwd(), env: {} });
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^nodes:\n {2}create_pet:\n {4}type: api\n {4}method: POST\n/);
    assert.match(one.stderr, /secret BEARER_AUTH: set it \(the command line reads AGENT_SECRET_BEARER_AUTH\)/);
    const none = await runCliCaptured(['import', 'openapi', file, '--operation', 'nope'], { cwd: process.cwd(), env: {} });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /has no operation "nope"\. --list shows them/);
  });

  it('lists the operations of a document far larger than an agent file (a 10 MB one)', async () => {
    const dir = makeTempDir();
    try {
      const file = dir.write('large.json', JSON.stringify(largeOpenApi(10 * 1024 * 1024)));
      const list = await runCliCaptured(['import', 'openapi', file, '--list'], { cwd: process.cwd(), env: {} });
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /updateThing100/);
    } finally {
      dir.remove();
    }
  });

  it('lists a document of 200,000 operations', async () => {
    const dir = makeTempDir();
    try {
      // Written as text: an object of 200,000 keys takes seconds to build.
      const paths = Array.from({ length: 200_000 }, (_, index) => `"/items/${index}":{"get":{"tags":["tag${index % 1000}"]}}`);
      const file = dir.write('many.json', `{"openapi":"3.0.3","info":{"title":"Many","version":"1"},"paths":{${paths.join(',')}}}`);
      const list = await runCliCaptured(['import', 'openapi', file, '--list'], { cwd: process.cwd(), env: {} });
      assert.equal(list.code, 0, list.stderr);
      // A line per tag and per operation.
      assert.equal(list.stdout.split('\n').length - 1, 1000 + 200_000);
      assert.match(list.stdout, /^tag0\n {2}GET \/items\/0\n {2}GET \/items\/1000\n/);
    } finally {
      dir.remove();
    }
  });

  it('reads a document from a URL, a relative server resolved against it', async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/yaml' });
      response.end(
        'openapi: 3.0.0\ninfo: { title: Served, version: "1" }\nservers: [{ url: /api }]\npaths:\n  /ping: { get: { operationId: ping, responses: { "200": { description: ok } } } }\n',
      );
    });
    try {
      const result = await runCliCaptured(['import', 'openapi', `${server.url}/openapi.yaml`], { cwd: process.cwd(), env: {} });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`url: ${server.url}/api/ping\\n`));
    } finally {
      await server.close();
    }
  });
});
