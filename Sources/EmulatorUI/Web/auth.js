// Authentication: the users of the project (or of one of its tenants), searched, sorted and paged in the
// page; add, edit, delete.
// Users that apps or the Admin SDK create show within a second (the list is read again every second).
import { call, currentConfig, dialog, html, refreshEvery, toast } from './api.js';

const pageSize = 50;
const refreshInterval = 1000;
let state = { users: [], search: '', sort: 'createdAt', descending: true, page: 0 };
let stop = null;
let drawn = null;

/** The tenant whose users are shown (`''`: the project's own). */
let tenant = '';
const project = () => `projects/${encodeURIComponent(currentConfig().projectId)}${tenant ? `/tenants/${encodeURIComponent(tenant)}` : ''}`;
const base = () => `/identitytoolkit.googleapis.com/v1/${project()}`;

/** The project's tenants: `[{id, displayName}]`. */
async function tenants() {
  const answer = await call('auth', `/identitytoolkit.googleapis.com/v2/projects/${encodeURIComponent(currentConfig().projectId)}/tenants`);
  return (answer?.tenants || []).map((t) => ({ id: t.name.split('/').pop(), displayName: t.displayName || '' }));
}

async function loadUsers() {
  const answer = await call('auth', `${base()}/accounts:query`, { method: 'POST', body: {} });
  state.users = answer?.userInfo || [];
}

/** Reads the users again and redraws the table if they changed. */
async function poll(main) {
  await loadUsers();
  const text = JSON.stringify(state.users);
  if (text !== drawn) table(main);
}

function provider(user) {
  const providers = (user.providerUserInfo || []).map((p) => p.providerId);
  if (providers.length) return providers.join(', ');
  return user.email || user.phoneNumber ? 'password' : 'anonymous';
}

function matches(user, search) {
  if (!search) return true;
  const text = [user.localId, user.email, user.displayName, user.phoneNumber].filter(Boolean).join(' ').toLowerCase();
  return text.includes(search.toLowerCase());
}

function sortKey(user) {
  const value = user[state.sort];
  if (state.sort === 'createdAt' || state.sort === 'lastLoginAt') return Number(value || 0);
  return (value || '').toLowerCase();
}

function visibleUsers() {
  const users = state.users.filter((u) => matches(u, state.search));
  users.sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    const order = x < y ? -1 : x > y ? 1 : 0;
    return state.descending ? -order : order;
  });
  return users;
}

function when(milliseconds) {
  return milliseconds ? new Date(Number(milliseconds)).toLocaleString() : '';
}

const columns = [
  ['email', 'Identifier'], ['displayName', 'Display name'], [null, 'Providers'],
  ['createdAt', 'Created'], ['lastLoginAt', 'Signed in'], ['localId', 'User UID'],
];

function table(main) {
  drawn = JSON.stringify(state.users);
  const users = visibleUsers();
  const pages = Math.max(1, Math.ceil(users.length / pageSize));
  state.page = Math.min(state.page, pages - 1);
  const shown = users.slice(state.page * pageSize, (state.page + 1) * pageSize);
  const header = columns.map(([key, title]) => {
    if (!key) return html`<th scope="col">${title}</th>`;
    const mark = state.sort === key ? (state.descending ? ' ▼' : ' ▲') : '';
    return html`<th scope="col"><button type="button" data-sort="${key}">${title}${mark}</button></th>`;
  });
  const rows = shown.map((user) => html`<tr data-uid="${user.localId}">
      <td>${user.email || user.phoneNumber || html`<span class="muted">anonymous</span>`}${user.disabled ? html` <span class="state off">disabled</span>` : html``}</td>
      <td>${user.displayName || ''}</td><td>${provider(user)}</td><td>${when(user.createdAt)}</td>
      <td>${when(user.lastLoginAt)}</td><td class="mono">${user.localId}</td>
      <td><button type="button" data-edit="${user.localId}">Edit</button>
      <button type="button" class="danger" data-delete="${user.localId}">Delete</button></td></tr>`);
  const body = rows.length ? rows
    : html`<tr><td colspan="7" class="empty">${state.users.length ? 'No user matches the search.' : 'No users yet. Add one here, or sign up from your app.'}</td></tr>`;
  main.querySelector('[data-table]').innerHTML = html`<table><thead><tr>${header}<th><span class="muted">Actions</span></th></tr></thead>
    <tbody>${body}</tbody></table>
    <div class="toolbar" style="margin-top:.6rem"><span class="grow muted">${users.length} of ${state.users.length} users</span>
    <button type="button" data-page="-1" ${html.raw(state.page === 0 ? 'disabled' : '')}>Previous</button>
    <span>Page ${state.page + 1} of ${pages}</span>
    <button type="button" data-page="1" ${html.raw(state.page >= pages - 1 ? 'disabled' : '')}>Next</button></div>`.__html;
}

function userForm(user) {
  user = user || {};
  let claims = '';
  if (user.customAttributes) {
    try { claims = JSON.stringify(JSON.parse(user.customAttributes), null, 2); } catch { claims = user.customAttributes; }
  }
  return html`<div class="row2"><div><label for="u-name">Display name</label><input id="u-name" name="displayName" value="${user.displayName || ''}"></div>
    <div><label for="u-phone">Phone number</label><input id="u-phone" name="phoneNumber" placeholder="+15555550100" value="${user.phoneNumber || ''}"></div></div>
    <div class="row2"><div><label for="u-email">Email</label><input id="u-email" name="email" type="email" value="${user.email || ''}"></div>
    <div><label for="u-password">Password${user.localId ? ' (leave empty to keep)' : ''}</label><input id="u-password" name="password" type="text" autocomplete="off"></div></div>
    <label for="u-claims">Custom claims (JSON object)</label><textarea id="u-claims" name="claims" placeholder='{"admin": true}'>${claims}</textarea>
    <label><input type="checkbox" name="disabled" ${html.raw(user.disabled ? 'checked' : '')}> Disabled</label>`;
}

function validate(values) {
  if (values.claims.trim()) {
    let parsed;
    try { parsed = JSON.parse(values.claims); } catch { return 'Custom claims must be valid JSON.'; }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'Custom claims must be a JSON object.';
  }
  if (values.password && values.password.length < 6) return 'The password must be 6 characters long or more.';
  if (values.phoneNumber && !/^\+[1-9]\d{1,14}$/.test(values.phoneNumber)) return 'The phone number must be in E.164 form, like +15555550100.';
  return null;
}

async function save(values, user) {
  const update = { localId: user?.localId };
  if (values.displayName || user?.displayName) update.displayName = values.displayName;
  if (values.email || user?.email) update.email = values.email;
  if (values.phoneNumber || user?.phoneNumber) update.phoneNumber = values.phoneNumber;
  if (values.password) update.password = values.password;
  update.customAttributes = values.claims.trim() ? JSON.stringify(JSON.parse(values.claims)) : '{}';
  update.disableUser = Boolean(values.disabled);
  if (!user) {
    const created = { ...update };
    delete created.customAttributes; delete created.disableUser; delete created.localId;
    for (const key of Object.keys(created)) if (created[key] === '') delete created[key];
    const answer = await call('auth', `${base()}/accounts`, { method: 'POST', body: created });
    update.localId = answer.localId;
  }
  for (const key of ['displayName', 'email', 'phoneNumber']) {
    if (update[key] === '') { delete update[key]; update.deleteAttribute = [...(update.deleteAttribute || []), key === 'displayName' ? 'DISPLAY_NAME' : key === 'phoneNumber' ? 'PHONE_NUMBER' : 'EMAIL']; }
  }
  if (update.deleteAttribute?.includes('PHONE_NUMBER')) { update.deleteProvider = ['phone']; update.deleteAttribute = update.deleteAttribute.filter((a) => a !== 'PHONE_NUMBER'); }
  await call('auth', `${base()}/accounts:update`, { method: 'POST', body: update });
  return update.localId;
}

async function edit(main, user) {
  const values = await dialog(user ? 'Edit user' : 'Add a user', userForm(user), { validate, submit: user ? 'Save' : 'Add user' });
  if (!values) return;
  try {
    const uid = await save(values, user);
    toast(user ? 'User saved.' : `User ${uid} added.`);
    await loadUsers();
    table(main);
  } catch (error) {
    toast(error.message, true);
  }
}

/** Renders the users page into `main`. */
export async function render(main) {
  leave();
  const known = await tenants().catch(() => []);
  if (tenant && !known.some((t) => t.id === tenant)) tenant = '';
  const picker = known.length ? html`<label class="inline">Tenant <select data-tenant><option value="">(project)</option>${known.map((t) =>
    html`<option value="${t.id}" ${html.raw(t.id === tenant ? 'selected' : '')}>${t.displayName ? `${t.displayName} (${t.id})` : t.id}</option>`)}</select></label>` : html``;
  main.innerHTML = html`<h1>Authentication</h1>
    <div class="toolbar">${picker}<input type="search" class="grow" placeholder="Search by email, name, phone or UID" aria-label="Search users" data-search value="${state.search}">
    <button type="button" data-refresh>Refresh</button>
    <button type="button" class="danger" data-clear>Delete all users</button>
    <button type="button" class="primary" data-add>Add user</button></div>
    <div data-table><p class="empty">Loading users…</p></div>`.__html;
  main.querySelector('[data-search]').addEventListener('input', (event) => { state.search = event.target.value; state.page = 0; table(main); });
  main.querySelector('[data-add]').addEventListener('click', () => edit(main, null));
  main.querySelector('[data-tenant]')?.addEventListener('change', async (event) => {
    tenant = event.target.value;
    state.page = 0;
    await loadUsers();
    table(main);
  });
  main.querySelector('[data-refresh]').addEventListener('click', async () => { await loadUsers(); table(main); });
  main.querySelector('[data-clear]').addEventListener('click', async () => {
    if (!confirm(tenant ? `Delete every user of tenant ${tenant}?` : 'Delete every user of this project?')) return;
    await call('auth', `/emulator/v1/${project()}/accounts`, { method: 'DELETE' });
    await loadUsers(); table(main); toast('All users deleted.');
  });
  main.querySelector('[data-table]').addEventListener('click', async (event) => {
    const target = event.target.closest('button');
    if (!target) return;
    if (target.dataset.sort) {
      state.descending = state.sort === target.dataset.sort ? !state.descending : false;
      state.sort = target.dataset.sort;
      table(main);
    } else if (target.dataset.page) {
      state.page += Number(target.dataset.page); table(main);
    } else if (target.dataset.edit) {
      await edit(main, state.users.find((u) => u.localId === target.dataset.edit));
    } else if (target.dataset.delete) {
      if (!confirm(`Delete user ${target.dataset.delete}?`)) return;
      await call('auth', `${base()}/accounts:delete`, { method: 'POST', body: { localId: target.dataset.delete } });
      await loadUsers(); table(main); toast('User deleted.');
    }
  });
  await loadUsers();
  table(main);
  stop = refreshEvery(refreshInterval, () => poll(main));
}

/** Stops reading the users again. */
export function leave() {
  stop?.();
  stop = null;
}
