// The type of the agent schema's validator, which esbuild.mjs generates while bundling (ajv's
// standalone code for schemas/agent.schema.json). There is no source file of that name.
import type { ValidateFunction } from 'ajv';

declare const validateAgentSchema: ValidateFunction;
export default validateAgentSchema;
