// The type of the environments file schema's validator, which esbuild.mjs generates while bundling
// (ajv's standalone code for schemas/agent-workflows.schema.json). There is no source file of that name.
import type { ValidateFunction } from 'ajv';

declare const validateEnvironmentsSchema: ValidateFunction;
export default validateEnvironmentsSchema;
