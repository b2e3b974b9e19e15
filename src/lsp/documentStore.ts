// The open documents the server keeps, bounded: at most MAX_KEPT_DOCUMENTS texts and
// MAX_KEPT_CHARACTERS characters in all. Past either bound the least recently used text is let go
// (its entry stays, without text, so its diagnostics stay as published); the client sends the whole
// text with every change (full sync), so the next edit of it brings it back. A text over its kind's
// size limit is never kept: its entry carries only the problem saying so.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentKind } from './documentKinds';

export const MAX_KEPT_DOCUMENTS = 200;
export const MAX_KEPT_CHARACTERS = 32 * 1024 * 1024;
/** Entries of documents open in the client (with or without their text): past this, the oldest go. */
export const MAX_OPEN_ENTRIES = 10_000;

export interface OpenDocument {
  readonly uri: string;
  readonly kind: DocumentKind;
  readonly version: number;
  /** Undefined when the text was let go (see the file header) or is over the size limit. */
  readonly document: TextDocument | undefined;
  /** Set when the text was over the size limit: its size in bytes. */
  readonly tooLarge?: number;
}

export class DocumentStore {
  /** In order of last use: the first entry with a text is the first to lose it. */
  private readonly entries = new Map<string, OpenDocument>();
  private keptDocuments = 0;
  private keptCharacters = 0;
  /** Texts let go so far (reported by the bench and the server's log). */
  evictions = 0;
  /** Told when a text is let go (`entryGone`: the whole entry, past MAX_OPEN_ENTRIES), for what is kept beside it. */
  onDropped: (uri: string, entryGone: boolean) => void = () => undefined;

  constructor(
    private readonly limits: { readonly documents: number; readonly characters: number } = {
      documents: MAX_KEPT_DOCUMENTS,
      characters: MAX_KEPT_CHARACTERS,
    },
  ) {}

  /** Keeps a document's text (opened or changed), letting older texts go past the bounds. */
  set(uri: string, kind: DocumentKind, version: number, text: string, tooLarge?: number): OpenDocument {
    this.delete(uri);
    const entry: OpenDocument =
      tooLarge !== undefined
        ? { uri, kind, version, document: undefined, tooLarge }
        : { uri, kind, version, document: TextDocument.create(uri, kind, version, text) };
    this.entries.set(uri, entry);
    if (entry.document) {
      this.keptDocuments++;
      this.keptCharacters += text.length;
      this.evictBeyondBounds(uri);
    }
    while (this.entries.size > MAX_OPEN_ENTRIES) {
      const oldest = this.entries.keys().next().value!;
      this.delete(oldest);
      this.onDropped(oldest, true);
    }
    return entry;
  }

  get(uri: string): OpenDocument | undefined {
    const entry = this.entries.get(uri);
    if (entry?.document) {
      // Most recently used last.
      this.entries.delete(uri);
      this.entries.set(uri, entry);
    }
    return entry;
  }

  /** The entry without counting it as a use. */
  peek(uri: string): OpenDocument | undefined {
    return this.entries.get(uri);
  }

  delete(uri: string): void {
    const entry = this.entries.get(uri);
    if (!entry) return;
    this.entries.delete(uri);
    if (entry.document) {
      this.keptDocuments--;
      this.keptCharacters -= entry.document.getText().length;
    }
  }

  /** Every open document (texts kept or not). */
  all(): IterableIterator<OpenDocument> {
    return this.entries.values();
  }

  get size(): { readonly open: number; readonly kept: number; readonly characters: number } {
    return { open: this.entries.size, kept: this.keptDocuments, characters: this.keptCharacters };
  }

  private evictBeyondBounds(keep: string): void {
    for (const [uri, entry] of this.entries) {
      if (this.keptDocuments <= this.limits.documents && this.keptCharacters <= this.limits.characters) return;
      if (!entry.document || uri === keep) continue;
      this.keptDocuments--;
      this.keptCharacters -= entry.document.getText().length;
      this.entries.set(uri, { ...entry, document: undefined });
      this.evictions++;
      this.onDropped(uri, false);
    }
  }
}
