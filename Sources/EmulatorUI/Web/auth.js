// Authentication: the users of the project (or of one of its tenants), sorted and paged by the emulator, or
// searched in the page; add, edit, delete; the identity-provider accounts the emulator's sign-in page offers
// (those linked to users: link and unlink them in a user's dialog); the project's one-account-per-email setting.
// Users that apps or the Admin SDK create show within a second. What is read every second stays small however
// many users there are: the count and the page shown (50 users). A search and the accounts view need every user
// (the API matches whole values only): they are read once, and again when the count changes or on Refresh.
import { call, currentConfig, dialog, html, refreshEvery, replaceHTML, toast } from './api.js';

const pageSize = 50;
const refreshInterval = 1000;
/**
 * What the page shows and what it read: `users` is one page of them in the order asked, or every user when
 * `every` (a search, or the accounts view); `total` counts every user; `read` names the read that filled them.
 */
let state = { users: [], total: 0, every: false, read: '', search: '', sort: 'createdAt', descending: true, page: 0, view: 'users' };

/** The identity providers the emulator's sign-in page stands in for. */
const identityProviders = ['google.com', 'apple.com', 'facebook.com', 'github.com', 'microsoft.com', 'twitter.com', 'yahoo.com'];
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

/** The `SortByField` of each column the emulator sorts by. */
const sortFields = { email: 'USER_EMAIL', displayName: 'NAME', createdAt: 'CREATED_AT', lastLoginAt: 'LAST_LOGIN_AT', localId: 'USER_ID' };

/** What the table needs read: every user, or the page shown in the order asked (the `accounts:query` body). */
function wanted() {
  if (state.search || state.view === 'accounts') return { every: true, query: {} };
  return {
    every: false,
    query: { sortBy: sortFields[state.sort], order: state.descending ? 'DESC' : 'ASC', offset: state.page * pageSize, limit: pageSize },
  };
}

/** Names a read: what was wanted, of which tenant. */
const wantedKey = () => JSON.stringify([tenant, wanted()]);

async function countUsers() {
  const answer = await call('auth', `${base()}/accounts:query`, { method: 'POST', body: { returnUserInfo: false } });
  return Number(answer?.recordsCount || 0);
}

/** The read under way (`{key, done}`): whoever wants the same users meanwhile (a burst of keystrokes) shares it. */
let reading = null;

/**
 * Reads the users `wanted()` names into `state`, sharing a read of the same under way unless `fresh` (after a
 * change). A read the page moved on from before it was answered is dropped.
 */
function loadUsers(fresh = false) {
  const { every, query } = wanted();
  const key = wantedKey();
  if (fresh || reading?.key !== key) {
    const done = (async () => {
      const [total, answer] = await Promise.all([
        countUsers(), call('auth', `${base()}/accounts:query`, { method: 'POST', body: query })]);
      if (wantedKey() !== key) return;
      Object.assign(state, { total, users: answer?.userInfo || [], every, read: key });
      // Users deleted elsewhere can leave the page shown past the last one.
      if (!every && state.page > 0 && state.page * pageSize >= total) {
        state.page = Math.max(0, Math.ceil(total / pageSize) - 1);
        await loadUsers(true);
      }
    })().finally(() => { if (reading?.done === done) reading = null; });
    reading = { key, done };
  }
  return reading.done;
}

/** Draws the table, reading the users first when it needs others than those read (another page or order). */
async function show(main) {
  if (state.read !== wantedKey()) await loadUsers();
  table(main);
}

/** Redraws the table if the users changed: the count and the page each time, every user only when the count changed. */
async function poll(main) {
  if (state.every && state.read === wantedKey() && await countUsers() === state.total) return;
  await loadUsers();
  if (JSON.stringify([state.total, state.users]) !== drawn) table(main);
}

function provider(user) {
  const providers = (user.providerUserInfo || []).map((p) => p.providerId);
  if (providers.length) return providers.join(', ');
  return user.email || user.phoneNumber ? 'password' : 'anonymous';
}

function matches(user, search) {
  if (!search) return true;
  const accounts = (user.providerUserInfo || []).flatMap((p) => [p.providerId, p.email, p.displayName, p.rawId]);
  const text = [user.localId, user.email, user.displayName, user.phoneNumber, ...accounts].filter(Boolean).join(' ').toLowerCase();
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

/** The identity-provider accounts linked to the users: what the emulator's sign-in page offers. */
function accountsTable(main) {
  const accounts = state.users.filter((u) => matches(u, state.search)).flatMap((user) => (user.providerUserInfo || [])
    .filter((p) => !['password', 'phone'].includes(p.providerId))
    .map((p) => ({ ...p, user })));
  accounts.sort((a, b) => a.providerId.localeCompare(b.providerId) || (a.email || '').localeCompare(b.email || ''));
  const rows = accounts.map((a) => html`<tr><td>${a.providerId}</td><td class="mono">${a.rawId || ''}</td><td>${a.email || ''}</td>
    <td>${a.displayName || ''}</td><td class="mono">${a.user.localId}</td>
    <td><button type="button" data-edit="${a.user.localId}">Edit user</button></td></tr>`);
  replaceHTML(main.querySelector('[data-table]'), html`<p class="muted">The accounts the emulator's sign-in page offers for
    <span class="mono">signInWithPopup</span> and <span class="mono">signInWithRedirect</span>: each is linked to a user. Link one in
    a user's dialog, or add a new account on the sign-in page itself.</p>
    <table><thead><tr><th scope="col">Provider</th><th scope="col">Account ID</th><th scope="col">Email</th>
    <th scope="col">Display name</th><th scope="col">User UID</th><th><span class="muted">Actions</span></th></tr></thead>
    <tbody>${rows.length ? rows : html`<tr><td colspan="6" class="empty">No identity-provider accounts${state.search ? ' match the search' : ''}. Link one to a user, or sign in with a provider from your app.</td></tr>`}</tbody></table>`);
}

function table(main) {
  drawn = JSON.stringify([state.total, state.users]);
  if (state.view === 'accounts') { accountsTable(main); return; }
  // With every user here (a search), they are filtered, sorted and paged here; else the emulator sent the page.
  const matching = state.every ? visibleUsers() : null;
  const count = matching ? matching.length : state.total;
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (matching) state.page = Math.min(state.page, pages - 1);
  const shown = matching ? matching.slice(state.page * pageSize, (state.page + 1) * pageSize) : state.users;
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
    : html`<tr><td colspan="7" class="empty">${state.total ? 'No user matches the search.' : 'No users yet. Add one here, or sign up from your app.'}</td></tr>`;
  replaceHTML(main.querySelector('[data-table]'), html`<table><thead><tr>${header}<th><span class="muted">Actions</span></th></tr></thead>
    <tbody>${body}</tbody></table>
    <div class="toolbar" style="margin-top:.6rem"><span class="grow muted">${count} of ${state.total} users</span>
    <button type="button" data-page="-1" ${html.raw(state.page === 0 ? 'disabled' : '')}>Previous</button>
    <span>Page ${state.page + 1} of ${pages}</span>
    <button type="button" data-page="1" ${html.raw(state.page >= pages - 1 ? 'disabled' : '')}>Next</button></div>`);
}

/** The dialog's fields for `user` (none: a new user). */
function userForm(user) {
  let claims = '';
  if (user?.customAttributes) {
    try { claims = JSON.stringify(JSON.parse(user.customAttributes), null, 2); } catch { claims = user.customAttributes; }
  }
  return html`<div class="row2"><div><label for="u-name">Display name</label><input id="u-name" name="displayName" value="${user?.displayName || ''}"></div>
    <div><label for="u-phone">Phone number</label><input id="u-phone" name="phoneNumber" placeholder="+15555550100" value="${user?.phoneNumber || ''}"></div></div>
    <div class="row2"><div><label for="u-email">Email</label><input id="u-email" name="email" type="email" value="${user?.email || ''}"></div>
    <div><label for="u-password">Password${user ? ' (leave empty to keep)' : ''}</label><input id="u-password" name="password" type="text" autocomplete="off"></div></div>
    <label for="u-claims">Custom claims (JSON object)</label><textarea id="u-claims" name="claims" placeholder='{"admin": true}'>${claims}</textarea>
    <label><input type="checkbox" name="disabled" ${html.raw(user?.disabled ? 'checked' : '')}> Disabled</label>
    ${identityFields(user)}`;
}

/** The user's identity-provider accounts (each may be unlinked) and the fields that link a new one. */
function identityFields(user) {
  const linked = (user?.providerUserInfo || []).filter((p) => !['password', 'phone'].includes(p.providerId));
  const rows = linked.map((p) => html`<label><input type="checkbox" name="unlink:${p.providerId}"> Unlink
    <span class="mono">${p.providerId}</span> ${p.email || p.rawId}${p.displayName ? ` (${p.displayName})` : ''}</label>`);
  const options = identityProviders.map((id) => html`<option>${id}</option>`);
  return html`<fieldset class="accounts"><legend>Identity-provider accounts</legend>${rows}
    <div class="row3"><div><label for="u-idp">Link an account</label><select id="u-idp" name="idp"><option value="">(none)</option>${options}</select></div>
    <div><label for="u-idp-email">Its email</label><input id="u-idp-email" name="idpEmail" type="email"></div>
    <div><label for="u-idp-name">Its display name</label><input id="u-idp-name" name="idpName"></div></div></fieldset>`;
}

/** A new account ID, in the form of Google's (21 digits). */
function accountID() {
  return '1' + Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => String(b % 10)).join('');
}

/** The claims ID tokens carry themselves, which custom claims may not name (the emulator's list, production's). */
const reservedClaims = ['acr', 'amr', 'at_hash', 'aud', 'auth_time', 'azp', 'c_hash', 'cnf', 'exp', 'firebase', 'iat', 'iss', 'jti', 'nbf', 'nonce', 'sub'];
/** The most characters custom claims may take, as JSON (production's limit). */
const claimsLimit = 1000;

function validate(values) {
  if (values.claims.trim()) {
    let parsed;
    try { parsed = JSON.parse(values.claims); } catch { return 'Custom claims must be valid JSON.'; }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'Custom claims must be a JSON object.';
    const reserved = Object.keys(parsed).filter((name) => reservedClaims.includes(name));
    if (reserved.length) {
      return `${reserved.join(', ')} ${reserved.length === 1 ? 'is a claim' : 'are claims'} every ID token carries: custom claims may not use ${reserved.length === 1 ? 'that name' : 'those names'}.`;
    }
    const length = JSON.stringify(parsed).length;
    if (length > claimsLimit) return `Custom claims may take ${claimsLimit} characters at most (as JSON); these take ${length}.`;
  }
  if (values.password && values.password.length < 6) return 'The password must be 6 characters long or more.';
  if (values.phoneNumber && !/^\+[1-9]\d{1,14}$/.test(values.phoneNumber)) return 'The phone number must be in E.164 form, like +15555550100.';
  if (!values.idp && (values.idpEmail || values.idpName)) return 'Pick the provider of the account to link.';
  return null;
}

/** What the Identity Toolkit's refusals (`CODE` or `CODE : detail`) mean to someone filling in the dialog. */
const refusals = {
  EMAIL_EXISTS: 'A user with this email already exists.',
  INVALID_EMAIL: 'The email address is not valid.',
  WEAK_PASSWORD: 'The password must be 6 characters long or more.',
  PHONE_NUMBER_EXISTS: 'A user with this phone number already exists.',
  INVALID_PHONE_NUMBER: 'The phone number must be in E.164 form, like +15555550100.',
  DUPLICATE_LOCAL_ID: 'A user with this UID already exists.',
  FORBIDDEN_CLAIM: 'The custom claims use a name every ID token carries itself.',
  CLAIMS_TOO_LARGE: `Custom claims may take ${claimsLimit} characters at most (as JSON).`,
  INVALID_CLAIMS: 'Custom claims must be a JSON object.',
  USER_NOT_FOUND: 'This user no longer exists.',
  FEDERATED_USER_ID_ALREADY_LINKED: 'This identity-provider account is linked to another user.',
};

/** A refusal's readable text, with its code kept for a search of the documentation. */
function readable(error) {
  const code = error.message.split(' : ')[0].trim();
  return refusals[code] ? `${refusals[code]} (${error.message})` : error.message;
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
  const unlinked = Object.keys(values).filter((key) => key.startsWith('unlink:') && values[key]).map((key) => key.slice('unlink:'.length));
  if (update.deleteAttribute?.includes('PHONE_NUMBER')) { unlinked.push('phone'); update.deleteAttribute = update.deleteAttribute.filter((a) => a !== 'PHONE_NUMBER'); }
  if (unlinked.length) update.deleteProvider = unlinked;
  if (values.idp) {
    update.linkProviderUserInfo = { providerId: values.idp, rawId: accountID() };
    if (values.idpEmail) update.linkProviderUserInfo.email = values.idpEmail;
    if (values.idpName) update.linkProviderUserInfo.displayName = values.idpName;
  }
  try {
    await call('auth', `${base()}/accounts:update`, { method: 'POST', body: update });
  } catch (error) {
    // A user is added in two calls: one refused second leaves no user half made.
    if (!user) await call('auth', `${base()}/accounts:delete`, { method: 'POST', body: { localId: update.localId } });
    throw error;
  }
  return update.localId;
}

/** Adds a user (none given) or edits one; a refusal is said in the dialog, which keeps what was typed. */
async function edit(main, user) {
  let uid = null;
  const values = await dialog(user ? 'Edit user' : 'Add a user', userForm(user), {
    validate,
    submit: user ? 'Save' : 'Add user',
    commit: async (typed) => {
      try { uid = await save(typed, user); } catch (error) { throw new Error(readable(error)); }
    },
  });
  if (!values) return;
  toast(user ? 'User saved.' : `User ${uid} added.`);
  await loadUsers(true);
  table(main);
}

/** Renders the users page into `main`. */
export async function render(main) {
  leave();
  const known = await tenants().catch(() => []);
  if (tenant && !known.some((t) => t.id === tenant)) tenant = '';
  const picker = known.length ? html`<label class="inline">Tenant <select data-tenant><option value="">(project)</option>${known.map((t) =>
    html`<option value="${t.id}" ${html.raw(t.id === tenant ? 'selected' : '')}>${t.displayName ? `${t.displayName} (${t.id})` : t.id}</option>`)}</select></label>` : html``;
  const views = [['users', 'Users'], ['accounts', 'Identity-provider accounts']].map(([id, title]) =>
    html`<button type="button" role="tab" data-view="${id}" aria-selected="${String(state.view === id)}">${title}</button>`);
  main.innerHTML = html`<h1>Authentication</h1>
    <div class="toolbar"><div role="tablist" class="tabs grow">${views}</div>
    <label class="inline" title="Production's 'Link accounts that use the same email' setting, the other way round"><input type="checkbox" data-duplicates> Allow several accounts with the same email</label></div>
    <div class="toolbar">${picker}<input type="search" class="grow" placeholder="Search by email, name, phone, UID or provider" aria-label="Search users" data-search value="${state.search}">
    <button type="button" data-refresh>Refresh</button>
    <button type="button" class="danger" data-clear>Delete all users</button>
    <button type="button" class="primary" data-add>Add user</button></div>
    <div data-table><p class="empty">Loading users…</p></div>`.__html;
  main.querySelector('[data-search]').addEventListener('input', (event) => { state.search = event.target.value; state.page = 0; show(main); });
  main.querySelector('[data-add]').addEventListener('click', () => edit(main, null));
  for (const tab of main.querySelectorAll('[data-view]')) {
    tab.addEventListener('click', () => {
      state.view = tab.dataset.view;
      main.querySelectorAll('[data-view]').forEach((t) => t.setAttribute('aria-selected', String(t === tab)));
      show(main);
    });
  }
  const duplicates = main.querySelector('[data-duplicates]');
  const settings = () => `/emulator/v1/projects/${encodeURIComponent(currentConfig().projectId)}/config`;
  const showSetting = async () => {
    duplicates.disabled = Boolean(tenant);
    duplicates.closest('label').hidden = Boolean(tenant);
    if (!tenant) duplicates.checked = Boolean((await call('auth', settings()))?.signIn?.allowDuplicateEmails);
  };
  duplicates.addEventListener('change', async () => {
    try {
      await call('auth', settings(), { method: 'PATCH', body: { signIn: { allowDuplicateEmails: duplicates.checked } } });
      toast(duplicates.checked ? 'Several accounts may now share an email.' : 'One account per email.');
    } catch (error) {
      toast(error.message, true);
      await showSetting();
    }
  });
  await showSetting().catch(() => {});
  main.querySelector('[data-tenant]')?.addEventListener('change', async (event) => {
    tenant = event.target.value;
    state.page = 0;
    await showSetting().catch(() => {});
    await show(main);
  });
  main.querySelector('[data-refresh]').addEventListener('click', async () => { await loadUsers(true); table(main); });
  main.querySelector('[data-clear]').addEventListener('click', async () => {
    if (!confirm(tenant ? `Delete every user of tenant ${tenant}?` : 'Delete every user of this project?')) return;
    await call('auth', `/emulator/v1/${project()}/accounts`, { method: 'DELETE' });
    await loadUsers(true); table(main); toast('All users deleted.');
  });
  main.querySelector('[data-table]').addEventListener('click', async (event) => {
    const target = event.target.closest('button');
    if (!target) return;
    if (target.dataset.sort) {
      state.descending = state.sort === target.dataset.sort ? !state.descending : false;
      state.sort = target.dataset.sort;
      await show(main);
    } else if (target.dataset.page) {
      state.page += Number(target.dataset.page);
      await show(main);
    } else if (target.dataset.edit) {
      await edit(main, state.users.find((u) => u.localId === target.dataset.edit));
    } else if (target.dataset.delete) {
      if (!confirm(`Delete user ${target.dataset.delete}?`)) return;
      await call('auth', `${base()}/accounts:delete`, { method: 'POST', body: { localId: target.dataset.delete } });
      await loadUsers(true); table(main); toast('User deleted.');
    }
  });
  await loadUsers(true);
  table(main);
  stop = refreshEvery(refreshInterval, () => poll(main), main);
}

/** Stops reading the users again. */
export function leave() {
  stop?.();
  stop = null;
}
