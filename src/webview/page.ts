// What the webviews' scripts (graph, batch results) share: the little of the DOM they use, declared
// here because the project is type-checked as one Node program without the DOM library (adding it
// with `/// <reference lib="dom" />` would change global types such as Blob for every file), and
// the helpers that build elements with DOM calls and textContent, never by parsing HTML.

export interface DomElement {
  id: string;
  className: string;
  textContent: string | null;
  hidden: boolean;
  title: string;
  /** Of buttons and inputs. */
  type: string;
  value: string;
  scope: string;
  readonly dataset: Record<string, string | undefined>;
  readonly style: Record<'left' | 'top' | 'width' | 'height' | 'transform', string>;
  readonly classList: { add(...names: string[]): void; toggle(name: string, force?: boolean): boolean };
  readonly clientWidth: number;
  append(...children: DomElement[]): void;
  replaceChildren(...children: DomElement[]): void;
  setAttribute(name: string, value: string): void;
  getAttribute(name: string): string | null;
  removeAttribute(name: string): void;
  addEventListener(type: 'click' | 'input' | 'change' | 'mouseenter' | 'mouseleave' | 'focus' | 'blur', listener: () => void): void;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): DomList;
  focus(): void;
}

export interface DomList extends Iterable<DomElement> {
  readonly length: number;
}

export interface DomDocument {
  createElement(tag: string): DomElement;
  createElementNS(namespace: string, tag: string): DomElement;
  getElementById(id: string): DomElement | null;
  querySelectorAll(selector: string): DomList;
}

declare const document: DomDocument;

export function element(tag: string, className?: string, text?: string): DomElement {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

export function byId(id: string): DomElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el;
}

/** "1 row", "2,400 rows". */
export function plural(count: number, word: string): string {
  return `${count.toLocaleString('en')} ${word}${count === 1 ? '' : 's'}`;
}
