// The outline of each kind of file the extension reads, for the editor's Outline and breadcrumbs
// and for the language server's document symbols.
import type { OutlineSymbol } from '../document/outlineSymbol';
import type { ParsedFileKind } from '../document/parse';
import { environmentsSymbols } from '../environments/environmentsSymbols';
import { testFileSymbols } from '../testing/testFileSymbols';
import { documentSymbols } from './navigation';

export function outlineOf(kind: ParsedFileKind, text: string): OutlineSymbol[] {
  switch (kind) {
    case 'agent':
      return documentSymbols(text);
    case 'test':
      return testFileSymbols(text);
    case 'environments':
      return environmentsSymbols(text);
  }
}
