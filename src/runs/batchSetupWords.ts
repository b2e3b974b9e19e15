// Why a batch did not start or resume, in the editor's words: the core gives the facts (its words
// are the command line's business), and editor users have no flags, only the batch's actions.
import { basename } from 'node:path';
import type { BatchRecord } from '../core/batch/batchRecord';
import type { OtherColumns } from '../core/batch/rowInputs';
import type { BatchSetupProblem, ResumeRefusal } from '../core/batch/runBatch';

const NEW_BATCH = 'Run the agent on the dataset again for a new batch.';

/** The words for a batch that could not start (or resume) as it was: what, where, what to do. */
export function batchSetupWords(problem: BatchSetupProblem, record: Pick<BatchRecord, 'resultsPath'>): string {
  switch (problem.kind) {
    case 'column-map':
      // Only the command line maps columns; words of its own, not the core's (a bundle loaded later).
      return problem.problems
        .map((mapped) =>
          mapped.kind === 'column-twice'
            ? `Column "${mapped.column}" is given to both "${mapped.inputs[0]}" and "${mapped.inputs[1]}".`
            : `Column "${mapped.column}" is given to input "${mapped.input}", which the agent does not have.`,
        )
        .join(' ');
    case 'bad-number':
      return `The batch's ${problem.what === 'limit' ? 'row limit' : 'row count'} must be a whole number of 1 or more, not ${problem.value}.`;
    case 'data-file':
      return problem.message;
    case 'resume-without-results':
      return `Not resumed: the batch has no results file to go on from. ${NEW_BATCH}`;
    case 'no-state':
      return `Not resumed: its saved state (${problem.statePath}) is gone, so which rows ran cannot be known. ${NEW_BATCH}`;
    case 'other-data':
      return `Not resumed: its saved state is of a batch over another data file (${basename(problem.started)}). ${NEW_BATCH}`;
    case 'other-mode':
      return `Not resumed: its saved state is of a batch run ${problem.started === 'local' ? 'on this machine' : 'on the deployment'}, and this one would run ${problem.started === 'local' ? 'on the deployment' : 'on this machine'}. ${NEW_BATCH}`;
    case 'exists':
      return `Not started: ${problem.path} exists already, and a new batch does not overwrite another's ${problem.file === 'results' ? 'results' : 'saved state'}. Resume that batch, or remove the file.`;
    case 'unwritable':
      return `The batch's ${problem.file === 'results' ? 'results file' : 'saved state'} ${problem.path} cannot be written: ${problem.reason}. Make room or fix the folder's permissions, then run it again.`;
    case 'unreadable':
      return `The data file ${problem.path} cannot be read: ${problem.reason}.`;
    case 'resume-refused':
      return resumeRefusalWords(problem.refusal, record);
  }
}

/** Columns named in the words about the data's other columns; beyond, counted. */
const MAX_NAMED_COLUMNS = 10;

/**
 * The data file's columns that are not inputs, in the editor's words (no flags; the editor's batch
 * keeps them): said in the confirmation, before anything is sent.
 */
export function otherColumnsWords(others: OtherColumns): string {
  const count = others.columns.length + others.notListed;
  const names = others.columns.slice(0, MAX_NAMED_COLUMNS).map(({ name }) => `"${name}"`);
  const more = count - names.length;
  const listed =
    more > 0
      ? `${names.join(', ')} and ${more} more`
      : names.length <= 1
        ? (names[0] ?? '')
        : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const typos = others.columns
    .filter((column) => column.suggestion !== undefined)
    .slice(0, MAX_NAMED_COLUMNS)
    .map(({ name, suggestion }) => `"${name}" (did you mean the input "${suggestion}"?)`);
  const heads = `${count === 1 ? 'Column' : 'Columns'} ${listed} ${count === 1 ? 'is not an input' : 'are not inputs'} of the agent: ${count === 1 ? 'it is' : 'they are'} not sent, and kept in each row's result.`;
  return typos.length ? `${heads} Rename a column that should be an input: ${typos.join(', ')}.` : heads;
}

/** Why a batch was not resumed, in the editor's words (no command-line flags, no internal files). */
function resumeRefusalWords(refusal: ResumeRefusal, record: Pick<BatchRecord, 'resultsPath'>): string {
  if (refusal.kind === 'files-changed') {
    const files = refusal.files.map(({ file, path }) =>
      file === 'data' ? `the data file ${basename(path)}` : `the agent file ${basename(path)}`,
    );
    return `Not resumed: ${files.join(' and ')} changed since the batch started, so resuming could start rows twice or leave rows out. Put back the files as they were to resume it, or run the agent on the dataset again for a new batch.`;
  }
  const which = refusal.path === record.resultsPath ? 'its results file is' : 'its saved state is';
  return `Not resumed: ${which} damaged (line ${refusal.line}: ${refusal.problem}), so which rows ran cannot be known. ${NEW_BATCH}`;
}
