// On site with a phone (docs/design.md §16): the menu of narrow screens, the service worker, the queue of the
// item page's writes made offline (IndexedDB), drafts of "Comment" and "Answer", photos scaled down
// before upload, and sign-out wiping what this device keeps of the user. Every page works without it.
(function () {
  'use strict';

  menu();
  var meta = document.querySelector('meta[name="punchlist-user"]');
  var user = meta && meta.getAttribute('content');
  if (!user) return;

  /** The readable cookie that the server sets and clears with the session, naming its user (session-cookie.ts). */
  var USER_COOKIE = /(?:^|;\s*)(?:__Host-)?punchlist_user=([0-9]+)/;
  var DB_NAME = 'punchlist';
  var STORE = 'outbox';
  var DRAFT_PREFIX = 'punchlist-draft:';
  /** The forms whose writes wait offline: the item page's status, planning, comment, answer and photos. */
  // The writes kept offline: an item page's forms, and "Add item" (from the project or a plan: a new item, its place
  // and its photos), whose idempotency key is the new item's identity until the server has made it.
  // A photo's "Save markup" (docs/design.md §22) too: /items/<id>/markup/<photo id>.
  var QUEUED = /^\/(?:items\/([0-9]+)\/(status|planning|comments|answers|photos|markup\/[0-9]+)|projects\/[0-9]+\/items)$/;
  /** Typed text kept on the device until sent, and the notice (?saved=) that says it was sent. */
  var DRAFTS = { 'comment-text': 'comment', 'answer-text': 'answer' };
  /** Photos are sent at most this long on their long side (a 12-megapixel photo: about 1.5 MB instead of 5). */
  var MAX_SIDE = 2560;
  var SERVER_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
  /** A count with its noun, by the count's plural category in the page's language (app.js's punchlistWords). */
  var pluralRules = new Intl.PluralRules('en');
  var FORMS = { change: { one: 'change', other: 'changes' }, photo: { one: 'photo', other: 'photos' } };
  var MESSAGES = { change: 'changes', photo: 'photos' };
  var words = window.punchlistWords;
  function word(name, english) {
    return words ? words.text(name, english) : english;
  }
  function pluralForm(count, noun) {
    var english = FORMS[noun][pluralRules.select(count)] || FORMS[noun].other;
    return words ? words.plural(MESSAGES[noun], count, english) : english;
  }
  function plural(count, noun) {
    return count + ' ' + pluralForm(count, noun);
  }

  worker();
  drafts();
  photos();
  outbox();

  // ---- The menu: where the navigation does not fit on one line, a "Menu" button folds it. ----
  function menu() {
    var header = document.querySelector('header.top');
    var button = header && header.querySelector('.menu-button');
    var bar = header && header.querySelector('.bar');
    if (!button || !bar) return;
    var open = function (yes) {
      header.classList.toggle('open', yes);
      button.setAttribute('aria-expanded', String(yes));
    };
    var fit = function () {
      if (header.classList.contains('open')) return;
      header.classList.remove('collapsed');
      if (bar.getBoundingClientRect().height > 64) header.classList.add('collapsed');
    };
    button.addEventListener('click', function () {
      open(!header.classList.contains('open'));
    });
    document.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && header.classList.contains('open')) {
        open(false);
        button.focus();
      }
    });
    window.addEventListener('resize', fit);
    fit();
  }

  // ---- The service worker: registered for signed-in users; My items asks it to keep its items. ----
  function worker() {
    if (!('serviceWorker' in navigator)) return;
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(function () {});
    if (!navigator.onLine) return;
    var urls = [];
    // The first visit is not seen by the worker (it starts with it): this page is kept on request. Whether the
    // worker answered this page is in its navigation timing (workerStart), not in the controller, which the
    // worker's activation (clients.claim) may set between the page's answer and this script.
    if (!servedByWorker()) urls.push(location.pathname + location.search);
    // Pages a page names as needed offline (the plan's "Add item here" form, its items).
    document.querySelectorAll('[data-keep-ahead]').forEach(function (element) {
      var address = element.getAttribute('data-keep-ahead') || element.getAttribute('href');
      if (address && urls.length < 200 && urls.indexOf(address) < 0) urls.push(address);
    });
    if (location.pathname === '/my-items') {
      document.querySelectorAll('main a[href^="/items/"]').forEach(function (a) {
        if (urls.length < 200 && urls.indexOf(a.getAttribute('href')) < 0) urls.push(a.getAttribute('href'));
      });
    }
    if (!urls.length) return;
    navigator.serviceWorker.addEventListener('message', function (event) {
      if (event.data && event.data.type === 'kept') document.documentElement.setAttribute('data-offline-ready', String(event.data.count));
    });
    navigator.serviceWorker.ready.then(function (registration) {
      if (registration.active) registration.active.postMessage({ type: 'keep', urls: urls });
    });
  }

  function servedByWorker() {
    var timing = window.performance;
    var navigation = timing && timing.getEntriesByType ? timing.getEntriesByType('navigation')[0] : null;
    return navigation ? navigation.workerStart > 0 : Boolean(navigator.serviceWorker.controller);
  }

  // ---- Drafts: "Comment" and "Answer" kept in localStorage per user, page and field until sent. ----
  function draftKey(id) {
    return DRAFT_PREFIX + user + ':' + location.pathname + ':' + id;
  }
  function forgetDraft(id) {
    try {
      window.localStorage.removeItem(draftKey(id));
    } catch {
      // Storage may be refused (private mode): drafts are a comfort.
    }
  }
  function restoreDrafts() {
    var saved = new URLSearchParams(location.search).get('saved');
    Object.keys(DRAFTS).forEach(function (id) {
      if (saved === DRAFTS[id]) forgetDraft(id);
      var field = document.getElementById(id);
      if (!field || field.value) return;
      try {
        var text = window.localStorage.getItem(draftKey(id));
        if (text) field.value = text;
      } catch {
        // As above.
      }
    });
  }
  function drafts() {
    restoreDrafts();
    // The status form replaces the page's content in place (app.js): the drafts are put back.
    document.addEventListener('punchlist:content', restoreDrafts);
    document.addEventListener('input', function (event) {
      var field = event.target;
      if (!field || !Object.prototype.hasOwnProperty.call(DRAFTS, field.id)) return;
      try {
        if (field.value) window.localStorage.setItem(draftKey(field.id), field.value);
        else window.localStorage.removeItem(draftKey(field.id));
      } catch {
        // As above.
      }
    });
  }

  // ---- Photos: scaled down (and turned into JPEG when the server would not take them) before upload. ----
  var scaling = new WeakMap();
  function photos() {
    if (!window.createImageBitmap || !window.DataTransfer) return;
    document.addEventListener('change', function (event) {
      var input = event.target;
      if (!input.matches || !input.matches('input[type=file][name="attachments[]"]') || !input.files.length) return;
      var chosen = Array.prototype.slice.call(input.files);
      var job = Promise.all(chosen.map(shrink)).then(function (files) {
        if (
          files.every(function (f, i) {
            return f === chosen[i];
          })
        )
          return;
        var transfer = new window.DataTransfer();
        files.forEach(function (f) {
          transfer.items.add(f);
        });
        input.files = transfer.files;
      });
      var finished = function () {
        if (scaling.get(input) === job) scaling.delete(input);
      };
      scaling.set(input, job);
      job.then(finished, finished);
    });
  }
  function shrink(file) {
    if (file.type.indexOf('image/') !== 0 || file.type === 'image/gif') return Promise.resolve(file);
    return window.createImageBitmap(file).then(
      function (bitmap) {
        var long = Math.max(bitmap.width, bitmap.height);
        if (long <= MAX_SIDE && SERVER_TYPES.indexOf(file.type) >= 0) {
          bitmap.close();
          return file;
        }
        var scale = Math.min(1, MAX_SIDE / long);
        var canvas = document.createElement('canvas');
        canvas.width = Math.max(1, Math.round(bitmap.width * scale));
        canvas.height = Math.max(1, Math.round(bitmap.height * scale));
        var context = canvas.getContext('2d');
        context.fillStyle = '#fff';
        context.fillRect(0, 0, canvas.width, canvas.height);
        context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        bitmap.close();
        return new Promise(function (resolve) {
          canvas.toBlob(
            function (blob) {
              var name = file.name.replace(/\.[^.]*$/, '') + '.jpg';
              resolve(blob ? new File([blob], name, { type: 'image/jpeg', lastModified: file.lastModified }) : file);
            },
            'image/jpeg',
            0.85,
          );
        });
      },
      // Not an image this browser can read: sent as it is, the server says what is wrong with it.
      function () {
        return file;
      },
    );
  }

  // ---- The outbox: writes made offline, in IndexedDB, sent in order when the network is back. ----
  var connection = null;
  function database() {
    if (!connection) {
      connection = new Promise(function (resolve, reject) {
        var request = window.indexedDB.open(DB_NAME, 1);
        request.onupgradeneeded = function () {
          request.result.createObjectStore(STORE, { keyPath: 'seq', autoIncrement: true });
        };
        request.onsuccess = function () {
          request.result.onversionchange = function () {
            request.result.close();
            connection = null;
          };
          resolve(request.result);
        };
        request.onerror = function () {
          reject(request.error);
        };
      });
    }
    return connection;
  }
  function done(request) {
    return new Promise(function (resolve, reject) {
      request.onsuccess = function () {
        resolve(request.result);
      };
      request.onerror = function () {
        reject(request.error);
      };
    });
  }
  function store(mode, work) {
    return database().then(function (db) {
      return done(work(db.transaction(STORE, mode).objectStore(STORE)));
    });
  }
  /** Every queued write on this device, oldest first, whoever made it. */
  function everyone() {
    return store('readonly', function (s) {
      return s.getAll();
    });
  }
  /** This user's queued writes, oldest first (another user's stay for them, never shown or sent here). */
  function mine() {
    return everyone().then(function (all) {
      return all.filter(function (r) {
        return r.user === user;
      });
    });
  }
  /** Whether another user's writes wait on this device (they are never shown here, only that they exist). */
  function othersWaiting() {
    return everyone().then(function (all) {
      return all.some(function (r) {
        return r.user !== user;
      });
    });
  }

  /**
   * The user this browser is signed in as now, by the cookie the server keeps beside the session ('' for
   * nobody): a page kept from earlier, or left open when the session ended, never sends as someone else.
   */
  function signedInAs() {
    var match = USER_COOKIE.exec(document.cookie);
    return match ? match[1] : '';
  }

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = window.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map
      .call(bytes, function (b) {
        return (b + 0x100).toString(16).slice(1);
      })
      .join('');
    return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
  }

  function describe(kind, data, form) {
    var text = String(data.get('text') || '').trim();
    var short = text.length > 60 ? text.slice(0, 60) + '…' : text;
    if (kind === 'status') {
      var option = form.querySelector('select[name=status] option:checked');
      return word('status', 'Status:') + ' ' + (option ? option.textContent : data.get('status'));
    }
    if (kind === 'planning') return word('planning', 'Planning');
    if (kind.indexOf('markup/') === 0) return word('markedUpPhoto', 'Marked-up photo');
    var count = data.getAll('attachments[]').filter(function (f) {
      return f && f.size;
    }).length;
    var photos = plural(count, 'photo');
    var withPhotos = count ? ' ' + word('with', 'with') + ' ' + photos : '';
    if (kind === 'comments') return word('comment', 'Comment:') + ' “' + short + '”';
    if (kind === 'answers') return word('answer', 'Answer:') + ' “' + short + '”' + withPhotos;
    if (kind === 'item')
      return (
        word('newItem', 'New item:') +
        ' “' +
        short +
        '”' +
        withPhotos +
        (data.get('plan_id') ? word('placedOnPlan', ', placed on the plan') : '')
      );
    return photos;
  }

  /** The images a queued write holds, shown in its entry (object URLs, released at the next rendering). */
  var previews = [];
  function photosOf(record) {
    var images = record.fields
      .map(function (pair) {
        return pair[1];
      })
      .filter(function (value) {
        return value instanceof Blob && value.size && String(value.type).indexOf('image/') === 0;
      });
    if (!images.length) return null;
    var list = document.createElement('span');
    list.className = 'outbox-photos';
    images.forEach(function (image) {
      var url = URL.createObjectURL(image);
      previews.push(url);
      var img = document.createElement('img');
      img.src = url;
      img.alt = image.name || word('photo', 'Photo');
      img.setAttribute('data-testid', 'outbox-photo');
      list.appendChild(img);
    });
    return list;
  }

  /** Keeps a submitted form in the outbox, then readies the form for the next entry (a fresh key). */
  function queue(form) {
    var match = QUEUED.exec(new URL(form.action).pathname);
    if (!match) return Promise.resolve(false);
    var data = new FormData(form);
    var heading = document.querySelector('main h1');
    var record = {
      user: user,
      path: match[0],
      item: match[1] || null,
      page: heading ? heading.textContent : word('item', 'Item') + ' ' + match[1],
      what: describe(match[2] || 'item', data, form),
      multipart: form.enctype === 'multipart/form-data',
      fields: Array.from(data.entries()),
      state: 'waiting',
      reason: null,
      at: new Date().toISOString(),
    };
    return store('readwrite', function (s) {
      return s.add(record);
    }).then(function () {
      var key = form.querySelector('input[name=_key]');
      if (key) key.value = newKey();
      Object.keys(DRAFTS).forEach(function (id) {
        var field = form.querySelector('#' + id);
        if (field) {
          field.value = '';
          forgetDraft(id);
        }
      });
      form.querySelectorAll('input[type=file]').forEach(function (input) {
        input.value = '';
        var preview = document.querySelector('[data-preview-for="' + input.id + '"]');
        if (preview) preview.textContent = '';
      });
      return render();
    });
  }

  /**
   * The request of a queued write. Its CSRF token is this page's (the session's token: the same one unless the
   * user signed in again since, which would otherwise refuse every write queued before); the queue holds only
   * this user's writes, so it is never another user's session.
   */
  function bodyOf(record) {
    var body = record.multipart ? new FormData() : new URLSearchParams();
    var csrf = document.querySelector('input[name="_csrf"]');
    record.fields.forEach(function (pair) {
      if (pair[0] === '_csrf' && csrf) body.append('_csrf', csrf.value);
      else if (record.multipart && pair[1] instanceof Blob) body.append(pair[0], pair[1], pair[1].name);
      else body.append(pair[0], pair[1]);
    });
    return body;
  }

  /** Why the server refused a write: the messages beside the fields of the page it answered, else its alert. */
  function reasonOf(response) {
    return response
      .text()
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, 'text/html');
        var fields = Array.prototype.map.call(page.querySelectorAll('main .field-error'), function (n) {
          return n.textContent.trim();
        });
        var alert = page.querySelector('main [role=alert]');
        return fields.filter(Boolean).join(' ') || (alert ? alert.textContent.trim() : '');
      })
      .catch(function () {
        return '';
      })
      .then(function (reason) {
        return (reason || 'The server refused it.') + ' (HTTP ' + response.status + ')';
      });
  }

  var sending = false;
  var signInNeeded = false;
  /** Sends the waiting writes in order, one at a time; stops at the first that cannot reach the server. */
  function flush() {
    if (sending || !navigator.onLine) return Promise.resolve();
    if (signedInAs() !== user) {
      // The session ended, or another user signed in on this browser since this page was made: kept for this user.
      signInNeeded = true;
      return render();
    }
    sending = true;
    var sentHere = 0;
    var send = function () {
      return mine().then(function (records) {
        var waiting = records.filter(function (r) {
          return r.state === 'waiting';
        });
        return waiting.reduce(function (previous, record) {
          return previous.then(function (go) {
            if (!go) return false;
            return fetch(record.path, { method: 'POST', body: bodyOf(record), credentials: 'same-origin' }).then(
              function (response) {
                if (new URL(response.url).pathname === '/login' || signedInAs() !== user) {
                  signInNeeded = true;
                  return false;
                }
                if (response.ok) {
                  if (location.pathname === '/items/' + record.item) sentHere++;
                  return store('readwrite', function (s) {
                    return s.delete(record.seq);
                  }).then(function () {
                    return true;
                  });
                }
                if (response.status >= 500 || response.status === 429) return false;
                return reasonOf(response).then(function (reason) {
                  record.state = 'refused';
                  record.reason = reason;
                  return store('readwrite', function (s) {
                    return s.put(record);
                  }).then(function () {
                    return true;
                  });
                });
              },
              function () {
                return false;
              },
            );
          });
        }, Promise.resolve(true));
      });
    };
    var run = navigator.locks ? navigator.locks.request('punchlist-outbox', send) : send();
    return run
      .catch(function () {})
      .then(function () {
        sending = false;
        // This item's page shows what was just applied.
        if (sentHere) location.reload();
        return render();
      });
  }

  function render() {
    var box = document.querySelector('[data-outbox]');
    if (!box) return Promise.resolve();
    return Promise.all([mine(), othersWaiting()]).then(function (found) {
      var records = found[0];
      var waiting = records.filter(function (r) {
        return r.state === 'waiting';
      }).length;
      box.querySelector('[data-testid="outbox-count"]').textContent = String(waiting);
      box.querySelector('[data-outbox-words]').textContent = pluralForm(waiting, 'change');
      var list = box.querySelector('[data-outbox-list]');
      list.textContent = '';
      previews.splice(0).forEach(function (url) {
        URL.revokeObjectURL(url);
      });
      records.forEach(function (record) {
        var li = document.createElement('li');
        li.setAttribute('data-testid', record.state === 'refused' ? 'outbox-refused' : 'outbox-waiting');
        var what = document.createElement('a');
        // A new item has no page yet: its entry leads back to the form it was raised with.
        what.href = record.item ? '/items/' + record.item : record.path + '/new';
        what.textContent = record.page + ' — ' + record.what;
        li.appendChild(what);
        var shown = photosOf(record);
        if (shown) li.appendChild(shown);
        if (record.state === 'refused') {
          var reason = document.createElement('p');
          reason.className = 'field-error';
          reason.textContent = word('notSaved', 'Not saved:') + ' ' + record.reason;
          li.appendChild(reason);
          var dismiss = document.createElement('button');
          dismiss.type = 'button';
          dismiss.className = 'small secondary';
          dismiss.textContent = word('dismiss', 'Dismiss');
          dismiss.setAttribute('aria-label', word('dismiss', 'Dismiss') + ': ' + record.what);
          dismiss.addEventListener('click', function () {
            store('readwrite', function (s) {
              return s.delete(record.seq);
            }).then(render);
          });
          li.appendChild(dismiss);
        } else {
          li.appendChild(document.createTextNode(' (waiting)'));
        }
        list.appendChild(li);
      });
      if (signInNeeded && waiting) {
        var li = document.createElement('li');
        li.textContent = word('sessionEnded', 'Your session has ended: sign in again to send them.');
        list.appendChild(li);
      }
      var others = box.querySelector('[data-outbox-others]');
      others.hidden = !found[1];
      box.hidden = records.length === 0 && !found[1];
    });
  }

  /** Wipes what this device keeps (pages, photos, the outbox, drafts, the worker) before signing out. */
  function wipe() {
    var jobs = [];
    if (window.caches) {
      jobs.push(
        window.caches.keys().then(function (names) {
          return Promise.all(
            names.map(function (name) {
              return window.caches.delete(name);
            }),
          );
        }),
      );
    }
    if (navigator.serviceWorker) {
      if (navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage({ type: 'sign-out' });
      jobs.push(
        navigator.serviceWorker.getRegistrations().then(function (registrations) {
          return Promise.all(
            registrations.map(function (r) {
              return r.unregister();
            }),
          );
        }),
      );
    }
    // This user's queued writes; another user's stay for them (the database goes once nobody's are left).
    jobs.push(
      mine()
        .then(function (records) {
          return Promise.all(
            records.map(function (record) {
              return store('readwrite', function (s) {
                return s.delete(record.seq);
              });
            }),
          );
        })
        .then(everyone)
        .then(function (left) {
          if (left.length) return;
          return database().then(function (db) {
            db.close();
            connection = null;
            return done(window.indexedDB.deleteDatabase(DB_NAME));
          });
        })
        .catch(function () {}),
    );
    try {
      Object.keys(window.localStorage)
        .filter(function (k) {
          return k.indexOf(DRAFT_PREFIX) === 0;
        })
        .forEach(function (k) {
          window.localStorage.removeItem(k);
        });
    } catch {
      // Nothing was kept.
    }
    // Never keeps the user from signing out: the response's Clear-Site-Data finishes the job.
    var limit = new Promise(function (resolve) {
      setTimeout(resolve, 3000);
    });
    return Promise.race([Promise.all(jobs).catch(function () {}), limit]);
  }

  function outbox() {
    // Capture phase: decided before app.js's handlers (the status form's background submit).
    window.addEventListener(
      'submit',
      function (event) {
        var form = event.target;
        if (!(form instanceof HTMLFormElement)) return;
        if (form.hasAttribute('data-sign-out')) return signOut(event, form);
        var pending = Array.prototype.map
          .call(form.querySelectorAll('input[type=file]'), function (input) {
            return scaling.get(input);
          })
          .filter(Boolean);
        var submitter = event.submitter;
        if (pending.length) {
          // Photos still being scaled down: sent once they are ready.
          event.preventDefault();
          event.stopImmediatePropagation();
          Promise.all(pending).then(function () {
            form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
          });
          return;
        }
        if (navigator.onLine || !QUEUED.test(new URL(form.action).pathname)) return;
        event.preventDefault();
        event.stopImmediatePropagation();
        queue(form);
      },
      true,
    );
    window.punchlistOutbox = { queue: queue };
    window.addEventListener('online', flush);
    document.addEventListener('punchlist:content', render);
    // Lie-fi: a write that failed while the phone believed it was online is tried again now and then.
    setInterval(flush, 30000);
    render().then(flush);
  }

  function signOut(event, form) {
    event.preventDefault();
    event.stopImmediatePropagation();
    Promise.all([mine(), othersWaiting()])
      .catch(function () {
        return [[], false];
      })
      .then(function (found) {
        var waiting = found[0].filter(function (r) {
          return r.state === 'waiting';
        }).length;
        if (
          waiting &&
          !window.confirm(
            word('signOutConfirm', 'Not sent yet: {changes} saved on this device. Signing out deletes them. Sign out anyway?').replace(
              '{changes}',
              plural(waiting, 'change'),
            ),
          )
        )
          return;
        // Another user's queued writes stay on the device: the server then clears its cache but not the storage
        // that holds them (this user's part of it is wiped here).
        if (found[1]) {
          var keep = document.createElement('input');
          keep.type = 'hidden';
          keep.name = 'others_waiting';
          keep.value = '1';
          form.appendChild(keep);
        }
        return wipe().then(function () {
          HTMLFormElement.prototype.submit.call(form);
        });
      });
  }
})();
