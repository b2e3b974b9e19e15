// The JSON Schema itself: valid draft-07, documented on every property, and its examples valid.
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { agentSchema } from '../../src/core/validation/schemaCheck';
import { validateAgentText } from '../../src/core/validation/validate';
import { validateTestText } from '../../src/core/testing/testFile';

type SchemaObject = Record<string, unknown>;
const definitions = (agentSchema as SchemaObject).definitions as Record<string, SchemaObject>;

/** Every property schema in the document, with a path for messages. */
function propertySchemas(): Array<{ path: string; schema: SchemaObject }> {
  const found: Array<{ path: string; schema: SchemaObject }> = [];
  const visit = (schema: SchemaObject, path: string): void => {
    const properties = schema.properties as Record<string, SchemaObject> | undefined;
    for (const [name, property] of Object.entries(properties ?? {})) found.push({ path: `${path}.${name}`, schema: property });
    const items = schema.items as SchemaObject | undefined;
    if (items && typeof items === 'object' && !('$ref' in items)) found.push({ path: `${path}[]`, schema: items });
  };
  visit(agentSchema as SchemaObject, '#');
  for (const [name, definition] of Object.entries(definitions)) {
    visit(definition, `#/definitions/${name}`);
    for (const property of Object.values((definition.properties as Record<string, SchemaObject>) ?? {})) {
      if (property.items && typeof property.items === 'object') visit(property, `#/definitions/${name}`);
    }
  }
  return found;
}

/** Follows a $ref to its definition. */
function resolved(schema: SchemaObject): SchemaObject {
  const ref = schema.$ref as string | undefined;
  return ref ? (definitions[ref.replace('#/definitions/', '')] as SchemaObject) : schema;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true });
  ajv.addKeyword({ keyword: 'markdownDescription', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'defaultSnippets', schemaType: 'array' });
  return ajv;
}

describe('agent JSON Schema', () => {
  it('is a valid draft-07 schema that ajv compiles in strict mode', () => {
    const ajv = newAjv();
    assert.equal(ajv.validateSchema(agentSchema), true, JSON.stringify(ajv.errors));
    assert.doesNotThrow(() => ajv.compile(agentSchema));
    assert.equal((agentSchema as SchemaObject).$schema, 'http://json-schema.org/draft-07/schema#');
  });

  it('gives every property a title, a description and examples', () => {
    const missing: string[] = [];
    for (const { path, schema } of propertySchemas()) {
      const target = resolved(schema);
      for (const key of ['title', 'description', 'examples']) {
        if (!(key in target)) missing.push(`${path}: ${key}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('has examples that its own rules accept', () => {
    const ajv = newAjv();
    const failures: string[] = [];
    const check = (schema: SchemaObject, path: string): void => {
      if (Array.isArray(schema.examples)) {
        const { examples, ...rest } = schema;
        const validate = ajv.compile({ ...rest, definitions });
        for (const example of examples as unknown[]) {
          if (!validate(example)) failures.push(`${path}: ${JSON.stringify(example)} ${ajv.errorsText(validate.errors)}`);
        }
      }
      for (const [key, value] of Object.entries(schema)) {
        if (key === 'examples' || key === 'definitions') continue;
        if (value && typeof value === 'object' && !Array.isArray(value)) check(value as SchemaObject, `${path}/${key}`);
      }
    };
    const { definitions: _ignored, ...root } = agentSchema as SchemaObject;
    check(root, '#');
    for (const [name, definition] of Object.entries(definitions)) check(definition, `#/definitions/${name}`);
    assert.deepEqual(failures, []);
  });

  // The bundle compiles this schema with ajv's `unicode: false` (esbuild.mjs): lengths in UTF-16
  // units, which equal characters only where the pattern lets in nothing past ASCII.
  it('lets only ASCII into every string it limits in length', () => {
    const loose: string[] = [];
    const check = (schema: SchemaObject, path: string): void => {
      if ('maxLength' in schema || (typeof schema.minLength === 'number' && schema.minLength > 1)) {
        const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
        if (!pattern || ['\u00e9', 'a\u00e9', '\u{1F600}', 'a\u{1F600}'].some((text) => pattern.test(text))) loose.push(path);
      }
      for (const [key, value] of Object.entries(schema)) {
        if (value && typeof value === 'object' && !Array.isArray(value)) check(value as SchemaObject, `${path}/${key}`);
      }
    };
    check(agentSchema as SchemaObject, '#');
    assert.deepEqual(loose, []);
  });

  it('counts characters, not UTF-16 units, in a test case name', () => {
    const caseFile = (name: string) => `agent: a.agent.yaml\ncases:\n  "${name}":\n    inputs: {}\n`;
    const lengthProblems = (name: string) =>
      validateTestText(caseFile(name), 'a.agent.test.yaml').problems.filter((problem) => problem.message.includes('longer than'));
    assert.deepEqual(lengthProblems('\u{1F600}'.repeat(200)), []);
    assert.equal(lengthProblems('\u{1F600}'.repeat(201)).length, 1);
  });

  it('reports a node id or input name over 64 characters, and takes one of 64', () => {
    const agent = (id: string) =>
      `version: 1\nname: n\ninputs:\n  ${id}: { type: string }\nnodes:\n  ${id}:\n    type: template\n    text: "{{ inputs.${id} }}"\noutputs:\n  o: { from: "{{ nodes.${id}.body }}" }\n`;
    assert.deepEqual(validateAgentText(agent('a'.repeat(64))).problems, []);
    const messages = validateAgentText(agent('a'.repeat(65))).problems.map((problem) => problem.message);
    assert.ok(
      messages.some((message) => message.startsWith(`Node id "${'a'.repeat(65)}" is longer than 64 characters`)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((message) => message.startsWith(`Input name "${'a'.repeat(65)}" is longer than 64 characters`)),
      messages.join('\n'),
    );
  });
});
