// The agent-test core (YAML reading, the workflow engine, undici's MockAgent), loaded on first use
// rather than at activation: the Test Explorer, code lens and commands register without it.
import type * as EditorEntry from '../core/testing/editorEntry';

export type TestCore = typeof EditorEntry;

let loading: Promise<TestCore> | undefined;

export function loadTestCore(): Promise<TestCore> {
  loading ??= import('../core/testing/editorEntry');
  return loading;
}
