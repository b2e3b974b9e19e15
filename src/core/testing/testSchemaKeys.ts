// The keys of an agent test file as schemas/agent-test.schema.json describes them, for its
// completion and hovers: one reading of the schema for both, its $refs followed.
import testSchema from '../../../schemas/agent-test.schema.json';
import type { SchemaProperty } from '../environments/environmentsSchemaKeys';

type Keys = Readonly<Record<string, SchemaProperty>>;

interface RawProperty extends SchemaProperty {
  readonly $ref?: string;
}

const definitions = testSchema.definitions as Record<string, RawProperty & { properties?: Record<string, RawProperty> }>;

/** A property with the title and description of the definition it refers to, when it refers to one. */
function resolved(property: RawProperty): SchemaProperty {
  const target = property.$ref?.startsWith('#/definitions/') ? definitions[property.$ref.slice('#/definitions/'.length)] : undefined;
  const title = property.title ?? target?.title;
  const description = property.description ?? target?.description;
  return { ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}) };
}

function keysOf(properties: Record<string, RawProperty> | undefined): Keys {
  return Object.fromEntries(Object.entries(properties ?? {}).map(([key, property]) => [key, resolved(property)]));
}

/** The keys at the top of the file. */
export const TEST_TOP_KEYS = keysOf(testSchema.properties);
/** The keys of a case, under `cases.NAME`. */
export const CASE_KEYS = keysOf(definitions.case?.properties);
/** The keys under `defaults`. */
export const DEFAULTS_KEYS = keysOf(testSchema.properties.defaults.properties);
/** The keys of a mock, under `mocks.NODE`. */
export const MOCK_KEYS = keysOf(definitions.mock?.properties);
/** The keys under a mock's `expect_request`. */
export const REQUEST_EXPECTATION_KEYS = keysOf(testSchema.definitions.mock.properties.expect_request.properties);
/** The keys under a case's `expect`. */
export const EXPECT_KEYS = keysOf(definitions.expect?.properties);
/** The keys of a node's expectations, under `expect.nodes.NODE`. */
export const NODE_EXPECTATION_KEYS = keysOf(testSchema.definitions.expect.properties.nodes.additionalProperties.properties);
