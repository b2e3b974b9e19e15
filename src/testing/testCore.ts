// The agent-test core (YAML reading, the workflow engine, undici's client), loaded on first use
// rather than at activation: the Test Explorer, code lens and commands register without it.
import type * as EditorEntry from '../core/testing/editorEntry';
import { loadOnce } from '../core/loadOnce';

export type TestCore = typeof EditorEntry;

export const loadTestCore: () => Promise<TestCore> = loadOnce(() => import('../core/testing/editorEntry'));
