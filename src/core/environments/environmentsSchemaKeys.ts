// The keys of the environments file (agent-workflows.yaml) as schemas/agent-workflows.schema.json
// describes them, for its completion and hovers: one reading of the schema for both.
import environmentsSchema from '../../../schemas/agent-workflows.schema.json';

/** What the schema says about a key. */
export interface SchemaProperty {
  readonly title?: string;
  readonly description?: string;
}

/** The keys at the top of the file. */
export const TOP_KEYS = environmentsSchema.properties as Record<string, SchemaProperty>;
/** The keys of one environment, under `environments.NAME`. */
export const ENVIRONMENT_KEYS = environmentsSchema.definitions.environment.properties as Record<string, SchemaProperty>;
export const REQUIRED_ENVIRONMENT_KEYS: readonly string[] = environmentsSchema.definitions.environment.required;
