// Messages between the graph panel (extension host) and its webview. Types only: both sides import
// them, and nothing of the host's code reaches the browser bundle.
import type { GraphLayout } from '../../core/graph/graphLayout';
import type { Problem } from '../../core/document/problems';

/** Host → webview: everything to draw, replacing what was drawn before. */
export interface ShowGraphMessage {
  readonly type: 'graph';
  /** The document drawn and its version, echoed in `rendered`. */
  readonly uri: string;
  readonly version: number;
  readonly fileName: string;
  readonly agentName?: string;
  /** False when the YAML gave nothing to read declarations from. */
  readonly readable: boolean;
  readonly layout: GraphLayout;
  readonly problems: readonly Problem[];
}

export type HostMessage = ShowGraphMessage;

/** Webview → host. */
export type WebviewMessage =
  /** The script is running and can take a `graph` message (sent again after the panel is shown). */
  | { readonly type: 'ready' }
  /** A graph node was clicked: reveal it in the YAML (looked up by key in the current text). */
  | { readonly type: 'revealNode'; readonly key: string }
  /** A problem in the list was clicked: reveal its span. */
  | { readonly type: 'revealSpan'; readonly start: number; readonly end: number }
  /** What the webview drew for a version, read back from its DOM (for tests and the log). */
  | { readonly type: 'rendered'; readonly report: RenderReport };

export interface RenderReport {
  readonly uri: string;
  readonly version: number;
  /** Keys of the drawn graph nodes, in drawing order. */
  readonly nodes: readonly string[];
  /** `from->to` of the drawn edges. */
  readonly edges: readonly string[];
  /** Text of the drawn auth badges, by node key. */
  readonly badges: Readonly<Record<string, readonly string[]>>;
  /** How many problems the list shows. */
  readonly problems: number;
}
