// The comparison core (the results readers, jsdiff), loaded on first use rather than with the
// commands: a batch's notification and the comparison table load it when they compare.
import type * as CompareEntry from '../core/compare/editorEntry';
import { loadOnce } from '../core/loadOnce';

export type CompareCore = typeof CompareEntry;

export const loadCompareCore: () => Promise<CompareCore> = loadOnce(() => import('../core/compare/editorEntry'));
