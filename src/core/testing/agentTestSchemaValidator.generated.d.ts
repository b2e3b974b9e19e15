// The type of the agent test schema's validator, which esbuild.mjs generates while bundling (ajv's
// standalone code for schemas/agent-test.schema.json). There is no source file of that name.
import type { ValidateFunction } from 'ajv';

declare const validateAgentTestSchema: ValidateFunction;
export default validateAgentTestSchema;
