// Requests: every rules decision of Firestore, Storage and the Realtime Database, live (the UI API's event stream), newest first;
// open one to see its rules with each evaluated expression marked true, false or error, and its value.
import { followLog, html, replaceHTML, toast } from './api.js';

const shown = 500;
let source = null;
let entries = [];
let filters = { service: '', outcome: '', path: '' };
let selected = null;

function visible() {
  return entries.filter((e) => (!filters.service || e.service === filters.service)
    && (!filters.outcome || (filters.outcome === 'allowed') === e.allowed)
    && (!filters.path || e.path.includes(filters.path)));
}

function when(iso) {
  const date = new Date(iso);
  return date.toLocaleTimeString(undefined, { hour12: false }) + '.' + String(date.getMilliseconds()).padStart(3, '0');
}

function drawList(main) {
  const rows = visible().slice(-shown).reverse().map((e) => html`<tr data-id="${e.id}" tabindex="0" ${html.raw(e.id === selected ? 'aria-selected="true"' : '')}>
    <td class="mono">${when(e.time)}</td><td>${e.service}</td><td>${e.method}</td><td class="mono path">${breakable(e.path)}</td>
    <td>${e.uid ? html`<span class="mono">${e.uid}</span>` : html`<span class="muted">unauthenticated</span>`}</td>
    <td><span class="state ${e.allowed ? 'on' : 'bad'}">${e.allowed ? 'Allowed' : 'Denied'}</span></td></tr>`);
  replaceHTML(main.querySelector('[data-list]'), rows.length
    ? html`<table><thead><tr><th>Time</th><th>Service</th><th>Method</th><th>Path</th><th>Who</th><th>Outcome</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="empty">${entries.length ? 'No request matches the filters.' : 'No rules decisions yet. Requests from your app that the rules decide show here as they happen (an administrator\'s are not decided).'}</p>`);
}

/** `path` with a line-break opportunity after each `/`, so long paths wrap between segments, not inside them. */
function breakable(path) {
  return html.raw(path.split('/').map((segment) => html`${segment}`.__html).join('/<wbr>'));
}

/** The outcome class of one report entry: t(rue), f(alse), e(rror) or v(alue). */
function outcome(entry) {
  const values = entry.values || [];
  if (values.some((v) => 'undefined' in v.value)) return 'e';
  if (values.some((v) => v.value.boolValue === false)) return 'f';
  if (values.some((v) => v.value.boolValue === true)) return 't';
  return values.length ? 'v' : null;
}

/** Every evaluated expression of `reports` (nested), with its outcome class, in the order of the file. */
function evaluated(reports) {
  const all = [];
  const visit = (report) => {
    const kind = outcome(report);
    if (kind) all.push({ kind, report });
    (report.children || []).forEach(visit);
  };
  reports.forEach(visit);
  return all.sort((a, b) => a.report.sourcePosition.currentOffset - b.report.sourcePosition.currentOffset);
}

const outcomeNames = { t: 'true', f: 'false', e: 'error', v: 'value' };

/**
 * A table of the expressions of `content` that `reports` evaluated: where, the expression's text and what it
 * gave, so a value can be read without hovering.
 */
function expressionTable(content, reports) {
  const characters = Array.from(content);
  const rows = evaluated(reports).map(({ kind, report }) => {
    const { line, column, currentOffset, endOffset } = report.sourcePosition;
    const text = characters.slice(currentOffset, endOffset + 1).join('');
    return html`<tr><td class="mono">${line}:${column}</td><td class="mono">${text}</td>
      <td><mark class="m-${kind}">${outcomeNames[kind]}</mark></td><td class="mono">${report.valueText ?? ''}</td></tr>`;
  });
  return rows.length
    ? html`<table class="expressions"><caption>Evaluated expressions</caption><thead><tr><th>Line</th><th>Expression</th><th>Outcome</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table>`
    : html``;
}

/** The rules file `content` with every evaluated expression of `reports` (nested ranges) marked. */
function marked(content, reports) {
  const characters = Array.from(content);
  const opens = new Map();
  const closes = new Map();
  for (const { kind, report } of evaluated(reports)) {
    const start = report.sourcePosition.currentOffset;
    const end = report.sourcePosition.endOffset + 1;
    const label = outcomeNames[kind];
    const title = report.valueText !== undefined ? `${label}: ${report.valueText}` : label;
    (opens.get(start) || opens.set(start, []).get(start)).push({ kind, title, end });
    closes.set(end, (closes.get(end) || 0) + 1);
  }
  let out = '';
  characters.forEach((character, index) => {
    for (let n = closes.get(index) || 0; n > 0; n--) out += '</mark>';
    const starting = (opens.get(index) || []).sort((a, b) => b.end - a.end);
    for (const mark of starting) out += `<mark class="m-${mark.kind}" title="${html`${mark.title}`.__html}">`;
    out += html`${character}`.__html;
  });
  for (let n = closes.get(characters.length) || 0; n > 0; n--) out += '</mark>';
  return out;
}

async function showDetail(main, id) {
  selected = id;
  drawList(main);
  const panel = main.querySelector('[data-detail]');
  panel.innerHTML = html`<p class="empty">Loading…</p>`.__html;
  const response = await fetch(`/api/requests/${id}`);
  if (!response.ok) { panel.innerHTML = html`<p class="error">This request is no longer kept.</p>`.__html; return; }
  const entry = await response.json();
  const files = entry.detail?.rules?.files || [];
  const reports = entry.detail?.report || [];
  const sources = files.map((file) => {
    const ofFile = reports.filter((r) => r.sourcePosition.fileName === file.name);
    return html`<h3 class="mono">${file.name}</h3>
      <pre class="rules">${html.raw(marked(file.content, ofFile))}</pre>${expressionTable(file.content, ofFile)}`;
  });
  panel.innerHTML = html`<h2>${entry.method} <span class="mono">${entry.path}</span>
    <span class="state ${entry.allowed ? 'on' : 'bad'}">${entry.allowed ? 'Allowed' : 'Denied'}</span></h2>
    <p class="muted">${entry.service} · ${entry.uid ? `uid ${entry.uid}` : 'unauthenticated'} · ${new Date(entry.time).toLocaleString()}</p>
    <pre class="explanation">${entry.explanation}</pre>
    <p class="legend"><mark class="m-t">true</mark> <mark class="m-f">false</mark> <mark class="m-e">error</mark>
    <mark class="m-v">other value</mark> <span class="muted">Hover an expression for its value, or read it in the table below.</span></p>
    ${sources.length ? sources : html`<p class="empty">No rules file.</p>`}`.__html;
}

/** Renders the Requests page into `main` and follows the log. */
export async function render(main) {
  leave();
  entries = [];
  selected = null;
  main.innerHTML = html`<h1>Requests</h1>
    <div class="toolbar">
      <label class="inline">Service <select data-filter="service"><option value="">All</option><option>firestore</option><option>storage</option><option>database</option></select></label>
      <label class="inline">Outcome <select data-filter="outcome"><option value="">All</option><option value="allowed">Allowed</option><option value="denied">Denied</option></select></label>
      <input type="search" class="grow" placeholder="Filter by path" aria-label="Filter by path" data-filter="path">
      <button type="button" class="danger" data-clear>Clear</button>
    </div>
    <div class="split"><div data-list class="panel scroll"><p class="empty">Loading…</p></div>
    <section data-detail class="panel scroll"><p class="empty">Pick a request to see how the rules decided it.</p></section></div>`.__html;
  for (const control of main.querySelectorAll('[data-filter]')) {
    control.addEventListener('input', () => { filters[control.dataset.filter] = control.value; drawList(main); });
  }
  main.querySelector('[data-clear]').addEventListener('click', async () => {
    await fetch('/api/requests', { method: 'DELETE' });
    entries.length = 0;
    drawList(main);
    toast('Requests cleared.');
  });
  const list = main.querySelector('[data-list]');
  const open = (event) => {
    const row = event.target.closest('tr[data-id]');
    if (row && (event.type === 'click' || event.key === 'Enter')) showDetail(main, Number(row.dataset.id)).catch((e) => toast(e.message, true));
  };
  list.addEventListener('click', open);
  list.addEventListener('keydown', open);
  drawList(main);
  source = followLog('/api/requests', 'request', entries, () => drawList(main), main);
}

/** Stops following the log. */
export function leave() {
  if (source) source.close();
  source = null;
}
