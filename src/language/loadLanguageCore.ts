// The one way providers load the language core (src/language/languageCore.ts): a dynamic import
// that the build turns into a require of its bundle, on the first request of any provider.
import type * as LanguageCore from './languageCore';

export const loadLanguageCore = (): Promise<typeof LanguageCore> => import('./languageCore');
