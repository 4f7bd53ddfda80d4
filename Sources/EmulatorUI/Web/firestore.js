// Firestore: collections, documents and fields of a database (`(default)`, or the one the hash's `?database=`
// names), one level per column; add, edit and delete documents and fields; a collection filtered on one or
// more fields and ordered by one (a structured query); pages of 50 documents however large the collection;
// changes made by any client show within a second (the open level is read again every 500 ms, the pages
// shown at most).
import { call, currentConfig, dialog, html, refreshEvery, replaceHTML, toast } from './api.js';
import { types, typeOf, editText, exampleText, parse, parseExactJSON, quoteField, show, fromEditable, tagsHelp } from './values.js';

const pageSize = 50;
const refreshInterval = 500;
let stop = null;
let view = null;

const defaultDatabase = '(default)';
/** The id of the database shown. */
let databaseID = defaultDatabase;
const database = () => `projects/${currentConfig().projectId}/databases/${databaseID}`;
const documentsRoot = () => `${database()}/documents`;
const api = (path) => `/v1/${documentsRoot()}${path ? '/' + path.split('/').map(encodeURIComponent).join('/') : ''}`;
const route = (segments, id = databaseID) => '#/firestore/' + segments.map(encodeURIComponent).join('/')
  + (id === defaultDatabase ? '' : `?database=${encodeURIComponent(id)}`);

/** The ids of the project's databases: `(default)` and each that holds documents. */
async function databaseIDs() {
  const answer = await call('firestore', `/v1/projects/${encodeURIComponent(currentConfig().projectId)}/databases`);
  return (answer?.databases || []).map((d) => d.name.split('/').pop());
}

async function collectionIds(documentPath) {
  const answer = await call('firestore', `${api(documentPath)}:listCollectionIds`, { method: 'POST', body: { pageSize: 1000 } });
  return (answer?.collectionIds || []).sort();
}

async function documentsPage(collectionPath, token) {
  const query = new URLSearchParams({ pageSize: String(pageSize), showMissing: 'true' });
  if (token) query.set('pageToken', token);
  const answer = await call('firestore', `${api(collectionPath)}?${query}`);
  return { documents: answer?.documents || [], next: answer?.nextPageToken || null };
}

/**
 * The document at `path`, or null when it does not exist. Asked with `batchGet`, which answers a missing
 * document as `missing` instead of a 404 the browser would log as a failed request on every refresh.
 */
async function getDocument(path) {
  const answer = await call('firestore', `/v1/${database()}/documents:batchGet`, {
    method: 'POST', body: { documents: [`${documentsRoot()}/${path}`] },
  });
  return (answer || []).find((item) => item.found)?.found || null;
}

const lastSegment = (name) => decodeURIComponent(name.split('/').pop());

/**
 * The filter of each collection shown (by database and path): `{conditions: [{field, op, text}], orderBy:
 * {field, direction} or null}`.
 */
const filters = new Map();
const filterKey = (collection) => `${databaseID} ${collection.join('/')}`;
const operators = [['==', 'EQUAL'], ['!=', 'NOT_EQUAL'], ['<', 'LESS_THAN'], ['<=', 'LESS_THAN_OR_EQUAL'],
  ['>', 'GREATER_THAN'], ['>=', 'GREATER_THAN_OR_EQUAL'], ['array-contains', 'ARRAY_CONTAINS'],
  ['array-contains-any', 'ARRAY_CONTAINS_ANY'], ['in', 'IN'], ['not-in', 'NOT_IN']];

/**
 * A filter's value: JSON when it parses (`42`, `true`, `"a"`, `[1, 2]`, `{"$timestamp": "…"}`), else the text
 * as a string.
 */
function filterValue(text) {
  let plain;
  try { plain = parseExactJSON(text); } catch { return { stringValue: text }; }
  return fromEditable(plain, documentsRoot());
}

const fieldReference = (field) => ({ fieldPath: field.split('.').map(quoteField).join('.') });

/** A condition as a structured query's filter: `== null` and `== NaN` (and `!=`) are unary, as the SDKs send them. */
function conditionFilter({ field, op, text }) {
  const unary = { EQUAL: { null: 'IS_NULL', NaN: 'IS_NAN' }, NOT_EQUAL: { null: 'IS_NOT_NULL', NaN: 'IS_NOT_NAN' } }[op]?.[text.trim()];
  if (unary) return { unaryFilter: { field: fieldReference(field), op: unary } };
  return { fieldFilter: { field: fieldReference(field), op, value: filterValue(text) } };
}

/** The first `count` documents of `collection` matching `filter` (a structured query, `count` at most). */
async function queryPage(collection, filter, count) {
  const parent = collection.slice(0, -1).join('/');
  const structuredQuery = { from: [{ collectionId: collection[collection.length - 1] }], limit: count };
  const parts = filter.conditions.map(conditionFilter);
  if (parts.length === 1) structuredQuery.where = parts[0];
  else if (parts.length > 1) structuredQuery.where = { compositeFilter: { op: 'AND', filters: parts } };
  if (filter.orderBy) structuredQuery.orderBy = [{ field: fieldReference(filter.orderBy.field), direction: filter.orderBy.direction }];
  const answer = await call('firestore', `${api(parent)}:runQuery`, { method: 'POST', body: { structuredQuery } });
  return (answer || []).filter((item) => item.document).map((item) => item.document);
}

/** What the columns show for `segments` (see the module comment). */
async function load(segments, pages) {
  const odd = segments.length % 2 === 1;
  const collection = segments.length === 0 ? null : odd ? segments : segments.slice(0, -1);
  const parent = collection ? collection.slice(0, -1) : [];
  const result = { segments, collection, parent };
  result.collections = await collectionIds(parent.join('/'));
  const filter = collection ? filters.get(filterKey(collection)) : null;
  if (collection && filter) {
    const count = pageSize * (pages ? pages.length : 1);
    result.tokens = pages || [null];
    result.filter = filter;
    result.documents = await queryPage(collection, filter, count);
    result.next = result.documents.length === count ? 'more' : null;
  } else if (collection) {
    const tokens = pages || [null];
    result.documents = [];
    result.tokens = tokens;
    for (const token of tokens) {
      const page = await documentsPage(collection.join('/'), token);
      result.documents.push(...page.documents);
      result.next = page.next;
    }
  }
  if (segments.length && !odd) {
    result.document = await getDocument(segments.join('/'));
    result.subcollections = await collectionIds(segments.join('/'));
  }
  return result;
}

function columnCollections(state) {
  const selected = state.collection ? state.collection[state.collection.length - 1] : null;
  const items = state.collections.map((id) => html`<li><a href="${route([...state.parent, id])}" ${html.raw(id === selected ? 'aria-current="true"' : '')}>${id}</a></li>`);
  const title = state.parent.length ? state.parent[state.parent.length - 1] : databaseID;
  return html`<section class="column" data-column="collections"><header><h2 title="${title}">${title}</h2>
    <button type="button" data-add-collection>Start collection</button></header>
    ${items.length ? html`<ul class="list">${items}</ul>` : html`<p class="empty">No collections. Start one, or write from your app.</p>`}</section>`;
}

function columnDocuments(state) {
  if (!state.collection) return html`<section class="column"><p class="empty">Pick a collection.</p></section>`;
  const selected = state.segments.length % 2 === 0 ? state.segments[state.segments.length - 1] : null;
  const items = state.documents.map((document) => {
    const id = lastSegment(document.name);
    const missing = !document.createTime;
    return html`<li><a href="${route([...state.collection, id])}" class="${missing ? 'missing' : ''}" title="${missing ? 'This document does not exist; it has subcollections.' : id}" ${html.raw(id === selected ? 'aria-current="true"' : '')}>${id}</a></li>`;
  });
  const more = state.next ? html`<p style="padding:.5rem .8rem"><button type="button" data-more>Load ${pageSize} more</button></p>` : html``;
  const name = state.collection[state.collection.length - 1];
  const filter = state.filter || { conditions: [], orderBy: null };
  const conditions = (filter.conditions.length ? filter.conditions : [{ field: '', op: 'EQUAL', text: '' }]).map(conditionRow);
  const order = filter.orderBy || { field: '', direction: 'ASCENDING' };
  const form = html`<form class="filter" data-filter-form><div data-conditions>${conditions}</div>
    <div class="condition"><button type="button" data-add-condition title="Every condition must hold">+ Condition</button>
    <input name="orderBy" placeholder="order by field" aria-label="Order by field" value="${order.field}">
    <select name="direction" aria-label="Order direction">${[['ASCENDING', 'asc'], ['DESCENDING', 'desc']].map(([value, label]) =>
    html`<option value="${value}" ${html.raw(value === order.direction ? 'selected' : '')}>${label}</option>`)}</select></div>
    <div class="condition"><button type="submit">Filter</button>${state.filter ? html`<button type="button" data-clear-filter>Clear</button>` : html``}</div></form>`;
  const empty = state.filter ? 'No document matches the filter.' : 'No documents. Add one.';
  return html`<section class="column" data-column="documents"><header><h2 title="${name}">${name}</h2>
    <button type="button" data-add-document>Add document</button>
    <button type="button" class="danger" data-delete-collection title="Delete every document of this collection and their subcollections">Delete</button></header>
    ${form}${items.length ? html`<ul class="list">${items}</ul>${more}` : html`<p class="empty">${empty}</p>`}</section>`;
}

/** One condition of the filter form. */
function conditionRow(condition) {
  const options = operators.map(([label, op]) => html`<option value="${op}" ${html.raw(op === condition.op ? 'selected' : '')}>${label}</option>`);
  return html`<div class="condition"><input name="field" placeholder="field" aria-label="Filter field" value="${condition.field}">
    <select name="op" aria-label="Filter operator">${options}</select>
    <input name="text" placeholder="value" title="The value as JSON (42, true, &quot;text&quot;, [1, 2]), or plain text" aria-label="Filter value" value="${condition.text}">
    <button type="button" class="ghost" data-remove-condition aria-label="Remove this condition" title="Remove this condition">×</button></div>`;
}

function columnDocument(state) {
  if (!(state.segments.length && state.segments.length % 2 === 0)) return html`<section class="column"><p class="empty">Pick a document.</p></section>`;
  const id = state.segments[state.segments.length - 1];
  const document = state.document;
  const subcollections = state.subcollections.map((c) => html`<li><a href="${route([...state.segments, c])}">${c}</a></li>`);
  const fields = document ? Object.entries(document.fields || {}).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => html`
    <div class="field" data-field="${name}"><span class="mono">${name}</span><div>${show(value)}</div>
    <span><button type="button" data-edit-field="${name}" aria-label="Edit field ${name}">Edit</button>
    <button type="button" class="danger" data-delete-field="${name}" aria-label="Delete field ${name}">Delete</button></span></div>`) : [];
  const body = document
    ? html`<div class="fields">${fields.length ? fields : html`<p class="empty">No fields.</p>`}
      <p class="muted" style="font-size:.8rem">Updated ${new Date(document.updateTime).toLocaleString()}</p></div>`
    : html`<p class="empty">This document does not exist${subcollections.length ? '; it has subcollections.' : '.'}</p>`;
  return html`<section class="column" data-column="document"><header><h2 title="${id}">${id}</h2>
    <button type="button" data-add-field>Add field</button>
    <button type="button" class="danger" data-delete-document ${html.raw(document ? '' : 'disabled')}>Delete</button></header>
    ${body}${subcollections.length ? html`<header><h2>Subcollections</h2></header><ul class="list">${subcollections}</ul>` : html``}</section>`;
}

function breadcrumb(segments) {
  const links = [html`<a href="${route([])}">${databaseID}</a>`];
  segments.forEach((segment, index) => links.push(html` / <a href="${route(segments.slice(0, index + 1))}">${segment}</a>`));
  return html`<nav aria-label="Path" class="mono">${links}</nav>`;
}

function draw(main) {
  const state = view.state;
  replaceHTML(main.querySelector('[data-columns]'), html`${columnCollections(state)}${columnDocuments(state)}${columnDocument(state)}`);
}

/**
 * The inputs of one field: its name (read-only when editing, optional in a new document), type and value,
 * focused on the value when the name is given.
 */
function fieldForm(name, value, { optional = false } = {}) {
  const type = value ? typeOf(value) : 'string';
  const options = types.map(([t]) => html`<option ${html.raw(t === type ? 'selected' : '')}>${t}</option>`);
  return html`<label for="f-name">${optional ? 'First field (optional)' : 'Field'}</label><input id="f-name" name="name" ${html.raw(optional ? '' : 'required')} value="${name || ''}" ${html.raw(name ? 'readonly' : '')}>
    <label for="f-type">Type</label><select id="f-type" name="type" data-field-type>${options}</select>
    <label for="f-value">Value</label><textarea id="f-value" name="value" ${html.raw(name ? 'autofocus' : '')}>${value ? editText(value, type, documentsRoot()) : ''}</textarea>
    <p class="muted" style="font-size:.8rem">${tagsHelp}</p>`;
}

/** When the type is changed, a value that the new type cannot read is replaced by an example of it. */
function followTypeChanges(form) {
  const type = form.querySelector('[data-field-type]');
  const text = form.querySelector('#f-value');
  type.addEventListener('change', () => {
    try { parse(text.value, type.value, documentsRoot()); } catch { text.value = exampleText(type.value); }
  });
}

function parseField(values) {
  return parse(values.value, values.type, documentsRoot());
}

function validateField(values) {
  if (!values.name) return 'Name the field.';
  try { parseField(values); } catch (error) { return error.message; }
  return null;
}

/** Why `id` cannot be a document or collection ID, as production refuses it; null when it can. */
function invalidID(id, what) {
  if (id.includes('/')) return `A ${what} ID cannot contain "/".`;
  if (id === '.' || id === '..') return `A ${what} ID cannot be "." or "..".`;
  if (/^__.*__$/.test(id)) return `A ${what} ID cannot start and end with "__".`;
  if (new TextEncoder().encode(id).length > 1500) return `A ${what} ID is at most 1,500 bytes.`;
  return null;
}

/** Opens the form dialog and lets its type follow the value (see `followTypeChanges`). */
function fieldDialog(title, content, options) {
  const answer = dialog(title, content, options);
  followTypeChanges(document.querySelector('dialog[open] form'));
  return answer;
}

async function refresh(main, { force = false } = {}) {
  // Not while the filter is being typed: a redraw would take the input away.
  if (!force && document.activeElement?.closest('[data-filter-form]')) return;
  const state = await load(view.segments, view.state?.tokens);
  // A visit left while it read must not write into the next visit's view (its actions act on that view).
  if (!main.isConnected) return;
  const text = JSON.stringify(state);
  if (!force && text === view.text) return;
  view.state = state;
  view.text = text;
  draw(main);
}

async function act(main, target) {
  const state = view.state;
  const documentPath = state.segments.join('/');
  if (target.dataset.addCondition !== undefined) {
    target.closest('form').querySelector('[data-conditions]').insertAdjacentHTML('beforeend', conditionRow({ field: '', op: 'EQUAL', text: '' }).__html);
    target.closest('form').querySelector('[data-conditions] .condition:last-child input').focus();
  } else if (target.dataset.removeCondition !== undefined) {
    const rows = target.closest('[data-conditions]');
    target.closest('.condition').remove();
    if (!rows.children.length) rows.insertAdjacentHTML('beforeend', conditionRow({ field: '', op: 'EQUAL', text: '' }).__html);
  } else if (target.dataset.clearFilter !== undefined) {
    filters.delete(filterKey(state.collection));
    view.state.tokens = null;
    await refresh(main, { force: true });
  } else if (target.dataset.more !== undefined) {
    view.state.tokens = [...state.tokens, state.next];
    await refresh(main, { force: true });
  } else if (target.dataset.addCollection !== undefined || target.dataset.addDocument !== undefined) {
    const collection = target.dataset.addDocument !== undefined;
    let created = null;
    const values = await fieldDialog(collection ? 'Add a document' : 'Start a collection', html`
      ${collection ? html`` : html`<label for="c-id">Collection ID</label><input id="c-id" name="collection" required>`}
      <label for="d-id">Document ID (empty: a new random ID)</label><input id="d-id" name="id">${fieldForm('', null, { optional: true })}`,
    {
      submit: 'Save',
      validate: (v) => (!collection && !v.collection ? 'Name the collection.'
        : (!collection && invalidID(v.collection, 'collection')) || (v.id && invalidID(v.id, 'document'))
        || (v.name ? validateField(v) : v.value.trim() ? 'Name the field, or leave its value empty.' : null)),
      commit: async (v) => {
        const parent = collection ? state.collection : [...state.parent, v.collection];
        const fields = v.name ? { [v.name]: parseField(v) } : {};
        if (v.id) {
          await call('firestore', api([...parent, v.id].join('/')), { method: 'PATCH', body: { fields } });
          created = [...parent, v.id];
        } else {
          const answer = await call('firestore', api(parent.join('/')), { method: 'POST', body: { fields } });
          created = [...parent, lastSegment(answer.name)];
        }
      },
    });
    if (!values) return;
    location.hash = route(created);
  } else if (target.dataset.addField !== undefined || target.dataset.editField !== undefined) {
    const name = target.dataset.editField;
    const values = await fieldDialog(name ? `Edit ${name}` : 'Add a field', fieldForm(name, name ? state.document?.fields?.[name] : null), {
      validate: validateField,
      commit: async (v) => {
        const query = new URLSearchParams({ 'updateMask.fieldPaths': quoteField(v.name) });
        await call('firestore', `${api(documentPath)}?${query}`, { method: 'PATCH', body: { fields: { [v.name]: parseField(v) } } });
      },
    });
    if (!values) return;
    await refresh(main, { force: true });
  } else if (target.dataset.deleteField !== undefined) {
    const query = new URLSearchParams({ 'updateMask.fieldPaths': quoteField(target.dataset.deleteField), 'currentDocument.exists': 'true' });
    await call('firestore', `${api(documentPath)}?${query}`, { method: 'PATCH', body: { fields: {} } });
    await refresh(main, { force: true });
  } else if (target.dataset.deleteDocument !== undefined) {
    if (!confirm(`Delete document ${documentPath}? Its subcollections stay.`)) return;
    await call('firestore', api(documentPath), { method: 'DELETE' });
    location.hash = route(state.collection);
  } else if (target.dataset.deleteCollection !== undefined) {
    const path = state.collection.join('/');
    if (!confirm(`Delete every document of ${path}, with their subcollections?`)) return;
    const count = await deleteCollection(path);
    toast(`${count} documents deleted.`);
    location.hash = route(state.parent);
  }
}

/** Deletes every document of `path` and of the subcollections below, a page at a time; returns how many. */
async function deleteCollection(path) {
  let count = 0;
  for (;;) {
    const page = await documentsPage(path, null);
    if (!page.documents.length) return count;
    for (const document of page.documents) {
      const documentPath = `${path}/${lastSegment(document.name)}`;
      for (const sub of await collectionIds(documentPath)) count += await deleteCollection(`${documentPath}/${sub}`);
      await call('firestore', api(documentPath), { method: 'DELETE' });
      if (document.createTime) count += 1;
    }
  }
}

/** Renders the data browser for the path in `args` into `main`. */
export async function render(main, args, params) {
  leave();
  databaseID = params?.get('database') || defaultDatabase;
  view = { segments: args, state: null, text: null };
  main.innerHTML = html`<h1>Firestore</h1><div class="toolbar">
    <label class="inline">Database <select data-database aria-label="Database"><option>${databaseID}</option></select></label>
    <span class="grow">${breadcrumb(args)}</span>
    <button type="button" class="danger" data-clear-all>Clear all data</button></div>
    <div class="columns" data-columns><p class="empty">Loading…</p></div>`.__html;
  main.querySelector('[data-clear-all]').addEventListener('click', async () => {
    if (!confirm(`Delete every document of every collection of database ${databaseID}?`)) return;
    await call('firestore', `/emulator/v1/${documentsRoot()}`, { method: 'DELETE' });
    toast('All documents deleted.');
    location.hash = route([]);
    await refresh(main, { force: true });
  });
  main.querySelector('[data-columns]').addEventListener('submit', async (event) => {
    if (!event.target.matches('[data-filter-form]')) return;
    event.preventDefault();
    const form = new FormData(event.target);
    const [fields, ops, texts] = ['field', 'op', 'text'].map((name) => form.getAll(name));
    const conditions = fields.map((field, index) => ({ field: field.trim(), op: ops[index], text: texts[index] })).filter((c) => c.field);
    const orderBy = form.get('orderBy').trim() ? { field: form.get('orderBy').trim(), direction: form.get('direction') } : null;
    const collection = filterKey(view.state.collection);
    if (conditions.length || orderBy) filters.set(collection, { conditions, orderBy });
    else filters.delete(collection);
    view.state.tokens = null;
    try {
      await refresh(main, { force: true });
    } catch (error) {
      filters.delete(collection);
      toast(error.message, true);
    }
  });
  main.querySelector('[data-columns]').addEventListener('click', async (event) => {
    const target = event.target.closest('button');
    if (!target) return;
    try {
      await act(main, target);
    } catch (error) {
      toast(error.message, true);
    }
  });
  pickDatabase(main.querySelector('[data-database]'));
  await refresh(main, { force: true });
  stop = refreshEvery(refreshInterval, () => refresh(main), main);
}

/** Fills the database picker (the ones there are, the one shown, and another by name) and follows it. */
function pickDatabase(select) {
  const other = '*other';
  databaseIDs().then((ids) => {
    if (!ids.includes(databaseID)) ids.push(databaseID);
    select.innerHTML = html`${ids.map((id) => html`<option value="${id}" ${html.raw(id === databaseID ? 'selected' : '')}>${id}</option>`)}
      <option value="${other}">Another database…</option>`.__html;
  }).catch(() => {});
  select.addEventListener('change', async () => {
    let id = select.value;
    if (id === other) {
      const values = await dialog('Open a database', html`<label for="db-id">Database ID</label>
        <input id="db-id" name="id" required placeholder="my-database">
        <p class="muted">A named database exists once something is written to it, as it does for your app's clients.</p>`,
      { submit: 'Open', validate: (v) => (/^[a-z][a-z0-9-]{2,61}[a-z0-9]$/.test(v.id) ? null
        : 'A database ID is 4 to 63 lowercase letters, digits and hyphens, starting with a letter and ending with a letter or digit.') });
      if (!values) { select.value = databaseID; return; }
      id = values.id;
    }
    location.hash = route([], id);
  });
}

/** Stops reading the open level again. */
export function leave() {
  stop?.();
  stop = null;
}
