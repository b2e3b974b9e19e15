// Validation of an agent file: YAML, the JSON Schema's structure, references and the API node and
// authorization rules. Pure and synchronous: the same result in the editor, the CLI and tests.
import { checkApiNode } from './apiNodeCheck';
import { checkDeployment, checkEnvironmentOverrides, checkInputs } from './declarationsCheck';
import type { EnvironmentChecks } from './declarationsCheck';
import { readModel } from '../document/model';
import type { AgentModel } from '../document/model';
import { parseAgentFile } from '../document/parse';
import type { ParsedAgentFile } from '../document/parse';
import type { Problem } from '../document/problems';
import { checkReferences } from './references';
import { checkSchema } from './schemaCheck';
import { checkSecrets } from './secretScan';

export type { EnvironmentChecks } from './declarationsCheck';

export interface ValidationResult {
  readonly problems: Problem[];
  readonly file: ParsedAgentFile;
  /** The declarations, when the YAML parsed into a mapping. */
  readonly model?: AgentModel;
}

export interface ValidationOptions {
  /**
   * The environments file that applies to the agent file: with it, an override in
   * deployment.environments for a name it does not declare is warned about, and one that moves a
   * protected environment elsewhere is an error. Without it, overrides are not checked.
   */
  readonly environments?: EnvironmentChecks;
}

export function validateAgentText(text: string, options: ValidationOptions = {}): ValidationResult {
  const file = parseAgentFile(text);
  const { sink, root } = file;
  if (file.syntaxBroken || !root) return { problems: sink.result(), file };
  // Each pass stops once the sink is full (the problem cap): nothing more would be shown.
  checkSchema(root, file.value, sink);
  const model = readModel(root);
  if (!sink.full) checkInputs(model, sink);
  if (!sink.full) checkDeployment(model, sink);
  if (!sink.full && options.environments) checkEnvironmentOverrides(model, options.environments, sink);
  if (!sink.full) checkReferences(model, text, sink);
  for (const node of model.nodes.values()) {
    if (sink.full) break;
    if (node.type === 'api') checkApiNode(node, text, sink);
  }
  // After the API node rules, so a credential they flagged is not flagged twice.
  if (file.document && !sink.full) checkSecrets(file.document, text, sink);
  return { problems: sink.result(), file, model };
}

/** Counts by severity, for summaries. */
export function countProblems(problems: readonly Problem[]): { errors: number; warnings: number; infos: number } {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const problem of problems) {
    if (problem.severity === 'error') errors++;
    else if (problem.severity === 'warning') warnings++;
    else infos++;
  }
  return { errors, warnings, infos };
}
