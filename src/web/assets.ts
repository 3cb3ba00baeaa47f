import { createHash } from 'node:crypto';

/**
 * The one stylesheet and the one script of the web interface, served from memory under a content-hashed
 * path (cached for a year, immutable). Both are files, not inline, so the Content-Security-Policy can
 * forbid inline code. Every page works without the script; it only adds comfort.
 */
const CSS = `
:root { --fg:#1d2330; --muted:#5b6475; --bg:#f6f7f9; --card:#fff; --line:#d9dde5; --accent:#1f5fbf; --accent-fg:#fff;
  --ok:#1d7a3a; --warn:#9a5b00; --bad:#b3261e; --focus:#ffbf47; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin:0; color:var(--fg); background:var(--bg); line-height:1.45; }
a { color:var(--accent); }
:focus-visible { outline:3px solid var(--focus); outline-offset:2px; }
.skip { position:absolute; left:-999px; top:0; background:var(--card); padding:.5rem 1rem; }
.skip:focus { left:1rem; z-index:10; }
header.top { background:#17324f; color:#fff; }
header.top .bar { max-width:1100px; margin:0 auto; display:flex; gap:1.25rem; align-items:center; padding:.6rem 1rem; flex-wrap:wrap; }
header.top a { color:#fff; text-decoration:none; }
header.top a[aria-current="page"] { text-decoration:underline; text-underline-offset:4px; }
header.top .brand { font-weight:700; margin-right:auto; }
header.top form { margin:0; }
header.top .who { color:#cfd9e6; }
header.top nav { display:flex; gap:1rem; flex-wrap:wrap; }
header.top button { background:transparent; color:#fff; border:1px solid #8aa3c2; }
main { max-width:1100px; margin:0 auto; padding:1rem; }
h1 { font-size:1.5rem; margin:.5rem 0 1rem; }
h2 { font-size:1.2rem; margin:1.5rem 0 .5rem; }
h3 { font-size:1.05rem; margin:1rem 0 .4rem; }
section.card, .card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:1rem; margin:0 0 1rem; }
.card > h2:first-child, .card > h3:first-child { margin-top:0; }
label { font-weight:600; display:block; margin:.5rem 0 .2rem; }
label.inline { display:inline-flex; gap:.35rem; align-items:center; font-weight:normal; margin:.15rem 1rem .15rem 0; }
input[type=text], input[type=email], input[type=password], input[type=date], input[type=datetime-local], input[type=number], select, textarea {
  font:inherit; padding:.4rem .5rem; border:1px solid #9aa3b2; border-radius:4px; background:#fff; max-width:100%; }
input[type=text], input[type=email], input[type=password], textarea { width:28rem; }
textarea { min-height:5rem; }
button, .button { font:inherit; cursor:pointer; padding:.4rem .9rem; border-radius:4px; border:1px solid var(--accent);
  background:var(--accent); color:var(--accent-fg); text-decoration:none; display:inline-block; }
button.secondary, .button.secondary { background:#fff; color:var(--accent); }
button.small { padding:.15rem .5rem; font-size:.9rem; }
button.danger { background:var(--bad); border-color:var(--bad); }
.actions { display:flex; gap:.5rem; align-items:center; flex-wrap:wrap; margin-top:.75rem; }
form.inline { display:inline; }
table { border-collapse:collapse; width:100%; background:var(--card); }
th, td { text-align:left; padding:.4rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:.85rem; color:var(--muted); font-weight:600; }
.muted { color:var(--muted); font-size:.9rem; }
.notice { border-left:4px solid var(--ok); background:#eef8f0; padding:.6rem .8rem; margin:0 0 1rem; }
.error { border-left:4px solid var(--bad); background:#fcefee; padding:.6rem .8rem; margin:0 0 1rem; }
.warning { border-left:4px solid var(--warn); background:#fff6e5; padding:.6rem .8rem; margin:.5rem 0; }
.badge { display:inline-block; padding:0 .45rem; border-radius:999px; font-size:.82rem; border:1px solid currentColor; white-space:nowrap; }
.s-done, .s-approved, .s-active, .s-accepted { color:var(--ok); }
.s-in_progress, .s-pending { color:var(--warn); }
.s-blocked, .s-rejected, .s-revoked { color:var(--bad); }
.s-expired { color:var(--muted); }
.tabs { display:flex; gap:.5rem; margin-bottom:1rem; }
.tabs a { padding:.3rem .8rem; border:1px solid var(--line); border-radius:4px; background:#fff; text-decoration:none; }
.tabs a[aria-current="page"] { background:var(--accent); color:#fff; border-color:var(--accent); }
progress { width:8rem; }
code.token { display:block; font-size:1.05rem; padding:.6rem; background:#111b2b; color:#e8f0ff; border-radius:4px; word-break:break-all; }
ul.tree, ul.tree ul { list-style:none; padding-left:1.1rem; }
ul.tree > li { margin:.4rem 0; }
.answers article, .comments article { border-top:1px solid var(--line); padding:.6rem 0; }
.text { white-space:pre-wrap; }
.images { display:flex; gap:.5rem; flex-wrap:wrap; margin:.4rem 0; }
.images img { max-width:220px; max-height:220px; border:1px solid var(--line); border-radius:4px; object-fit:contain; background:#fff; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.25rem 1rem; margin:0; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; }
fieldset { border:1px solid var(--line); border-radius:6px; margin:.75rem 0; }
legend { font-weight:600; padding:0 .3rem; }
.login { max-width:26rem; margin:3rem auto; }
.login input[type=email], .login input[type=password] { width:100%; }
[hidden] { display:none !important; }
.actions.presets { margin-top:0; }
.nested { padding-left:1.5rem; }
h4 { margin:.5rem 0; }
details summary { cursor:pointer; color:var(--accent); }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
main { overflow-wrap:anywhere; }
input[type=url], input[type=search] { font:inherit; padding:.4rem .5rem; border:1px solid #9aa3b2; border-radius:4px; background:#fff; width:28rem; max-width:100%; }
input[type=file] { max-width:100%; }
.hint { color:var(--muted); font-size:.85rem; margin:.2rem 0; }
.field-error { color:var(--bad); font-weight:600; margin:.2rem 0; }
[aria-invalid="true"] { border-color:var(--bad) !important; box-shadow:0 0 0 1px var(--bad); }
ul.images, ul.links { padding:0; list-style:none; }
ul.images { display:flex; gap:.5rem; flex-wrap:wrap; margin:.4rem 0; }
ul.images img, .preview img { width:auto; height:auto; max-width:140px; max-height:140px; border:1px solid var(--line); border-radius:4px; background:#fff; display:block; }
.preview { display:flex; gap:.4rem; flex-wrap:wrap; }
.preview img { max-width:72px; max-height:72px; }
fieldset.link-row { display:grid; gap:0 .75rem; grid-template-columns:minmax(0,2fr) minmax(0,3fr) minmax(0,1fr); align-items:start; }
fieldset.link-row input, fieldset.link-row select { width:100%; }
select + label.inline { display:flex; margin-top:.75rem; }
.filters { display:flex; flex-wrap:wrap; gap:.25rem 1rem; align-items:flex-end; }
.filters > div { min-width:10rem; }
.counts { color:var(--muted); font-size:.9rem; font-weight:normal; }
.pager { display:flex; gap:1rem; align-items:center; flex-wrap:wrap; margin:1rem 0; }
@media (max-width: 640px) {
  main { padding:.6rem; }
  header.top .bar { gap:.5rem 1rem; }
  input[type=text], input[type=email], input[type=password], input[type=url], input[type=search], textarea, select { width:100%; }
  .filters > div { flex:1 1 100%; }
  main table thead { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); }
  main table, main table tbody, main table tr, main table td { display:block; width:100%; }
  main table tr { border-bottom:1px solid var(--line); padding:.35rem 0; }
  main table td { border:0; padding:.1rem .25rem; }
  main table td[data-label]::before { content:attr(data-label) ": "; color:var(--muted); font-size:.85rem; }
  fieldset.link-row { display:block; }
  dl.facts { grid-template-columns:1fr; }
  dl.facts dd { margin-bottom:.4rem; }
  progress { width:5rem; }
}
`;

const JS = `
(function () {
  'use strict';
  // Forms that ask before submitting: a confirm() dialog; accepting it marks the form as confirmed.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var message = form.getAttribute('data-confirm');
    if (!message) return;
    if (!window.confirm(message)) { event.preventDefault(); return; }
    var field = form.querySelector('input[name="confirmed"]');
    if (field) field.value = '1';
  });
  // Token expiry: the date input only matters for "On a date".
  var expiry = document.getElementById('token-expiry');
  var dateField = document.getElementById('token-expiry-date-field');
  if (expiry && dateField) {
    var sync = function () { dateField.hidden = expiry.value !== 'date'; };
    expiry.addEventListener('change', sync);
    sync();
  }
  // Scope presets.
  document.querySelectorAll('[data-preset]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var wanted = button.getAttribute('data-preset').split(' ');
      document.querySelectorAll('input[name="scopes"]').forEach(function (box) {
        box.checked = wanted.indexOf(box.value) >= 0;
      });
    });
  });
  // Copy the new token.
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      var text = source.textContent;
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { selectText(source); });
      } else { selectText(source); }
    });
  });
  function selectText(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  // Photos: a preview of the chosen images before they are sent.
  document.addEventListener('change', function (event) {
    var input = event.target;
    if (!input.matches || !input.matches('input[type=file][data-preview]')) return;
    var box = document.querySelector('[data-preview-for="' + input.id + '"]');
    if (!box) return;
    box.textContent = '';
    Array.prototype.forEach.call(input.files || [], function (file) {
      if (file.type.indexOf('image/') !== 0) return;
      var img = document.createElement('img');
      img.src = URL.createObjectURL(file);
      img.alt = 'Selected: ' + file.name;
      box.appendChild(img);
    });
  });
  // Forms marked data-enhance (the status) are sent in the background: the page's content is replaced by the
  // page the server answers with, without a full reload. Anything unexpected falls back to a normal submit.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form.hasAttribute || !form.hasAttribute('data-enhance') || !window.fetch || !window.DOMParser) return;
    event.preventDefault();
    var button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
    fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok || !response.redirected) throw new Error('not saved');
        return response.text().then(function (text) {
          var next = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
          var main = document.querySelector('main');
          if (!next || !main) throw new Error('no page');
          main.innerHTML = next.innerHTML;
          history.replaceState(null, '', response.url);
          var notice = main.querySelector('[role=status]');
          if (notice) notice.setAttribute('tabindex', '-1');
          var again = document.getElementById(form.id);
          if (again) { var select = again.querySelector('select'); if (select) select.focus(); }
        });
      })
      .catch(function () { if (button) button.disabled = false; HTMLFormElement.prototype.submit.call(form); });
  });
  // Membership form: section and checklist choices only matter for limited access.
  document.querySelectorAll('[data-limited-toggle]').forEach(function (form) {
    var parts = form.querySelector('[data-limited-parts]');
    var sync = function () {
      var limited = form.querySelector('input[name="access"]:checked');
      if (parts) parts.hidden = !limited || limited.value !== 'limited';
    };
    form.addEventListener('change', sync);
    sync();
  });
})();
`;

function asset(body: string, type: string, name: string, ext: string) {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}.${hash}.${ext}`, body, type };
}

export const STYLESHEET = asset(CSS, 'text/css; charset=utf-8', 'app', 'css');
export const SCRIPT = asset(JS, 'text/javascript; charset=utf-8', 'app', 'js');
