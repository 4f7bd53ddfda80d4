// Storage: buckets and folders (one level at a time, as the Firebase API lists them), upload with progress
// (a button or drag and drop), preview of images and PDFs, download, delete, metadata (contents type, cache
// control and custom metadata, edited) and download tokens (created and revoked).
// Every byte is read as an administrator, as everything else here: a URL handed to the browser would be read
// under storage.rules, and refused where they deny it or none are loaded. Previews and downloads show the bytes
// from blob: URLs.
import { answerMessage, call, currentConfig, dialog, html, origin, saveBlob, toast } from './api.js';

let view = null;
/**
 * The preview of the selected object (`{key, url, error}`): its bytes as a blob: URL once read, revoked when
 * another object is shown or the page is left.
 */
let preview = null;

const encode = (name) => encodeURIComponent(name);
const route = (bucket, prefix) => `#/storage/${encode(bucket)}${prefix ? '/' + prefix.split('/').filter(Boolean).map(encode).join('/') + '/' : ''}`;
const objectPath = (bucket, name) => `/v0/b/${encode(bucket)}/o/${encode(name)}`;
const baseName = (object) => object.name.split('/').pop();
const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;

// Drawn, not emoji: not every system has an emoji font (Debian's Chromium shows empty boxes without one).
const iconStyle = 'width:1em;height:1em;vertical-align:-.15em;color:var(--muted)';
const folderIcon = html.raw(`<svg viewBox="0 0 16 16" aria-hidden="true" fill="currentColor" style="${iconStyle}">
  <path d="M1 3.5A1.5 1.5 0 0 1 2.5 2h3.6l1.6 1.6h5.8A1.5 1.5 0 0 1 15 5.1v7.4a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 1 12.5z"/></svg>`);
const fileIcon = html.raw(`<svg viewBox="0 0 16 16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.3"
  stroke-linejoin="round" style="${iconStyle}"><path d="M3.5 1.5h5.5l3.5 3.5v9.5h-9z M9 1.5v3.5h3.5"/></svg>`);

function size(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = Number(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${unit ? value.toFixed(1) : value} ${units[unit]}`;
}

async function buckets() {
  const answer = await call('storage', '/storage/v1/b');
  const names = new Set((answer?.items || []).map((b) => b.name));
  names.add(`${currentConfig().projectId}.appspot.com`);
  return [...names].sort();
}

async function list(bucket, prefix) {
  const query = new URLSearchParams({ prefix, delimiter: '/' });
  const answer = await call('storage', `/v0/b/${encode(bucket)}/o?${query}`);
  return { folders: answer?.prefixes || [], files: answer?.items || [] };
}

async function metadata(bucket, name) {
  return call('storage', objectPath(bucket, name));
}

/** The object's bytes, read as an administrator whatever the rules say. */
async function bytes(object) {
  const response = await call('storage', `${objectPath(object.bucket, object.name)}?alt=media`, { raw: true });
  if (!response.ok) throw new Error(`Reading ${object.name} failed: ${answerMessage(await response.text(), `status ${response.status}`)}`);
  return response.blob();
}

function upload(bucket, prefix, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${origin('storage')}/v0/b/${encode(bucket)}/o?name=${encode(prefix + file.name)}`);
    request.setRequestHeader('Authorization', 'Bearer owner');
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onload = () => (request.status < 300 ? resolve()
      : reject(new Error(`Upload of ${file.name} failed: ${answerMessage(request.responseText, `status ${request.status}`)}`)));
    request.onerror = () => reject(new Error(`Upload of ${file.name} failed: the Storage emulator did not answer.`));
    request.send(file);
  });
}

/** What the preview of `object` shows (its bytes, as which type), or '' when it has none. */
function previewKey(object) {
  const type = object?.contentType || '';
  if (!type.startsWith('image/') && type !== 'application/pdf') return '';
  return `${object.bucket}/${object.name}#${object.generation} ${type}`;
}

function releasePreview() {
  if (preview?.url) URL.revokeObjectURL(preview.url);
  preview = null;
}

function draw(main) {
  const { bucket, prefix, all, folders, files, selected } = view;
  // A preview that failed is tried again.
  if (preview && (preview.key !== previewKey(selected) || preview.error)) releasePreview();
  const crumbs = [html`<a href="${route(bucket, '')}">${bucket}</a>`];
  const parts = prefix.split('/').filter(Boolean);
  parts.forEach((part, index) => crumbs.push(html` / <a href="${route(bucket, parts.slice(0, index + 1).join('/'))}">${part}</a>`));
  // The Firebase API lists names only: a file's size and type show when it is opened.
  const rows = [
    ...folders.map((folder) => html`<tr><td>${folderIcon} <a href="${route(bucket, folder)}">${folder.slice(prefix.length)}</a></td><td class="muted">folder</td></tr>`),
    ...files.map((file) => html`<tr data-name="${file.name}" ${html.raw(selected?.name === file.name ? 'aria-selected="true"' : '')}>
      <td>${fileIcon} <button type="button" class="link" data-open="${file.name}">${file.name.slice(prefix.length)}</button></td><td class="muted">file</td></tr>`),
  ];
  const options = all.map((name) => html`<option ${html.raw(name === bucket ? 'selected' : '')}>${name}</option>`);
  main.querySelector('[data-body]').innerHTML = html`
    <div class="toolbar"><label class="inline">Bucket <select data-bucket>${options}</select></label>
      <span class="grow mono">${crumbs}</span>
      <label class="button primary" tabindex="0">Upload files<input type="file" multiple hidden data-upload></label></div>
    <div data-progress></div>
    <div class="split"><div class="panel scroll dropzone" data-drop>
      ${rows.length ? html`<table><thead><tr><th>Name</th><th>Kind</th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="empty">No files here. Drop files on this panel, or use Upload files.</p>`}</div>
      <section class="panel scroll" data-detail>${selected ? detail(selected) : html`<p class="empty">Pick a file to see it and its metadata.</p>`}</section></div>`.__html;
  if (previewKey(selected) && !preview) loadPreview(main);
}

/** Reads the selected object's bytes and shows them, unless another object was picked meanwhile. */
async function loadPreview(main) {
  const reading = { key: previewKey(view.selected), url: null, error: null };
  preview = reading;
  try {
    const blob = await bytes(view.selected);
    if (preview !== reading) return;
    reading.url = URL.createObjectURL(blob);
  } catch (error) {
    reading.error = error.message;
  }
  if (preview === reading) main.querySelector('[data-detail]').innerHTML = detail(view.selected).__html;
}

function detail(object) {
  const type = object.contentType || '';
  const key = previewKey(object);
  const { url, error } = preview?.key === key ? preview : {};
  const shown = !key ? html`<p class="muted">No preview for ${type || 'this type'}.</p>`
    : error ? html`<p class="error">${error}</p>`
    : !url ? html`<p class="muted">Loading the preview…</p>`
    : type === 'application/pdf' ? html`<iframe class="preview" src="${url}" title="${object.name}"></iframe>`
    : html`<img class="preview" src="${url}" alt="${object.name}">`;
  const fields = ['name', 'bucket', 'contentType', 'cacheControl', 'md5Hash', 'crc32c', 'generation', 'timeCreated', 'updated']
    .filter((field) => object[field] !== undefined)
    .map((field) => html`<tr><th>${field}</th><td class="mono">${String(object[field])}</td></tr>`);
  fields.splice(2, 0, html`<tr><th>size</th><td class="mono">${size(object.size)} (${object.size} bytes)</td></tr>`);
  const custom = Object.entries(object.metadata || {}).map(([name, value]) => html`<tr><th>metadata.${name}</th><td class="mono">${value}</td></tr>`);
  const tokens = (object.downloadTokens || '').split(',').filter(Boolean).map((token) => html`<tr><td class="mono">${token}</td>
    <td><button type="button" class="danger" data-revoke-token="${token}" aria-label="Revoke token ${token}">Revoke</button></td></tr>`);
  return html`<h2 class="mono">${baseName(object)}</h2>${shown}
    <div class="toolbar"><button type="button" data-download>Download</button>
    <button type="button" data-edit-metadata>Edit metadata</button>
    <button type="button" class="danger" data-delete="${object.name}">Delete</button></div>
    <table class="meta">${fields}${custom}</table>
    <h2>Download tokens</h2>
    <p class="muted">Anyone with a token reads the file, whatever the rules say. A file always has one: revoking the last makes a new one.</p>
    <table class="meta"><tbody>${tokens}</tbody></table>
    <div class="toolbar"><button type="button" data-create-token>Create a token</button></div>`;
}

function metadataForm(object) {
  const custom = Object.entries(object.metadata || {}).map(([name, value], index) => html`<div class="row2">
    <div><label for="m-value-${index}" class="mono">${name}</label><input id="m-value-${index}" name="value:${name}" value="${value}"></div>
    <div><label style="margin-top:2rem"><input type="checkbox" name="remove:${name}"> Remove ${name}</label></div></div>`);
  return html`<div class="row2"><div><label for="m-type">Content type</label><input id="m-type" name="contentType" value="${object.contentType || ''}"></div>
    <div><label for="m-cache">Cache control</label><input id="m-cache" name="cacheControl" placeholder="public, max-age=3600" value="${object.cacheControl || ''}"></div></div>
    <fieldset class="accounts"><legend>Custom metadata</legend>${custom}
    <div class="row2"><div><label for="m-new-key">Add a key</label><input id="m-new-key" name="newKey"></div>
    <div><label for="m-new-value">Its value</label><input id="m-new-value" name="newValue"></div></div></fieldset>`;
}

/**
 * Edits the object's contents type, cache control and custom metadata (a PATCH: `null` removes); answers the
 * object's new metadata, or null when the dialog was cancelled. A refusal is said in the dialog.
 */
async function editMetadata(object) {
  const current = object.metadata || {};
  let updated = null;
  const values = await dialog(`Metadata of ${baseName(object)}`, metadataForm(object), {
    validate: (typed) => {
      if (typed.newValue && !typed.newKey) return 'Name the key of the new value.';
      if (Object.hasOwn(current, typed.newKey)) return `${typed.newKey} is already a key: change its value above.`;
      if (typed.newKey === 'firebaseStorageDownloadTokens') return 'Download tokens are created and revoked below the metadata.';
      return null;
    },
    commit: async (typed) => {
      const changes = {};
      for (const [name, value] of Object.entries(current)) {
        if (typed[`remove:${name}`]) changes[name] = null;
        else if (typed[`value:${name}`] !== value) changes[name] = typed[`value:${name}`];
      }
      if (typed.newKey) changes[typed.newKey] = typed.newValue;
      updated = await call('storage', objectPath(object.bucket, object.name), {
        method: 'PATCH',
        body: { contentType: typed.contentType || null, cacheControl: typed.cacheControl || null, metadata: changes },
      });
    },
  });
  return values ? updated : null;
}

async function load(main) {
  const [all, listing] = await Promise.all([buckets(), list(view.bucket, view.prefix)]);
  // A visit left while it read must not write into the next visit's view.
  if (!main.isConnected) return;
  Object.assign(view, { all, ...listing });
  if (view.selected && !listing.files.some((f) => f.name === view.selected.name)) view.selected = null;
  draw(main);
}

async function uploadAll(main, files) {
  const progress = main.querySelector('[data-progress]');
  let failed = 0;
  for (const file of files) {
    const bar = document.createElement('p');
    bar.innerHTML = html`<span class="mono">${file.name}</span> <progress max="1" value="0" aria-label="Upload of ${file.name}"></progress>`.__html;
    progress.append(bar);
    try {
      await upload(view.bucket, view.prefix, file, (fraction) => { bar.querySelector('progress').value = fraction; });
    } catch (error) {
      failed += 1;
      toast(error.message, true);
    } finally {
      bar.remove();
    }
  }
  // Each failure has its own message; several files end with the count of each.
  if (!failed) toast(`${plural(files.length, 'file')} uploaded.`);
  else if (files.length > 1) toast(`${files.length - failed} of ${plural(files.length, 'file')} uploaded; ${failed} failed.`, true);
  await load(main);
}

/** Runs what a button of the page asks. */
async function act(main, button) {
  const { dataset } = button;
  const selected = view.selected;
  if (dataset.open) {
    view.selected = await metadata(view.bucket, dataset.open);
    draw(main);
  } else if (dataset.delete) {
    if (!confirm(`Delete ${dataset.delete}?`)) return;
    await call('storage', objectPath(view.bucket, dataset.delete), { method: 'DELETE' });
    view.selected = null;
    toast('File deleted.');
    await load(main);
  } else if (dataset.download !== undefined) {
    saveBlob(await bytes(selected), baseName(selected));
  } else if (dataset.editMetadata !== undefined) {
    const updated = await editMetadata(selected);
    if (!updated) return;
    view.selected = updated;
    draw(main);
    toast('Metadata saved.');
  } else if (dataset.createToken !== undefined) {
    view.selected = await call('storage', `${objectPath(selected.bucket, selected.name)}?create_token=true`, { method: 'POST' });
    draw(main);
    toast('Download token created.');
  } else if (dataset.revokeToken) {
    if (!confirm(`Revoke download token ${dataset.revokeToken}? Links that carry it stop working.`)) return;
    view.selected = await call('storage', `${objectPath(selected.bucket, selected.name)}?delete_token=${encode(dataset.revokeToken)}`, { method: 'POST' });
    draw(main);
    toast('Download token revoked.');
  }
}

/** Renders the Storage browser for the bucket and folder in `args` into `main`. */
export async function render(main, args) {
  const bucket = args[0] || `${currentConfig().projectId}.appspot.com`;
  const prefix = args.slice(1).map((part) => part + '/').join('');
  releasePreview();
  view = { bucket, prefix, all: [], folders: [], files: [], selected: null };
  main.innerHTML = html`<h1>Storage</h1><div data-body><p class="empty">Loading…</p></div>`.__html;
  const body = main.querySelector('[data-body]');
  body.addEventListener('change', (event) => {
    if (event.target.matches('[data-bucket]')) location.hash = route(event.target.value, '');
    if (event.target.matches('[data-upload]')) uploadAll(main, [...event.target.files]);
  });
  body.addEventListener('click', async (event) => {
    const button = event.target.closest('button');
    if (!button) return;
    try {
      await act(main, button);
    } catch (error) {
      toast(error.message, true);
    }
  });
  body.addEventListener('dragover', (event) => { if (event.target.closest('[data-drop]')) event.preventDefault(); });
  body.addEventListener('drop', (event) => {
    if (!event.target.closest('[data-drop]')) return;
    event.preventDefault();
    uploadAll(main, [...event.dataTransfer.files]);
  });
  await load(main);
}

/** Lets the preview's bytes go. */
export function leave() {
  releasePreview();
}
