// What the webviews' scripts (graph, batch results, batch comparison) share: the little of the DOM
// they use and VS Code's handle, declared here because the project is type-checked as one Node
// program without the DOM library (adding it with `/// <reference lib="dom" />` would change global
// types such as Blob for every file), and the helpers that build elements with DOM calls and
// textContent, never by parsing HTML.

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
  readonly clientHeight: number;
  /** Width of the left border (where the client area starts). */
  readonly clientLeft: number;
  readonly clientTop: number;
  scrollLeft: number;
  scrollTop: number;
  tabIndex: number;
  append(...children: DomElement[]): void;
  replaceChildren(...children: DomElement[]): void;
  setAttribute(name: string, value: string): void;
  getAttribute(name: string): string | null;
  removeAttribute(name: string): void;
  addEventListener(type: 'click' | 'input' | 'change' | 'mouseenter' | 'mouseleave' | 'focus' | 'blur', listener: () => void): void;
  addEventListener(type: 'pointerdown' | 'pointermove' | 'pointerup' | 'pointercancel', listener: (event: DomPointerEvent) => void): void;
  /** `passive: false` lets the listener call preventDefault (a wheel that zooms must not also scroll). */
  addEventListener(type: 'wheel', listener: (event: DomWheelEvent) => void, options: { readonly passive: boolean }): void;
  addEventListener(type: 'keydown', listener: (event: DomKeyboardEvent) => void): void;
  closest(selector: string): DomElement | null;
  getBoundingClientRect(): DomRect;
  setPointerCapture(pointerId: number): void;
  releasePointerCapture(pointerId: number): void;
  hasPointerCapture(pointerId: number): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): DomList;
  focus(): void;
}

export interface DomRect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

interface DomInputEvent {
  /** The element the event happened on (an element in these pages). */
  readonly target: DomElement | null;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  readonly shiftKey: boolean;
  preventDefault(): void;
}

export interface DomPointerEvent extends DomInputEvent {
  readonly pointerId: number;
  /** 0 for the main button. */
  readonly button: number;
  readonly clientX: number;
  readonly clientY: number;
  /** Relative to the target's padding edge. */
  readonly offsetX: number;
  readonly offsetY: number;
}

export interface DomWheelEvent extends DomInputEvent {
  readonly deltaX: number;
  readonly deltaY: number;
  /** 0 pixels, 1 lines, 2 pages. */
  readonly deltaMode: number;
  readonly clientX: number;
  readonly clientY: number;
}

export interface DomKeyboardEvent extends DomInputEvent {
  readonly key: string;
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
declare const window: {
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
};
declare function acquireVsCodeApi(): unknown;

/** The page's handle on VS Code: messages to the extension, and a state kept while the panel is hidden. */
export interface VsCodeApi<Message, State> {
  postMessage(message: Message): void;
  getState(): State | undefined;
  setState(state: State): void;
}

/** VS Code's handle, typed by the messages the page sends and the state it keeps (once per page). */
export function vsCodeApi<Message, State = never>(): VsCodeApi<Message, State> {
  return acquireVsCodeApi() as VsCodeApi<Message, State>;
}

/** Calls `listener` with each message the extension posts to the page (undefined when there is none). */
export function onHostMessage<Message>(listener: (message: Message | undefined) => void): void {
  window.addEventListener('message', (event) => listener(event.data as Message | undefined));
}

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
