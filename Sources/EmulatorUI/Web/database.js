// Realtime Database: a namespace's tree, expanded a node at a time, so a large tree is never loaded whole:
// each expanded node is read in one request of the UI API (`/api/database/children`), which answers how
// many children it has and the first 200 (more on demand) in the database's key order, each with its value
// or its own number of children. Edit a value, add a child, delete; import and export JSON. What is shown
// is read again every 750 ms (less often when reading takes long): writes show live.
import { answerMessage, call, currentConfig, dialog, html, origin, refreshEvery, replaceHTML, saveBlob, toast } from './api.js';

const refreshInterval = 750;
const shownChildren = 200;
/** The most children one node shows (the UI API's limit): past them, export the namespace to see the rest. */
const mostChildren = 1000;
let view = null;
let stop = null;

const segments = (path) => path.split('/').filter(Boolean);
const url = (path, query = {}) => {
  const parameters = new URLSearchParams({ ns: view.namespace, ...query });
  return `/${segments(path).map(encodeURIComponent).join('/')}.json?${parameters}`;
};
const child = (path, key) => (path === '/' ? '' : path) + '/' + key;

/** The emulator's rule for a namespace name: one that breaks it is refused here rather than read again and again. */
const validNamespace = (name) => /^[A-Za-z0-9_-]{1,100}$/.test(name);
const namespaceRule = 'A namespace name is 1 to 100 letters, digits, "-" and "_".';

/**
 * What the UI API says of the node at `path`: `{count, children: [{key, value} or {key, count}]}`, or
 * `{value}` for a leaf. Throws with the API's message when it refuses.
 */
async function read(path) {
  const parameters = new URLSearchParams({ ns: view.namespace, path, limit: String(view.limits.get(path) || shownChildren) });
  const response = await fetch(`/api/database/children?${parameters}`);
  const text = await response.text();
  if (!response.ok) throw new Error(answerMessage(text, `The UI API answered ${response.status}.`));
  return JSON.parse(text);
}

function valueText(value, truncated = false) {
  return (typeof value === 'string' ? JSON.stringify(value) : String(value)) + (truncated ? ' …' : '');
}

const actions = (path) => html`<span class="actions"><button type="button" class="ghost" data-add="${path}" aria-label="Add a child to ${path}">+</button>
  <button type="button" class="ghost danger" data-delete="${path}" aria-label="Delete ${path}">×</button></span>`;

/** HTML of a child: a leaf with its value, or a node with an expander and, when expanded, its children. */
function node(path, key, entry) {
  if ('value' in entry) {
    return html`<li><span class="key mono">${key}</span>: <button type="button" class="link value mono" data-edit="${path}" title="Edit">${valueText(entry.value, entry.truncated)}</button>${actions(path)}</li>`;
  }
  const expanded = view.expanded.has(path);
  const known = view.nodes.get(path);
  const children = expanded && known ? childList(path, known) : html``;
  const count = html`<span class="muted" style="font-size:.8rem">${entry.count === 1 ? '1 child' : `${entry.count.toLocaleString()} children`}</span>`;
  return html`<li><button type="button" class="expander" data-toggle="${path}" aria-expanded="${expanded}" aria-label="${expanded ? 'Collapse' : 'Expand'} ${path}">${expanded ? '▾' : '▸'}</button>
    <span class="key mono">${key}</span> ${expanded ? html`` : count}${actions(path)}${children}</li>`;
}

/** The shown children of the node at `path` (what `read` answered), and a button for more. */
function childList(path, known) {
  if ('value' in known) return html`<ul><li class="mono">${valueText(known.value, known.truncated)}</li></ul>`;
  const items = known.children.map((entry) => node(child(path, entry.key), entry.key, entry));
  const left = known.count - known.children.length;
  const more = left <= 0 ? html``
    : known.children.length >= mostChildren ? html`<li class="muted">The first ${mostChildren.toLocaleString()} of ${known.count.toLocaleString()} children are shown; export the namespace to see them all.</li>`
    : html`<li><button type="button" class="link" data-more="${path}">Show ${Math.min(shownChildren, left).toLocaleString()} more of ${left.toLocaleString()}</button></li>`;
  return html`<ul>${items}${more}</ul>`;
}

function draw(main) {
  const root = view.nodes.get('/');
  const body = view.error
    ? html`<p class="error-state" role="alert">The namespace could not be read: ${view.error}</p>`
    : !root ? html`<p class="empty">Loading…</p>`
    : 'value' in root ? html`<p class="mono" style="padding:1rem">${valueText(root.value, root.truncated)}</p>`
    : root.count === 0 ? html`<p class="empty">This namespace is empty. Add a child, import JSON, or write from your app.</p>`
    : html`<ul class="tree">${node('/', view.namespace, { count: root.count })}</ul>`;
  replaceHTML(main.querySelector('[data-tree]'), body);
}

/** Reads every expanded node (one request each); redraws if anything changed. */
async function refresh(main, force = false) {
  const before = JSON.stringify([[...view.nodes], view.error]);
  // Only nodes whose parents are expanded too are shown, so only those are read.
  const shown = ['/', ...[...view.expanded].filter((path) => path !== '/'
    && segments(path).every((_, index, keys) => index === 0 || view.expanded.has('/' + keys.slice(0, index).join('/'))))];
  // A node that cannot be read (deleted meanwhile, say) is dropped; the root failing means the namespace
  // cannot be read at all, which is said instead of showing it as empty.
  let rootError = null;
  const answers = await Promise.all(shown.map((path) => read(path).catch((error) => {
    if (path === '/') rootError = error.message;
    return undefined;
  })));
  // A visit left while it read must not write into the next visit's view.
  if (!main.isConnected) return;
  view.error = rootError;
  shown.forEach((path, index) => {
    if (answers[index] === undefined) view.nodes.delete(path);
    else view.nodes.set(path, answers[index]);
  });
  if (force || JSON.stringify([[...view.nodes], view.error]) !== before) draw(main);
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
    view.limits.set(data.more, Math.min(mostChildren, (view.limits.get(data.more) || shownChildren) + shownChildren));
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
    view.nodes.delete(data.delete);
    await refresh(main, true);
  }
}

/** Renders the tree of the namespace in `args` (default `<project>-default-rtdb`) into `main`. */
export async function render(main, args) {
  leave();
  const namespace = args[0] || `${currentConfig().projectId}-default-rtdb`;
  const invalidName = validNamespace(namespace) ? null : namespaceRule;
  view = { namespace, expanded: new Set(['/']), nodes: new Map(), limits: new Map(), error: null };
  main.innerHTML = html`<h1>Realtime Database</h1>
    <div class="toolbar"><label class="inline" for="ns">Namespace</label><input id="ns" data-namespace value="${namespace}" aria-label="Namespace">
      <span class="grow mono muted">${origin('database')}/?ns=${namespace}</span>
      <label class="button" tabindex="0">Import JSON<input type="file" accept="application/json,.json" hidden data-import></label>
      <button type="button" data-export>Export JSON</button>
      <button type="button" data-add="/">Add child</button></div>
    <div class="panel tree-panel" data-tree><p class="empty">Loading…</p></div>`.__html;
  main.querySelector('[data-namespace]').addEventListener('change', (event) => {
    const name = event.target.value.trim();
    if (!validNamespace(name)) {
      toast(namespaceRule, true);
      return;
    }
    location.hash = `#/database/${encodeURIComponent(name)}`;
  });
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
      if (!response.ok) throw new Error(answerMessage(await response.text(), response.statusText));
      saveBlob(await response.blob(), `${namespace}.json`);
    } catch (error) {
      toast(error.message, true);
    }
  });
  main.querySelector('[data-tree]').addEventListener('click', (event) => {
    const button = event.target.closest('button');
    if (button) act(main, button).catch((error) => toast(error.message, true));
  });
  if (invalidName) {
    view.error = invalidName;
    draw(main);
    return;
  }
  await refresh(main, true);
  stop = refreshEvery(refreshInterval, () => refresh(main), main);
}

/** Stops reading the expanded nodes again. */
export function leave() {
  stop?.();
  stop = null;
}
