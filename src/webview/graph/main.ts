// The graph panel's webview: draws the laid-out graph the extension sends (boxes as HTML, edges as
// SVG), the file's problems above it, and reports clicks back. Bundled by esbuild for the browser.
// Everything is built with DOM calls and textContent: names and messages from the file are never
// parsed as HTML. Positions are set through the CSSOM, which the Content Security Policy allows
// (it forbids style attributes and inline <style>, not element.style).
import type { Point, PlacedEdge, PlacedNode } from '../../core/graph/graphLayout';
import type { Problem } from '../../core/document/problems';
import type { AuthBadge } from '../../core/graph/workflowGraph';
import type { HostMessage, RenderReport, ShowGraphMessage, WebviewMessage } from './protocol';
import { byId, element, onHostMessage, plural, vsCodeApi } from '../page';
import type { DomDocument, DomElement } from '../page';
import { createGraphViewport } from './viewport';

// The DOM as declared for the webviews (page.ts): the project has no DOM library.
declare const document: DomDocument;
const vscode = vsCodeApi<WebviewMessage>();
const SVG = 'http://www.w3.org/2000/svg';
/** Problems listed before "and N more". */
const MAX_LISTED_PROBLEMS = 100;

const AUTH_LABEL: Record<AuthBadge, string> = {
  bearer: 'Bearer',
  basic: 'Basic',
  'api-key-header': 'API key header',
  'api-key-url': 'API key in URL',
  other: 'Other auth',
  none: 'No auth',
};
const AUTH_TITLE: Record<AuthBadge, string> = {
  bearer: 'Authorization: Bearer token (OAuth 2.0)',
  basic: 'Authorization: Basic (Base64 of user:password)',
  'api-key-header': 'API key sent in a header (e.g. x-api-key)',
  'api-key-url': 'API key sent as a query parameter of the URL (api_key)',
  other: 'Credentials in a header with another scheme',
  none: 'Sends no credentials',
};

const viewport = createGraphViewport();

function draw(message: ShowGraphMessage): void {
  drawHeader(message);
  drawProblems(message.problems);
  drawGraph(message);
  viewport.show({ width: message.layout.width, height: message.layout.height }, message.uri);
  vscode.postMessage({ type: 'rendered', report: readBack(message.uri, message.version) });
}

function drawHeader(message: ShowGraphMessage): void {
  byId('file').textContent = message.fileName;
  byId('agent').textContent = message.agentName ?? '';
  const status = byId('status');
  const errors = message.problems.filter((p) => p.severity === 'error').length;
  const warnings = message.problems.filter((p) => p.severity === 'warning').length;
  const infos = message.problems.length - errors - warnings;
  const parts = [
    errors ? plural(errors, 'error') : '',
    warnings ? plural(warnings, 'warning') : '',
    infos ? plural(infos, 'hint') : '',
  ].filter(Boolean);
  status.textContent = parts.length ? parts.join(', ') : 'No problems';
  status.className = `status ${errors ? 'has-errors' : warnings ? 'has-warnings' : 'ok'}`;
}

function drawProblems(problems: readonly Problem[]): void {
  const list = byId('problems');
  list.replaceChildren();
  list.hidden = problems.length === 0;
  for (const problem of problems.slice(0, MAX_LISTED_PROBLEMS)) {
    const item = element('li');
    const button = element('button', `problem severity-${problem.severity}`);
    button.type = 'button';
    button.title = 'Show in the editor';
    button.append(
      element('span', 'problem-icon', problem.severity === 'error' ? '✕' : problem.severity === 'warning' ? '⚠' : 'ℹ'),
      element('span', 'problem-where', `Ln ${problem.range.line}, Col ${problem.range.column}`),
      element('span', 'problem-message', problem.message),
      element('span', 'problem-code', problem.code),
    );
    button.addEventListener('click', () => vscode.postMessage({ type: 'revealSpan', start: problem.span.start, end: problem.span.end }));
    item.append(button);
    list.append(item);
  }
  if (problems.length > MAX_LISTED_PROBLEMS)
    list.append(element('li', 'more', `and ${problems.length - MAX_LISTED_PROBLEMS} more (see the Problems panel)`));
}

function drawGraph(message: ShowGraphMessage): void {
  const { layout } = message;
  const canvas = byId('canvas');
  const empty = byId('empty');
  canvas.replaceChildren();
  empty.hidden = layout.nodes.length > 0;
  if (layout.nodes.length === 0) {
    empty.textContent = message.readable
      ? 'Nothing to draw yet: declare inputs, nodes and outputs.'
      : 'The YAML cannot be read as an agent yet; fix the problems above to see the graph.';
  }
  canvas.style.width = `${layout.width}px`;
  canvas.style.height = `${layout.height}px`;
  canvas.append(drawEdges(layout.edges, layout.width, layout.height));
  for (const node of layout.nodes) canvas.append(drawNode(node));
}

function drawEdges(edges: readonly PlacedEdge[], width: number, height: number): DomElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.classList.add('edges');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('aria-hidden', 'true');
  const defs = document.createElementNS(SVG, 'defs');
  for (const [id, className] of [
    ['arrow', 'arrow'],
    ['arrow-active', 'arrow active'],
  ] as const) {
    const marker = document.createElementNS(SVG, 'marker');
    marker.id = id;
    for (const [name, value] of Object.entries({
      viewBox: '0 0 10 10',
      refX: '9',
      refY: '5',
      markerWidth: '8',
      markerHeight: '8',
      markerUnits: 'userSpaceOnUse',
      orient: 'auto',
    }))
      marker.setAttribute(name, value);
    const tip = document.createElementNS(SVG, 'path');
    tip.setAttribute('d', 'M0,0 L10,5 L0,10 z');
    tip.setAttribute('class', className);
    marker.append(tip);
    defs.append(marker);
  }
  svg.append(defs);
  for (const edge of edges) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('class', 'gedge');
    path.setAttribute('d', basisPath(edge.points));
    path.setAttribute('marker-end', 'url(#arrow)');
    path.dataset.from = edge.from;
    path.dataset.to = edge.to;
    svg.append(path);
  }
  return svg;
}

/** A smooth path through dagre's points (the uniform B-spline that d3's curveBasis draws). */
function basisPath(points: readonly Point[]): string {
  const f = (n: number) => Math.round(n * 10) / 10;
  const [first, second] = points;
  if (!first) return '';
  if (!second || points.length < 3) return points.map((p, i) => `${i ? 'L' : 'M'}${f(p.x)},${f(p.y)}`).join(' ');
  let [x0, y0, x1, y1] = [first.x, first.y, second.x, second.y];
  const parts = [`M${f(x0)},${f(y0)}`, `L${f((5 * x0 + x1) / 6)},${f((5 * y0 + y1) / 6)}`];
  const curve = (x: number, y: number) =>
    parts.push(
      `C${f((2 * x0 + x1) / 3)},${f((2 * y0 + y1) / 3)} ${f((x0 + 2 * x1) / 3)},${f((y0 + 2 * y1) / 3)} ${f((x0 + 4 * x1 + x) / 6)},${f((y0 + 4 * y1 + y) / 6)}`,
    );
  for (const p of points.slice(2)) {
    curve(p.x, p.y);
    [x0, y0, x1, y1] = [x1, y1, p.x, p.y];
  }
  curve(x1, y1);
  parts.push(`L${f(x1)},${f(y1)}`);
  return parts.join(' ');
}

function drawNode(node: PlacedNode): DomElement {
  const severity = node.problems.errors ? 'error' : node.problems.warnings ? 'warning' : node.problems.infos ? 'info' : 'none';
  const kindClass =
    node.kind === 'node'
      ? `kind-node type-${node.type === 'api' || node.type === 'template' ? node.type : 'unknown'}`
      : `kind-${node.kind}`;
  const box = element('button', `gnode ${kindClass} severity-${severity}`);
  box.type = 'button';
  box.dataset.key = node.key;
  box.style.left = `${node.x}px`;
  box.style.top = `${node.y}px`;
  box.style.width = `${node.width}px`;
  box.style.height = `${node.height}px`;

  const head = element('div', 'gnode-head');
  const kindLabel =
    node.kind === 'input'
      ? 'IN'
      : node.kind === 'output'
        ? 'OUT'
        : node.type === 'api'
          ? 'API'
          : node.type === 'template'
            ? 'TEXT'
            : (node.type ?? '?').toUpperCase();
  head.append(element('span', 'gnode-kind', kindLabel), element('span', 'gnode-name', node.name));
  const count = node.problems.errors + node.problems.warnings + node.problems.infos;
  if (count) {
    const marker = element('span', 'gnode-problems', `${severity === 'error' ? '✕' : severity === 'warning' ? '⚠' : 'ℹ'} ${count}`);
    marker.title = [
      node.problems.errors ? plural(node.problems.errors, 'error') : '',
      node.problems.warnings ? plural(node.problems.warnings, 'warning') : '',
      node.problems.infos ? plural(node.problems.infos, 'hint') : '',
    ]
      .filter(Boolean)
      .join(', ');
    head.append(marker);
  }
  box.append(head);

  const detail = element('div', 'gnode-detail');
  const tooltip = [`${node.kind === 'node' ? 'Node' : node.kind === 'input' ? 'Input' : 'Output'} ${node.name}`];
  if (node.kind === 'input') {
    const text = [node.valueType ?? 'no type', node.required ? 'required' : 'optional'].join(' · ');
    detail.textContent = text;
    tooltip.push(text);
  } else if (node.kind === 'output') {
    detail.textContent = 'output';
  } else if (node.type === 'template') {
    detail.textContent = 'renders text';
    tooltip.push('Template node');
  } else {
    const method = element('span', `method method-${(node.method ?? 'none').toLowerCase()}`, node.method ?? 'no method');
    const host = element('span', 'host', node.host ?? 'no URL host');
    detail.append(method, host);
    tooltip.push(`${node.method ?? 'no method'} ${node.host ?? '(no URL host)'}`);
  }
  box.append(detail);

  if (node.kind === 'node' && node.auth.length) {
    const badges = element('div', 'gnode-badges');
    for (const auth of node.auth) {
      const badge = element('span', `badge auth-${auth}`, AUTH_LABEL[auth]);
      badges.append(badge);
      tooltip.push(AUTH_TITLE[auth]);
    }
    box.append(badges);
  }
  if (count) tooltip.push(plural(count, 'problem'));
  tooltip.push('Click to show it in the YAML');
  box.title = tooltip.join('\n');

  box.addEventListener('click', () => vscode.postMessage({ type: 'revealNode', key: node.key }));
  // Light up the edges in and out of the node under the pointer or focus.
  const highlight = (on: boolean) => {
    for (const path of document.querySelectorAll('path.gedge')) {
      if (path.dataset.from !== node.key && path.dataset.to !== node.key) continue;
      path.classList.toggle('active', on);
      path.setAttribute('marker-end', on ? 'url(#arrow-active)' : 'url(#arrow)');
    }
  };
  box.addEventListener('mouseenter', () => highlight(true));
  box.addEventListener('mouseleave', () => highlight(false));
  box.addEventListener('focus', () => highlight(true));
  box.addEventListener('blur', () => highlight(false));
  return box;
}

/** What is on the page now, read from the DOM rather than from the message. */
function readBack(uri: string, version: number): RenderReport {
  const badges: Record<string, string[]> = {};
  const nodes = [...document.querySelectorAll('#canvas .gnode')].map((el) => {
    const key = el.dataset.key ?? '';
    const labels = [...el.querySelectorAll('.badge')].map((badge) => badge.textContent ?? '');
    if (labels.length) badges[key] = labels;
    return key;
  });
  const edges = [...document.querySelectorAll('#canvas path.gedge')]
    .filter((path) => path.getAttribute('d'))
    .map((path) => `${path.dataset.from}->${path.dataset.to}`);
  return { uri, version, nodes, edges, badges, problems: document.querySelectorAll('#problems .problem').length };
}

onHostMessage<HostMessage>((message) => {
  if (message?.type === 'graph') draw(message);
});
vscode.postMessage({ type: 'ready' });
