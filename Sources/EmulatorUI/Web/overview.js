// Overview: every emulator of the suite with its address and its page; export the data to a folder, import
// an export into the running suite, and take, restore and delete checkpoints (the hub's).
import { call, currentConfig, html, toast } from './api.js';

const emulators = [
  { name: 'auth', title: 'Authentication', page: 'auth' },
  { name: 'firestore', title: 'Firestore', page: 'firestore' },
  { name: 'database', title: 'Realtime Database', page: 'database' },
  { name: 'storage', title: 'Storage', page: 'storage' },
  { name: 'hub', title: 'Emulator Hub' },
];

async function drawCheckpoints(main) {
  const answer = await call('hub', '/emulator/v1/checkpoints');
  const rows = (answer?.checkpoints || []).map((c) => html`<tr><td class="mono">${c.name}</td><td>${new Date(c.createTime).toLocaleString()}</td>
    <td><button type="button" data-restore="${c.name}">Restore</button> <button type="button" class="danger" data-forget="${c.name}">Delete</button></td></tr>`);
  main.querySelector('[data-checkpoints]').innerHTML = rows.length
    ? html`<table><thead><tr><th>Checkpoint</th><th>Taken</th><th></th></tr></thead><tbody>${rows}</tbody></table>`.__html
    : html`<p class="empty">No checkpoints. Take one to come back to this state in a moment.</p>`.__html;
}

/** Renders the overview into `main`. */
export async function render(main) {
  const config = currentConfig();
  const cards = emulators.map(({ name, title, page }) => {
    const emulator = config[name];
    const state = emulator ? html`<span class="state on">On</span>` : html`<span class="state off">Off</span>`;
    const address = emulator ? `${emulator.host}:${emulator.port}` : 'not started';
    const link = emulator && page ? html`<p><a class="button" href="#/${page}">Open ${title}</a></p>` : html``;
    return html`<section class="card" data-emulator="${name}"><h2>${title} ${state}</h2>
      <p class="address">${address}</p>${link}</section>`;
  });
  main.innerHTML = html`<h1>Overview</h1>
    <p class="muted">Project <span class="mono">${config.projectId}</span>. Every emulator runs in this one
    <span class="mono">hearth</span> process.</p>
    <div class="cards">${cards}</div>
    <div class="cards wide">
      <section class="card"><h2>Export</h2>
        <p class="muted">Writes every emulator's data to a folder in the official layout, for <span class="mono">hearth start --import</span>.</p>
        <form class="toolbar" data-transfer="export"><input name="path" class="grow" required placeholder="/path/to/export" aria-label="Export folder">
        <button class="primary">Export</button></form></section>
      <section class="card"><h2>Import</h2>
        <p class="muted">Reads an export folder into the running emulators: its users, Firestore databases and Realtime Database
        namespaces replace the ones there; its Storage files are added.</p>
        <form class="toolbar" data-transfer="import"><input name="path" class="grow" required placeholder="/path/to/export" aria-label="Import folder">
        <button class="primary">Import</button></form></section>
      <section class="card"><h2>Checkpoints</h2>
        <form class="toolbar" data-checkpoint><input name="name" class="grow" required placeholder="checkpoint name" aria-label="Checkpoint name" pattern="[A-Za-z0-9_.\\-]+">
        <button class="primary">Take checkpoint</button></form>
        <div data-checkpoints><p class="empty">Loading…</p></div></section>
    </div>`.__html;
  for (const form of main.querySelectorAll('[data-transfer]')) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const kind = form.dataset.transfer;
      const path = new FormData(form).get('path');
      if (kind === 'import' && !confirm(`Import ${path}? The data it holds replaces what the emulators have now.`)) return;
      const button = form.querySelector('button');
      button.disabled = true;
      try {
        const response = await fetch(`/api/${kind}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path }) });
        const answer = await response.json().catch(() => ({}));
        const done = kind === 'export' ? `Exported to ${path}.` : `Imported ${path}.`;
        toast(response.ok ? done : answer.message || `The ${kind} failed (${response.status}).`, !response.ok);
      } finally {
        button.disabled = false;
      }
    });
  }
  if (!config.hub) {
    main.querySelector('[data-checkpoints]').innerHTML = html`<p class="empty">The hub is not running.</p>`.__html;
    return;
  }
  main.querySelector('[data-checkpoint]').addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = new FormData(event.target).get('name');
    try {
      await call('hub', `/emulator/v1/checkpoints/${encodeURIComponent(name)}`, { method: 'POST' });
      toast(`Checkpoint ${name} taken.`);
      event.target.reset();
      await drawCheckpoints(main);
    } catch (error) { toast(error.message, true); }
  });
  main.querySelector('[data-checkpoints]').addEventListener('click', async (event) => {
    const button = event.target.closest('button');
    if (!button) return;
    try {
      if (button.dataset.restore) {
        await call('hub', `/emulator/v1/checkpoints/${encodeURIComponent(button.dataset.restore)}:restore`, { method: 'POST' });
        toast(`Checkpoint ${button.dataset.restore} restored.`);
      } else if (button.dataset.forget) {
        await call('hub', `/emulator/v1/checkpoints/${encodeURIComponent(button.dataset.forget)}`, { method: 'DELETE' });
        await drawCheckpoints(main);
      }
    } catch (error) { toast(error.message, true); }
  });
  await drawCheckpoints(main);
}
