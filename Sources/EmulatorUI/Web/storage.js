// Storage: buckets and folders (one level at a time, as the Firebase API lists them), upload with progress
// (a button or drag and drop), preview of images and PDFs, download, delete, metadata and download tokens.
import { call, currentConfig, html, origin, toast } from './api.js';

let view = null;

const encode = (name) => encodeURIComponent(name);
const route = (bucket, prefix) => `#/storage/${encode(bucket)}${prefix ? '/' + prefix.split('/').filter(Boolean).map(encode).join('/') + '/' : ''}`;

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
  return call('storage', `/v0/b/${encode(bucket)}/o/${encode(name)}`);
}

/** A URL the browser can load without headers: the object with its first download token. */
function mediaURL(bucket, object) {
  const token = (object.downloadTokens || '').split(',')[0];
  return `${origin('storage')}/v0/b/${encode(bucket)}/o/${encode(object.name)}?alt=media${token ? `&token=${encodeURIComponent(token)}` : ''}`;
}

function upload(bucket, prefix, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${origin('storage')}/v0/b/${encode(bucket)}/o?name=${encode(prefix + file.name)}`);
    request.setRequestHeader('Authorization', 'Bearer owner');
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onload = () => (request.status < 300 ? resolve() : reject(new Error(`Upload of ${file.name} failed: ${request.status} ${request.responseText}`)));
    request.onerror = () => reject(new Error(`Upload of ${file.name} failed.`));
    request.send(file);
  });
}

function draw(main) {
  const { bucket, prefix, all, folders, files, selected } = view;
  const crumbs = [html`<a href="${route(bucket, '')}">${bucket}</a>`];
  const parts = prefix.split('/').filter(Boolean);
  parts.forEach((part, index) => crumbs.push(html` / <a href="${route(bucket, parts.slice(0, index + 1).join('/'))}">${part}</a>`));
  // The Firebase API lists names only: a file's size and type show when it is opened.
  const rows = [
    ...folders.map((folder) => html`<tr><td><span aria-hidden="true">📁</span> <a href="${route(bucket, folder)}">${folder.slice(prefix.length)}</a></td><td class="muted">folder</td></tr>`),
    ...files.map((file) => html`<tr data-name="${file.name}" ${html.raw(selected?.name === file.name ? 'aria-selected="true"' : '')}>
      <td><span aria-hidden="true">📄</span> <button type="button" class="link" data-open="${file.name}">${file.name.slice(prefix.length)}</button></td><td class="muted">file</td></tr>`),
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
}

function detail(object) {
  const url = mediaURL(view.bucket, object);
  const type = object.contentType || '';
  const preview = type.startsWith('image/') ? html`<img class="preview" src="${url}" alt="${object.name}">`
    : type === 'application/pdf' ? html`<iframe class="preview" src="${url}" title="${object.name}"></iframe>`
    : html`<p class="muted">No preview for ${type || 'this type'}.</p>`;
  const fields = ['name', 'bucket', 'contentType', 'md5Hash', 'crc32c', 'generation', 'timeCreated', 'updated', 'downloadTokens']
    .filter((key) => object[key] !== undefined)
    .map((key) => html`<tr><th>${key}</th><td class="mono">${String(object[key])}</td></tr>`);
  fields.splice(2, 0, html`<tr><th>size</th><td class="mono">${size(object.size)} (${object.size} bytes)</td></tr>`);
  const custom = Object.entries(object.metadata || {}).map(([key, value]) => html`<tr><th>metadata.${key}</th><td class="mono">${value}</td></tr>`);
  return html`<h2 class="mono">${object.name.split('/').pop()}</h2>${preview}
    <div class="toolbar"><a class="button" href="${url}" download="${object.name.split('/').pop()}">Download</a>
    <button type="button" class="danger" data-delete="${object.name}">Delete</button></div>
    <table class="meta">${fields}${custom}</table>`;
}

async function load(main) {
  const [all, listing] = await Promise.all([buckets(), list(view.bucket, view.prefix)]);
  Object.assign(view, { all, ...listing });
  if (view.selected && !listing.files.some((f) => f.name === view.selected.name)) view.selected = null;
  draw(main);
}

async function uploadAll(main, files) {
  const progress = main.querySelector('[data-progress]');
  for (const file of files) {
    const bar = document.createElement('p');
    bar.innerHTML = html`<span class="mono">${file.name}</span> <progress max="1" value="0" aria-label="Upload of ${file.name}"></progress>`.__html;
    progress.append(bar);
    try {
      await upload(view.bucket, view.prefix, file, (fraction) => { bar.querySelector('progress').value = fraction; });
      bar.remove();
    } catch (error) {
      bar.remove();
      toast(error.message, true);
    }
  }
  toast(`${files.length} file${files.length === 1 ? '' : 's'} uploaded.`);
  await load(main);
}

/** Renders the Storage browser for the bucket and folder in `args` into `main`. */
export async function render(main, args) {
  const bucket = args[0] || `${currentConfig().projectId}.appspot.com`;
  const prefix = args.slice(1).map((part) => part + '/').join('');
  view = { bucket, prefix, all: [], folders: [], files: [], selected: null };
  main.innerHTML = html`<h1>Storage</h1><div data-body><p class="empty">Loading…</p></div>`.__html;
  main.querySelector('[data-body]').addEventListener('change', (event) => {
    if (event.target.matches('[data-bucket]')) location.hash = route(event.target.value, '');
    if (event.target.matches('[data-upload]')) uploadAll(main, [...event.target.files]);
  });
  main.querySelector('[data-body]').addEventListener('click', async (event) => {
    const target = event.target.closest('button');
    if (!target) return;
    try {
      if (target.dataset.open) {
        view.selected = await metadata(view.bucket, target.dataset.open);
        draw(main);
      } else if (target.dataset.delete) {
        if (!confirm(`Delete ${target.dataset.delete}?`)) return;
        await call('storage', `/v0/b/${encode(view.bucket)}/o/${encode(target.dataset.delete)}`, { method: 'DELETE' });
        view.selected = null;
        toast('File deleted.');
        await load(main);
      }
    } catch (error) {
      toast(error.message, true);
    }
  });
  const body = main.querySelector('[data-body]');
  body.addEventListener('dragover', (event) => { if (event.target.closest('[data-drop]')) event.preventDefault(); });
  body.addEventListener('drop', (event) => {
    if (!event.target.closest('[data-drop]')) return;
    event.preventDefault();
    uploadAll(main, [...event.dataTransfer.files]);
  });
  await load(main);
}
