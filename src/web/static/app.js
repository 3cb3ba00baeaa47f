(function () {
  'use strict';
  // The scripts' words in the page's language (layout.ts writes them into <meta name="punchlist-messages">, from
  // i18n/scripts.json): `text` a message by name, `plural` a count's form by the language's plural rules; English
  // when the page has none.
  var words = (function () {
    var block = document.querySelector('meta[name="punchlist-messages"]');
    try {
      return block ? JSON.parse(block.getAttribute('content')) : null;
    } catch {
      return null;
    }
  })();
  var rules = new Intl.PluralRules((words && words.language) || 'en');
  window.punchlistWords = {
    text: function (name, english) {
      var found = words && words.messages[name];
      return typeof found === 'string' ? found : english;
    },
    plural: function (name, count, english) {
      var forms = words && words.messages[name];
      if (!forms || typeof forms !== 'object') return english;
      return forms[rules.select(count)] || forms.other || english;
    },
  };
  var word = window.punchlistWords.text;
  // The browser's time zone: sent with the sign-in form (the default of a user who chose none) and preselected
  // in the Profile's time zone select while none is chosen.
  var browserZone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (browserZone) {
    document.querySelectorAll('input[data-browser-time-zone]').forEach(function (field) {
      if (!field.value) field.value = browserZone;
    });
    document.querySelectorAll('select[data-browser-time-zone]').forEach(function (select) {
      if (select.value) return;
      for (var i = 0; i < select.options.length; i++) {
        if (select.options[i].value === browserZone) select.value = browserZone;
      }
    });
  }
  // A refused form starts with its error summary (views/forms.ts): focused, and so scrolled to, when the page opens,
  // so what to fix is read first; each of its links leads to a field.
  var summary = document.querySelector('[data-error-summary]');
  if (summary) summary.focus();
  // A dashboard chart's bar (views/charts.ts): a click or a tap opens the list it counts, as the number's link in
  // the table beside it does (the chart itself is an image: no controls inside it for assistive technology).
  document.addEventListener('click', function (event) {
    var bar = event.target.closest && event.target.closest('svg [data-href]');
    if (bar) window.location.assign(bar.getAttribute('data-href'));
  });
  // Forms that ask before submitting: a confirm() dialog; accepting it marks the form as confirmed.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var message = form.getAttribute('data-confirm');
    if (!message) return;
    if (!window.confirm(message)) {
      event.preventDefault();
      return;
    }
    var field = form.querySelector('input[name="confirmed"]');
    if (field) field.value = '1';
  });
  // Token expiry: the date input only matters for "On a date".
  var expiry = document.getElementById('token-expiry');
  var dateField = document.getElementById('token-expiry-date-field');
  if (expiry && dateField) {
    var sync = function () {
      dateField.hidden = expiry.value !== 'date';
    };
    expiry.addEventListener('change', sync);
    sync();
  }
  // Scope presets: without the script they submit the form, which comes back with the preset ticked.
  document.querySelectorAll('[data-preset]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function (event) {
      event.preventDefault();
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
      var done = function () {
        button.textContent = word('copied', 'Copied');
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () {
          selectText(source);
        });
      } else {
        selectText(source);
      }
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
      img.alt = word('selected', 'Selected:') + ' ' + file.name;
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
    var unreachable = false;
    fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' })
      .catch(function (error) {
        unreachable = true;
        throw error;
      })
      .then(function (response) {
        if (!response.ok || !response.redirected) throw new Error('not saved');
        return response.text().then(function (text) {
          var next = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
          var main = document.querySelector('main');
          if (!next || !main) throw new Error('no page');
          main.innerHTML = next.innerHTML;
          history.replaceState(null, '', response.url);
          document.dispatchEvent(new CustomEvent('punchlist:content'));
          var notice = main.querySelector('[role=status]');
          if (notice) notice.setAttribute('tabindex', '-1');
          var again = document.getElementById(form.id);
          if (again) {
            var select = again.querySelector('select');
            if (select) select.focus();
          }
        });
      })
      .catch(function () {
        if (button) button.disabled = false;
        // The server could not be reached: the write waits on the device (offline.js) instead of being lost.
        if (unreachable && window.punchlistOutbox) return window.punchlistOutbox.queue(form);
        HTMLFormElement.prototype.submit.call(form);
      });
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
  // The navigation's unread notifications: asked again every 45 s while the tab is visible, and on coming back to it.
  var counter = document.querySelector('[data-notification-count]');
  if (counter && window.fetch) {
    var refresh = function () {
      if (document.visibilityState !== 'visible') return;
      fetch('/notifications/count', { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (response) {
          return response.ok ? response.json() : null;
        })
        .then(function (body) {
          if (!body || typeof body.unread !== 'number') return;
          counter.querySelector('[data-count]').textContent = String(body.unread);
          counter.hidden = body.unread === 0;
        })
        .catch(function () {});
    };
    window.setInterval(refresh, 45000);
    document.addEventListener('visibilitychange', refresh);
  }
  // Work in progress (a plan being rendered): the page shows its progress again every few seconds while online.
  var refreshing = document.querySelector('[data-refresh]');
  if (refreshing) {
    window.setTimeout(
      function () {
        if (navigator.onLine) window.location.reload();
      },
      Number(refreshing.getAttribute('data-refresh')) * 1000,
    );
  }
})();
