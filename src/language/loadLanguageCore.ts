// The one way providers load the language core (src/language/languageCore.ts): a dynamic import
// that the build turns into a require of its bundle, on the first request of any provider.
export const loadLanguageCore = (): Promise<typeof import('./languageCore')> => import('./languageCore');
