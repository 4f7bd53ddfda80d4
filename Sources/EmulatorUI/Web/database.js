// Realtime Database: a namespace's tree, expanded a node at a time, so a large tree is never loaded whole:
// an expanded node is read with shallow=true (its keys, each `true`), and each of the (at most 200, more on
// demand) children shown is read with shallow=true too, which gives a leaf's value or an object's keys; a
// child known to be an object is not read again until it is expanded. Edit a value, add a child, delete;
// import and export JSON. What is shown is read again every 750 ms (less often when reading takes long):
// writes show live.
import { call, currentConfig, dialog, html, origin, refreshEvery, toast } from './api.js';

const refreshInterval = 750;
const shownChildren = 200;
let view = null;
let stop = null;

const segments = (path) => path.split('/').filter(Boolean);
const url = (path, query = {}) => {
  const parameters = new URLSearchParams({ ns: view.namespace, ...query });
  return `/${segments(path).map(encodeURIComponent).join('/')}.json?${parameters}`;
};
const child = (path, key) => (path === '/' ? '' : path) + '/' + key;

async function read(path) {
  return call('database', url(path, { shallow: 'true' }));
}

function valueText(value) {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** HTML of the node at `path`: a leaf with its value, or an object with an expander. */
function node(path, key) {
  const expanded = view.expanded.has(path);
  const actions = html`<span class="actions"><button type="button" class="ghost" data-add="${path}" aria-label="Add a child to ${path}">+</button>
    <button type="button" class="ghost danger" data-delete="${path}" aria-label="Delete ${path}">×</button></span>`;
  if (view.kinds.get(path) === 'leaf') {
    return html`<li><span class="key mono">${key}</span>: <button type="button" class="link value mono" data-edit="${path}" title="Edit">${valueText(view.leaves.get(path))}</button>${actions}</li>`;
  }
  let children = html``;
  const known = view.nodes.get(path);
  if (expanded && known && typeof known === 'object') {
    const keys = Object.keys(known).sort();
    const limit = view.limits.get(path) || shownChildren;
    const items = keys.slice(0, limit).map((k) => node(child(path, k), k));
    const more = keys.length > limit ? html`<li><button type="button" class="link" data-more="${path}">Show ${Math.min(shownChildren, keys.length - limit)} more of ${keys.length - limit}</button></li>` : html``;
    children = html`<ul>${items}${more}</ul>`;
  }
  return html`<li><button type="button" class="expander" data-toggle="${path}" aria-expanded="${expanded}" aria-label="${expanded ? 'Collapse' : 'Expand'} ${path}">${expanded ? '▾' : '▸'}</button>
    <span class="key mono">${key}</span>${actions}${children}</li>`;
}

function draw(main) {
  const root = view.nodes.get('/');
  const body = root === null || root === undefined
    ? html`<p class="empty">This namespace is empty. Add a child, import JSON, or write from your app.</p>`
    : typeof root !== 'object' ? html`<p class="mono" style="padding:1rem">${valueText(root)}</p>`
    : html`<ul class="tree">${node('/', view.namespace)}</ul>`;
  main.querySelector('[data-tree]').innerHTML = body.__html;
}

/** Reads every expanded node and the children it shows; redraws if anything changed. */
async function refresh(main, force = false) {
  const before = JSON.stringify([[...view.nodes], [...view.kinds], [...view.leaves]]);
  const expanded = ['/', ...[...view.expanded].filter((p) => p !== '/')];
  const shallow = await Promise.all(expanded.map((path) => read(path).catch(() => undefined)));
  const children = [];
  expanded.forEach((path, index) => {
    const value = shallow[index];
    if (value === undefined) return;
    view.nodes.set(path, value);
    if (!value || typeof value !== 'object') return;
    const keys = Object.keys(value).sort().slice(0, view.limits.get(path) || shownChildren);
    for (const key of keys) {
      const at = child(path, key);
      if (view.kinds.get(at) !== 'object') children.push(at);
    }
  });
  const values = await Promise.all(children.map((path) => read(path).catch(() => undefined)));
  children.forEach((path, index) => {
    const value = values[index];
    if (value === undefined) return;
    if (value !== null && typeof value === 'object') {
      view.kinds.set(path, 'object');
      view.leaves.delete(path);
    } else {
      view.kinds.set(path, 'leaf');
      view.leaves.set(path, value);
    }
  });
  if (force || JSON.stringify([[...view.nodes], [...view.kinds], [...view.leaves]]) !== before) draw(main);
}

function parseJSON(text) {
  try { return { value: JSON.parse(text) }; } catch { return { error: 'Enter a JSON value: "text", 42, true, null, {"a": 1} or [1, 2].' }; }
}

async function act(main, button) {
  const data = button.dataset;
  if (data.toggle) {
    if (view.expanded.has(data.toggle)) {
      view.expanded.delete(data.toggle);
      draw(main);
    } else {
      view.expanded.add(data.toggle);
      await refresh(main, true);
    }
  } else if (data.more) {
    view.limits.set(data.more, (view.limits.get(data.more) || shownChildren) + shownChildren);
    await refresh(main, true);
  } else if (data.edit) {
    const current = await call('database', url(data.edit));
    const values = await dialog(`Edit ${data.edit}`, html`<label for="v-json">Value (JSON)</label><textarea id="v-json" name="json">${JSON.stringify(current, null, 2)}</textarea>`,
      { validate: (v) => parseJSON(v.json).error });
    if (!values) return;
    await call('database', url(data.edit), { method: 'PUT', body: parseJSON(values.json).value });
    await refresh(main, true);
  } else if (data.add) {
    const values = await dialog(`Add a child to ${data.add}`, html`<label for="c-key">Key</label><input id="c-key" name="key" required>
      <label for="c-json">Value (JSON)</label><textarea id="c-json" name="json">""</textarea>`,
    { validate: (v) => (!v.key || /[.$#[\]/]/.test(v.key) ? 'A key is not empty and has none of . $ # [ ] /' : parseJSON(v.json).error) });
    if (!values) return;
    await call('database', url(child(data.add, values.key)), { method: 'PUT', body: parseJSON(values.json).value });
    view.expanded.add(data.add);
    await refresh(main, true);
  } else if (data.delete) {
    if (!confirm(`Delete ${data.delete} and everything below it?`)) return;
    await call('database', url(data.delete), { method: 'DELETE' });
    view.kinds.delete(data.delete);
    view.leaves.delete(data.delete);
    await refresh(main, true);
  }
}

/** Renders the tree of the namespace in `args` (default `<project>-default-rtdb`) into `main`. */
export async function render(main, args) {
  leave();
  const namespace = args[0] || `${currentConfig().projectId}-default-rtdb`;
  view = { namespace, expanded: new Set(['/']), nodes: new Map(), kinds: new Map(), leaves: new Map(), limits: new Map() };
  main.innerHTML = html`<h1>Realtime Database</h1>
    <div class="toolbar"><label class="inline" for="ns">Namespace</label><input id="ns" data-namespace value="${namespace}" aria-label="Namespace">
      <span class="grow mono muted">${origin('database')}/?ns=${namespace}</span>
      <label class="button" tabindex="0">Import JSON<input type="file" accept="application/json,.json" hidden data-import></label>
      <button type="button" data-export>Export JSON</button>
      <button type="button" data-add="/">Add child</button></div>
    <div class="panel tree-panel" data-tree><p class="empty">Loading…</p></div>`.__html;
  main.querySelector('[data-namespace]').addEventListener('change', (event) => { location.hash = `#/database/${encodeURIComponent(event.target.value.trim())}`; });
  main.querySelector('[data-import]').addEventListener('change', async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    const parsed = parseJSON(await file.text());
    if (parsed.error) { toast(`${file.name} is not JSON.`, true); return; }
    if (!confirm(`Replace the whole namespace ${namespace} with ${file.name}?`)) return;
    try {
      await call('database', url('/'), { method: 'PUT', body: parsed.value });
      toast(`${file.name} imported.`);
      await refresh(main, true);
    } catch (error) { toast(error.message, true); }
  });
  main.querySelector('.toolbar').addEventListener('click', async (event) => {
    const button = event.target.closest('button[data-add], button[data-export]');
    if (!button) return;
    try {
      if (button.dataset.export === undefined) return await act(main, button);
      // Fetched as an administrator (the rules may not let a page read it), then saved from a blob.
      const response = await call('database', url('/', { format: 'export' }), { raw: true });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `${namespace}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    } catch (error) {
      toast(error.message, true);
    }
  });
  main.querySelector('[data-tree]').addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (button) act(main, button).catch((error) => toast(error.message, true));
  });
  await refresh(main, true);
  stop = refreshEvery(refreshInterval, () => refresh(main));
}

/** Stops reading the expanded nodes again. */
export function leave() {
  stop?.();
  stop = null;
}
