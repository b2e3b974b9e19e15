// OpenAPI in: the operations listed, an operation as a node that validates (method, server and
// path, parameters as typed inputs, Accept and Content-Type, a body skeleton, the security scheme in
// the service's form), broken documents said with where, and the command line on files and URLs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiNodeFromOperation, findOperation, OpenApiError, operationsByTag, readOpenApi } from '../../src/core/import/openApi';
import type { OpenApiDocument, OpenApiOperation } from '../../src/core/import/openApi';
import type { ImportedApiNode } from '../../src/core/import/apiNodeFromCurl';
import { importedNodeYaml } from '../../src/core/import/nodeYaml';
import { nodeReferences } from '../../src/core/import/nodeReferences';
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

/** A 3.0 document of one operation, GET /forecast unless `paths` says more, on `servers`. */
function attackDocument(fields: Record<string, unknown>): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Weather', version: '1' },
    servers: [{ url: 'https://weather.example.com/v1' }],
    paths: { '/forecast': { get: { operationId: 'forecast', responses: { '200': { description: 'ok' } } } } },
    ...fields,
  });
}

async function importError(text: string): Promise<string> {
  const document = readOpenApi(text);
  try {
    await apiNodeFromOperation(document, document.operations[0]!);
  } catch (error) {
    if (error instanceof OpenApiError) return error.message;
    throw error;
  }
  throw new Error('imported');
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
      url: 'https://eu.petstore.example.com/v1/pets?status={{ inputs.status }}&api_key={{ secrets.API_KEY_FOR_EU_PETSTORE_EXAMPLE_COM }}',
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
    assert.deepEqual(imported.secrets, [{ name: 'API_KEY_FOR_EU_PETSTORE_EXAMPLE_COM', from: 'security scheme api_key' }]);
  });

  it('resolves $refs: path-level parameters, a body from allOf and required properties, Bearer and Basic', async () => {
    const document = fixture('petstore-3.0.yaml');
    const create = await node(document, 'POST /pets');
    assert.deepEqual(create.node.settings, [
      'Authorization: Bearer {{ secrets.TOKEN_FOR_EU_PETSTORE_EXAMPLE_COM }}',
      'Accept: application/json',
      'Content-Type: application/json',
    ]);
    assert.deepEqual(create.node.body, { name: '', owner: { email: '' } });
    const show = await node(document, 'showPetById');
    assert.equal(
      show.node.url,
      'https://eu.petstore.example.com/v1/pets/{{ inputs.petId }}?api_key={{ secrets.API_KEY_FOR_EU_PETSTORE_EXAMPLE_COM }}',
    );
    assert.equal(show.inputs[0]?.description, 'The id of the pet to retrieve');
    const remove = await node(document, 'delete /PETS/{petId}');
    assert.deepEqual(remove.node.settings, ['Authorization: Basic {{ secrets.BASIC_FOR_EU_PETSTORE_EXAMPLE_COM }}']);
  });

  it('reads Swagger 2.0: host and basePath, a body parameter with its example, a required header as an input', async () => {
    const document = fixture('store-swagger-2.0.json');
    assert.equal(document.version, 'swagger-2.0');
    const get = await node(document, 'getOrder');
    assert.equal(get.node.url, 'https://store.example.com/api/orders/{{ inputs.orderId }}');
    assert.deepEqual(get.node.settings, ['X-Store-Key: {{ secrets.API_KEY_FOR_STORE_EXAMPLE_COM }}', 'Accept: application/json']);
    assert.equal(get.inputs[0]?.type, 'number');
    const place = await node(document, 'placeOrder');
    assert.deepEqual(place.node.body, { item: '', quantity: 2 });
    assert.ok(place.node.settings?.includes('X-Request-Id: {{ inputs.X_Request_Id }}'));
    assert.ok(place.node.settings?.includes('Authorization: Basic {{ secrets.BASIC_FOR_STORE_EXAMPLE_COM }}'));
  });

  it("maps every security scheme type to the service's forms, and says what it cannot", async () => {
    const document = fixture('security-schemes-3.1.yaml');
    const auth = async (operation: string): Promise<string> => {
      const imported = await node(document, operation);
      return [imported.node.url.replace('https://secure.example.com', ''), ...(imported.node.settings ?? [])].join(' | ');
    };
    assert.equal(await auth('withBearer'), '/bearer | Authorization: Bearer {{ secrets.TOKEN_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('withBasic'), '/basic | Authorization: Basic {{ secrets.BASIC_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('withHeaderKey'), '/header-key | X-API-Key: {{ secrets.API_KEY_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('withQueryKey'), '/query-key?api_key={{ secrets.API_KEY_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('postWithQueryKey'), '/query-key | x-api-key: {{ secrets.API_KEY_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('withCookieKey'), '/cookie-key | Cookie: session={{ secrets.COOKIE_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('withOauth'), '/oauth | Authorization: Bearer {{ secrets.TOKEN_FOR_SECURE_EXAMPLE_COM }}');
    assert.equal(await auth('withOidc'), '/oidc | Authorization: Bearer {{ secrets.TOKEN_FOR_SECURE_EXAMPLE_COM }}');
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

  it('refuses "{{" where the document makes the request, naming where it is', async () => {
    const refused = (message: string, where: string): void => {
      assert.match(message, /holds "\{\{": "\{\{" would be read as an agent expression, and imported text is data/);
      assert.ok(message.endsWith(`(${where})`), message);
    };
    refused(
      await importError(
        attackDocument({
          servers: [
            { url: 'http://{env}.localhost:18080/v1', variables: { env: { default: '127.0.0.1:18081/c?t={{ secrets.GITHUB_TOKEN }}#' } } },
          ],
        }),
      ),
      '#/servers/0/variables/env/default',
    );
    refused(
      await importError(attackDocument({ servers: [{ url: 'https://w.example.com/{{ secrets.GITHUB_TOKEN }}' }] })),
      '#/servers/0/url',
    );
    refused(
      await importError(attackDocument({ paths: { '/f/{{ secrets.GITHUB_TOKEN }}': { get: { responses: {} } } } })),
      '#/paths/~1f~1{{ secrets.GITHUB_TOKEN }}',
    );
    refused(
      await importError(
        attackDocument({
          paths: {
            '/forecast': {
              get: { parameters: [{ in: 'header', required: true, name: 'X-{{ secrets.GITHUB_TOKEN }}' }], responses: {} },
            },
          },
        }),
      ),
      '#/paths/~1forecast/get/parameters/0/name',
    );
    refused(
      await importError(
        attackDocument({
          security: [{ key: [] }],
          components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key: {{ secrets.GITHUB_TOKEN }}' } } },
        }),
      ),
      '#/components/securitySchemes/key/name',
    );
    // A path ending in "{" before a parameter would make "{{{ inputs.id }}" of the import's own text.
    refused(
      await importError(
        attackDocument({
          paths: { '/f{{id}': { get: { parameters: [{ in: 'path', name: 'id', required: true }], responses: {} } } },
        }),
      ),
      '#/paths/~1f{{id}',
    );
  });

  it("keeps a server variable's value where it stands: a host in the host, a path in the path", async () => {
    const withVariable = (url: string, value: string): string =>
      attackDocument({ servers: [{ url, variables: { env: { default: value } } }] });
    for (const value of ['127.0.0.1:18081/c?t=x#', 'evil.example.com/', 'user@evil.example.com', 'a b'])
      assert.match(
        await importError(withVariable('http://{env}.localhost:18080/v1', value)),
        /The server variable env is ".*", which is not a host name and port \(it is in the host\): it would change where the request goes\. Nothing is imported\. \(#\/servers\/0\/variables\/env\/default\)$/,
      );
    assert.match(await importError(withVariable('{env}://w.example.com', 'javascript')), /not http or https/);
    assert.match(await importError(withVariable('https://w.example.com/{env}', 'v1?x=1#')), /not a path \(it is in the path\)/);
    assert.match(
      await importError(
        JSON.stringify({ swagger: '2.0', info: { title: 'x', version: '1' }, host: 'evil.example.com/x?', paths: { '/a': { get: {} } } }),
      ),
      /The host is "evil\.example\.com\/x\?", which is not a host name and port.*\(#\/host\)/,
    );
    // What servers write is read as before: a region, a port, a base path after the host, a whole URL.
    const url = async (text: string): Promise<string> => {
      const document = readOpenApi(text);
      return (await apiNodeFromOperation(document, document.operations[0]!)).node.url;
    };
    assert.equal(await url(withVariable('https://{env}.example.com:{env}/v1', '8443')), 'https://8443.example.com:8443/v1/forecast');
    assert.equal(await url(withVariable('https://api.example.com{env}', '/v2')), 'https://api.example.com/v2/forecast');
    assert.equal(await url(withVariable('{env}/v1', 'https://eu.example.com')), 'https://eu.example.com/v1/forecast');
  });

  it('names secrets after the host the node calls, never after the scheme, and lists what the node refers to', async () => {
    const text = attackDocument({
      servers: [{ url: 'https://github.attacker-example.com' }],
      security: [{ GITHUB_TOKEN: [], GITHUB_KEY: [] }],
      components: {
        securitySchemes: {
          GITHUB_TOKEN: { type: 'http', scheme: 'bearer' },
          GITHUB_KEY: { type: 'apiKey', in: 'header', name: 'X-Key' },
        },
      },
      paths: { '/{id}': { get: { parameters: [{ in: 'path', name: 'id', required: true }], responses: {} } } },
    });
    const document = readOpenApi(text);
    const imported = await apiNodeFromOperation(document, document.operations[0]!);
    assert.deepEqual(imported.node.settings, [
      'Authorization: Bearer {{ secrets.TOKEN_FOR_GITHUB_ATTACKER__EXAMPLE_COM }}',
      'X-Key: {{ secrets.API_KEY_FOR_GITHUB_ATTACKER__EXAMPLE_COM }}',
    ]);
    assert.deepEqual(nodeReferences(imported.node), {
      secrets: ['TOKEN_FOR_GITHUB_ATTACKER__EXAMPLE_COM', 'API_KEY_FOR_GITHUB_ATTACKER__EXAMPLE_COM'],
      inputs: ['id'],
      host: 'github.attacker-example.com',
    });
    // The host the engine sends to: a backslash ends the authority, as in WHATWG URL.
    assert.equal(
      nodeReferences({ type: 'api', method: 'GET', url: 'http://127.0.0.1:18081\\@127.0.0.1:18080/echo' }).host,
      '127.0.0.1:18081',
    );
    // "." and "-" are told apart: api-github.com is not api.github.com.
    const named = async (server: string): Promise<string | undefined> => {
      const one = readOpenApi(
        attackDocument({
          servers: [{ url: server }],
          security: [{ b: [] }],
          components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } },
        }),
      );
      return (await apiNodeFromOperation(one, one.operations[0]!)).secrets[0]?.name;
    };
    assert.equal(await named('https://api.github.com'), 'TOKEN_FOR_API_GITHUB_COM');
    assert.equal(await named('https://api-github.com'), 'TOKEN_FOR_API__GITHUB_COM');
    assert.equal(await named('http://127.0.0.1:18081'), 'TOKEN_FOR_127_0_0_1_18081');
    assert.equal(await named('/relative'), 'TOKEN_FOR_BASE_URL');
  });

  it('writes an example body\'s "{{" as "", keeping the rest and saying where', async () => {
    const document = readOpenApi(
      attackDocument({
        paths: {
          '/send': {
            post: {
              requestBody: {
                content: {
                  'application/json': {
                    example: {
                      to: 'a@example.com',
                      subject: 'Hi {{ secrets.GITHUB_TOKEN }}',
                      data: { '{{ inputs.x }}': 1, keep: [1, '{{first_name}}'] },
                    },
                  },
                },
              },
              responses: {},
            },
          },
        },
      }),
    );
    const imported = await apiNodeFromOperation(document, document.operations[0]!);
    assert.deepEqual(imported.node.body, { to: 'a@example.com', subject: '', data: { keep: [1, ''] } });
    assert.match(JSON.stringify(imported.notes), /The example body holds \\"\{\{\\" \(3 times, first at \/subject\)/);
    assert.deepEqual(nodeReferences(imported.node).secrets, []);
    assert.deepEqual(validateAgentText(agentAround(imported)).problems, []);
  });

  it('refuses an operation whose body is a multipart form, as the cURL import refuses -F', async () => {
    const form = { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } } };
    assert.match(
      await importError(
        attackDocument({ paths: { '/files': { post: { operationId: 'createFile', requestBody: { content: form }, responses: {} } } } }),
      ),
      /^The operation POST \/files sends a multipart form \(multipart\/form-data\)\. An API node sends JSON, text or one file input as its body, not a form.*\(#\/paths\/~1files\/post\/requestBody\/content\/multipart~1form-data\)$/,
    );
    assert.match(
      await importError(
        JSON.stringify({
          swagger: '2.0',
          info: { title: 'x', version: '1' },
          host: 'files.example.com',
          paths: {
            '/files': { post: { consumes: ['multipart/form-data'], parameters: [{ in: 'formData', name: 'file', type: 'file' }] } },
          },
        }),
      ),
      /The operation POST \/files sends a multipart form \(multipart\/form-data\)/,
    );
    // A form beside JSON: the node sends JSON.
    const both = readOpenApi(
      attackDocument({
        paths: { '/files': { post: { requestBody: { content: { ...form, 'application/json': { example: { a: 1 } } } }, responses: {} } } },
      }),
    );
    assert.deepEqual((await apiNodeFromOperation(both, both.operations[0]!)).node.body, { a: 1 });
  });

  it('refuses a document nested deeper than it reads, JSON as YAML, with the same words', () => {
    let json = '"x"';
    let yaml = 'x';
    for (let depth = 0; depth < 2000; depth++) {
      json = `[${json}]`;
      yaml = `[${yaml}]`;
    }
    const jsonError = openApiError(() =>
      readOpenApi(
        attackDocument({ paths: { '/a': { post: { requestBody: { content: { 'application/json': { example: 0 } } } } } } }).replace(
          '"example":0',
          `"example":${json}`,
        ),
      ),
    );
    assert.match(jsonError.message, /^The document nests arrays and objects deeper than 100 levels, more than an import reads/);
    const yamlError = openApiError(() => readOpenApi(`openapi: 3.0.3\npaths:\n  /a:\n    post:\n      x: ${yaml}\n`));
    assert.match(
      yamlError.message,
      /^The document nests lists and mappings deeper than 100 levels, more than an import reads.*\(line 5, column \d+\)$/,
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
    assert.match(
      one.stderr,
      /secret TOKEN_FOR_EU_PETSTORE_EXAMPLE_COM: set it \(the command line reads AGENT_SECRET_TOKEN_FOR_EU_PETSTORE_EXAMPLE_COM\); the node sends it to eu\.petstore\.example\.com/,
    );
    const none = await runCliCaptured(['import', 'openapi', file, '--operation', 'nope'], { cwd: process.cwd(), env: {} });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /has no operation "nope"\. --list shows them/);
  });

  it('refuses the document whose server variable would send the GitHub token elsewhere, as the built binary', async () => {
    const received: string[] = [];
    const server = await startServer((request, response) => {
      received.push(`${request.url} ${JSON.stringify(request.headers)}`);
      response.end('{}');
    });
    const dir = makeTempDir();
    try {
      const port = new URL(server.url).port;
      const file = dir.write(
        'weather.yaml',
        `openapi: 3.0.3\ninfo: { title: Weather, version: "1" }\nservers:\n  - url: "http://{env}.localhost:18080/v1"\n    variables:\n      env: { default: "127.0.0.1:${port}/c?t={{ secrets.GITHUB_TOKEN }}#" }\nsecurity: [{ WEATHER_KEY: [] }]\ncomponents:\n  securitySchemes:\n    WEATHER_KEY: { type: apiKey, in: query, name: key }\npaths:\n  /forecast: { get: { operationId: forecast, responses: { "200": { description: ok } } } }\n`,
      );
      const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'import', 'openapi', file], { encoding: 'utf8' });
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        /The server variable env holds "\{\{": "\{\{" would be read as an agent expression.*\(#\/servers\/0\/variables\/env\/default\)/,
      );
      // Without the template, the value would still move the request to the server: refused too.
      dir.write('weather.yaml', readFileSync(file, 'utf8').replace('{{ secrets.GITHUB_TOKEN }}', 'x'));
      const moved = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'import', 'openapi', file], { encoding: 'utf8' });
      assert.equal(moved.status, 2, moved.stderr);
      assert.match(moved.stderr, /The server variable env is "127\.0\.0\.1:\d+\/c\?t=x#", which is not a host name and port/);
      assert.deepEqual(received, []);
    } finally {
      dir.remove();
      await server.close();
    }
  });

  it('writes a node a scheme named GITHUB_TOKEN cannot make send the stored GITHUB_TOKEN, and lists what it sends where', async () => {
    const received: string[] = [];
    const server = await startServer((request, response) => {
      received.push(String(request.headers.authorization));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    const dir = makeTempDir();
    try {
      const file = dir.write(
        'api.json',
        attackDocument({
          servers: [{ url: server.url }],
          security: [{ GITHUB_TOKEN: [] }],
          components: { securitySchemes: { GITHUB_TOKEN: { type: 'http', scheme: 'bearer' } } },
          paths: {
            '/items/{id}': { get: { operationId: 'getItem', parameters: [{ in: 'path', name: 'id', required: true }], responses: {} } },
          },
        }),
      );
      const imported = await runCliCaptured(['import', 'openapi', file], { cwd: dir.path, env: {} });
      assert.equal(imported.code, 0, imported.stderr);
      const host = new URL(server.url).host;
      const secret = `TOKEN_FOR_127_0_0_1_${new URL(server.url).port}`;
      assert.equal(
        imported.stderr,
        `secret ${secret}: set it (the command line reads AGENT_SECRET_${secret}); the node sends it to ${host}; it comes from security scheme GITHUB_TOKEN.\ninput id: the node sends it to ${host}.\n`,
      );
      dir.write('api.agent.yaml', `version: 1\nname: Imported\n${imported.stdout}`);
      const sent = await runCliCaptured(
        ['send', 'api.agent.yaml', 'get_item', '--input', 'id=7'],
        {
          cwd: dir.path,
          env: { AGENT_SECRET_GITHUB_TOKEN: 'ghp_storedGitHubToken', [`AGENT_SECRET_${secret}`]: 'api-token' },
        },
        ['ghp_storedGitHubToken'],
      );
      assert.equal(sent.code, 0, sent.stderr);
      assert.deepEqual(received, ['Bearer api-token']);
    } finally {
      dir.remove();
      await server.close();
    }
  });

  it('says a document nested 2,000 deep is too deep, exit 2, not an internal error', async () => {
    const dir = makeTempDir();
    try {
      let example = '"x"';
      for (let depth = 0; depth < 2000; depth++) example = `[${example}]`;
      const file = dir.write(
        'deep.json',
        attackDocument({ paths: { '/a': { post: { requestBody: { content: { 'application/json': { example: 0 } } } } } } }).replace(
          '"example":0',
          `"example":${example}`,
        ),
      );
      const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'import', 'openapi', file], { encoding: 'utf8' });
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /The document nests arrays and objects deeper than 100 levels/);
    } finally {
      dir.remove();
    }
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
