// The core behind the language features (parsing, completion, hovers, navigation, quick fixes),
// in a bundle of its own (esbuild.mjs lazyModules) that loads when a provider is first asked, not
// at activation. Providers reach it through loadLanguageCore(); classes they test with instanceof
// (RenameError) must come from here too, the bundle that throws them.
export { indexAgentText, symbolAt } from '../core/language/agentIndex';
export { complete } from '../core/language/completion';
export { hover } from '../core/language/hover';
export { definition, prepareRename, references, rename, RenameError } from '../core/language/navigation';
export { nameQuickFixes, quickFixes } from '../core/language/quickFixes';
export { decodeAgentFile, tooLargeMessage, undecodedFileProblems } from '../core/document/parse';
export { validateAgentText } from '../core/validation/validate';
export { environmentsCompletions } from '../core/environments/environmentsCompletion';
export { environmentsHover } from '../core/environments/environmentsHover';
export {
  environmentReferencesAcross,
  environmentsDefinition,
  environmentsReferences,
  prepareEnvironmentRename,
  renameEnvironmentAcross,
} from '../core/environments/environmentsNavigation';
export { environmentChecks, parseEnvironmentsFile } from '../core/environments/environmentsFile';
export { environmentDeployment, replacedBaseUrl, selectEnvironment } from '../core/environments/selectEnvironment';
export { testFileCompletions, testFileDefinition, testFileHover } from '../core/testing/testFileLanguage';
export { crossFileReferences, crossFileRename, prepareTestFileRename, testFileNameAt } from '../core/testing/testFileReferences';
export { agentPathOf } from '../core/testing/testFileName';
export { nodeLocations } from '../core/language/nodeLenses';
