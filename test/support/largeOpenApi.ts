// A large OpenAPI 3.0 document, about `targetBytes` as JSON: paths with parameters, bodies and
// answers that refer to schemas that refer to each other (a long chain with a cycle, as real
// descriptions have). For the import's tests and benchmark.
export function largeOpenApi(targetBytes: number): Record<string, unknown> {
  // About 790 bytes of JSON per operation pair and schema: enough of them to reach the size.
  const count = Math.max(10, Math.round(targetBytes / 790));
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    schemas[`Thing${i}`] = {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string', description: `The name of thing ${i}, as people call it.` },
        parent: { $ref: `#/components/schemas/Thing${(i + 1) % count}` },
        tags: { type: 'array', items: { $ref: '#/components/schemas/Thing0' } },
      },
    };
    paths[`/things${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        tags: [`group${i % 40}`],
        summary: `Get thing ${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The thing', content: { 'application/json': { schema: { $ref: `#/components/schemas/Thing${i}` } } } },
        },
      },
      post: {
        operationId: `updateThing${i}`,
        tags: [`group${i % 40}`],
        requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/Thing${i}` } } } },
        responses: { '200': { description: 'Updated' } },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Large API', version: '1.0.0' },
    servers: [{ url: 'https://large.example.com/v1' }],
    security: [{ token: [] }],
    paths,
    components: { schemas, securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
  };
}
