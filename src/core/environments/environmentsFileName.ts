// The name of the environments file (docs/environments.md), in a module of its own so that the
// extension's activation code can use it without loading the YAML parser.
export const ENVIRONMENTS_FILE_NAME = 'agent-workflows.yaml';
