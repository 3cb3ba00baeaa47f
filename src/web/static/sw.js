// The service worker of Punchlist (docs/design.md §16), hand-written. /sw.js serves this file with VERSION,
// PRECACHE, OFFLINE_PAGE, USER_HEADER and USER_COOKIE written in front of it (web/pages/app-shell.ts).
//
// What it keeps, and where:
// - punchlist-static-<VERSION>: the stylesheet, the scripts, the icons and the offline page, kept at
//   installation; a new release (any static file changed) installs a new worker whose activation deletes
//   the old release's cache.
// - punchlist-user-<id>-<kind>: what a signed-in user opened, one cache per kind declared in USER_CACHES
//   (pages, photos; a new kind is one entry there), each bounded. Network first: the copy answers only when
//   the network fails, and only for the user this browser is signed in as.
// - Never: anything but GET, a request with an Authorization header (bearer tokens), /api/ answers other
//   than those a USER_CACHES kind matches, answers of another origin.
//
// Whose copies may answer: every answer of the server says who is signed in (USER_HEADER, absent when
// nobody is), and the worker keeps that user's caches only, deleting every other user's at once (and all
// of them when nobody is signed in). Without a network it asks the browser's cookie (USER_COOKIE, set and
// cleared with the session, expiring with it) where the browser lets a worker read it: a session ended or
// changed hands while offline is seen too. Signing out deletes every user cache.
'use strict';

var STATIC = 'punchlist-static-' + VERSION;
var USER_PREFIX = 'punchlist-user-';
/**
 * Every cache the worker keeps for a user, declared here only: its name's last part, how many answers it
 * keeps (the oldest stored go first), and for those that are not pages, the same-origin paths it keeps
 * (network first; the copy when the network fails). The naming and the rule "only the signed-in user's
 * caches exist" cover every entry. An answer is kept only when it names its user (USER_HEADER): the server's
 * routes for a kind's paths send it for the session, as the downloads do (api/files.routes.ts).
 */
var USER_CACHES = {
  pages: { max: 300 },
  photos: { max: 300, match: /^\/api\/(?:items|answers)\/file\.php$/ },
  // A plan's sheet and the Deep Zoom tiles its page drew (docs/design.md §19): a few plans at a few zooms.
  plans: { max: 1500, match: /^\/api\/plans\/(?:file\.php$|tiles\/)/ },
};

self.addEventListener('install', function (event) {
  event.waitUntil(
    caches
      .open(STATIC)
      .then(function (cache) {
        // One by one, a failure ignored: a file that could not be fetched now is kept at its first use, whereas
        // a failed installation would leave the user without a worker until the next page.
        return Promise.all(
          PRECACHE.map(function (address) {
            return cache.add(address).catch(function () {});
          }),
        );
      })
      .then(function () {
        return self.skipWaiting();
      }),
  );
});

self.addEventListener('activate', function (event) {
  event.waitUntil(
    deleteCaches(function (name) {
      return name.indexOf('punchlist-static-') === 0 && name !== STATIC;
    }).then(function () {
      return self.clients.claim();
    }),
  );
});

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET' || request.headers.has('authorization')) return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.indexOf('/assets/') === 0) return event.respondWith(asset(request));
  var kind = fileKind(url.pathname);
  if (kind) return event.respondWith(file(event, kind));
  if (url.pathname.indexOf('/api/') === 0 || url.pathname === '/sw.js') return;
  var accept = request.headers.get('accept') || '';
  if (request.mode === 'navigate' || accept.indexOf('text/html') >= 0) event.respondWith(page(event));
});

self.addEventListener('message', function (event) {
  var data = event.data || {};
  if (data.type === 'keep' && Array.isArray(data.urls)) {
    event.waitUntil(
      keepAll(data.urls).then(function (count) {
        if (event.source) event.source.postMessage({ type: 'kept', count: count });
      }),
    );
  } else if (data.type === 'sign-out') {
    event.waitUntil(deleteCaches(isUserCache));
  }
});

function isUserCache(name) {
  return name.indexOf(USER_PREFIX) === 0;
}

/** The cache of `kind` for `user` (digits). */
function cacheName(user, kind) {
  return USER_PREFIX + user + '-' + kind;
}

/** The USER_CACHES kind that keeps this path (pages aside), or null. */
function fileKind(pathname) {
  var kinds = Object.keys(USER_CACHES).filter(function (kind) {
    return USER_CACHES[kind].match && USER_CACHES[kind].match.test(pathname);
  });
  return kinds[0] || null;
}

function deleteCaches(which) {
  return caches.keys().then(function (names) {
    return Promise.all(
      names.filter(which).map(function (name) {
        return caches.delete(name);
      }),
    );
  });
}

/**
 * What the server said of who is signed in: `user` (digits), or '' for nobody. Every user cache but this
 * user's declared ones is deleted (another user's, an older release's kind).
 */
function learn(user) {
  var mine = Object.keys(USER_CACHES).map(function (kind) {
    return cacheName(user, kind);
  });
  return deleteCaches(function (name) {
    return isUserCache(name) && (!user || mine.indexOf(name) < 0);
  });
}

/** Who a same-origin answer of the server says is signed in ('' for nobody), or null when it says nothing. */
function userOf(response) {
  if (response.type !== 'basic' || response.status >= 500) return null;
  var user = response.headers.get(USER_HEADER) || '';
  return user === '' || /^[0-9]+$/.test(user) ? user : null;
}

/**
 * Who is signed in, without a network: the session's cookie where the worker may read it (cookieStore),
 * else the user whose caches the server last allowed. A user the cookie no longer names loses their caches.
 */
function currentUser() {
  var kept = caches.keys().then(function (names) {
    var match = names.filter(isUserCache)[0];
    return match ? match.slice(USER_PREFIX.length).split('-')[0] : '';
  });
  if (!self.cookieStore) return kept;
  return self.cookieStore.get(USER_COOKIE).then(
    function (cookie) {
      var user = cookie && /^[0-9]+$/.test(cookie.value) ? cookie.value : '';
      return learn(user).then(function () {
        return user;
      });
    },
    function () {
      return kept;
    },
  );
}

/** The copy of `key` in the signed-in user's cache of `kind`, or undefined. */
function keptCopy(kind, key) {
  return currentUser().then(function (user) {
    if (!user) return undefined;
    return caches.has(cacheName(user, kind)).then(function (exists) {
      return exists
        ? caches.open(cacheName(user, kind)).then(function (cache) {
            return cache.match(key);
          })
        : undefined;
    });
  });
}

/** A page's key: its address without the "saved" notice and the fragment. */
function keyOf(address) {
  var url = new URL(address);
  url.searchParams.delete('saved');
  // "Add item here" opens the form of a plan at the place tapped: one kept form serves every place (its script
  // fills the place from the address).
  if (/\/items\/new$/.test(url.pathname)) {
    url.searchParams.delete('x');
    url.searchParams.delete('y');
  }
  url.hash = '';
  return url.href;
}

/**
 * Keeps an answer of the server in its user's cache of `kind` (the server named the user: `learn` ran first),
 * within the kind's bound.
 */
function keep(user, kind, key, response) {
  if (!user || response.status !== 200) return Promise.resolve();
  return caches.open(cacheName(user, kind)).then(function (cache) {
    return cache.put(key, response).then(function () {
      return cache.keys().then(function (keys) {
        var extra = keys.length - USER_CACHES[kind].max;
        return Promise.all(
          keys.slice(0, Math.max(0, extra)).map(function (old) {
            return cache.delete(old);
          }),
        );
      });
    });
  });
}

/** An answer from the network: who it names is learned, and it is kept for that user. */
function remember(kind, key, response) {
  var user = userOf(response);
  if (user === null) return Promise.resolve();
  var copy = user && response.status === 200 ? response.clone() : null;
  return learn(user).then(function () {
    return copy ? keep(user, kind, key, copy) : undefined;
  });
}

/** Pages: the network first; its answer kept for its user; offline, the user's copy or the offline page. */
function page(event) {
  var request = event.request;
  return fetch(request).then(
    function (response) {
      event.waitUntil(remember('pages', keyOf(request.url), response));
      return response;
    },
    function () {
      return keptCopy('pages', keyOf(request.url)).then(function (hit) {
        if (hit) return hit;
        if (request.mode !== 'navigate') return Response.error();
        return caches.match(OFFLINE_PAGE).then(function (offline) {
          return offline || Response.error();
        });
      });
    },
  );
}

/**
 * Photos (and any other kind of USER_CACHES with `match`): the network first, so the server checks access every
 * time (a revalidation: the browser's cache answers its 304); the user's copy when the network fails.
 */
function file(event, kind) {
  var request = event.request;
  return fetch(request).then(
    function (response) {
      event.waitUntil(remember(kind, request.url, response));
      return response;
    },
    function () {
      return keptCopy(kind, request.url).then(function (hit) {
        return hit || Response.error();
      });
    },
  );
}

/** The stylesheet, scripts and icons: named by their content hash, so the kept copy is always right. */
function asset(request) {
  return caches.open(STATIC).then(function (cache) {
    return cache.match(request).then(function (hit) {
      if (hit) return hit;
      return fetch(request).then(
        function (response) {
          if (response.status === 200) cache.put(request, response.clone());
          return response;
        },
        function () {
          // A page kept by an older release names older files: the current ones stand in.
          return cache.match(request, { ignoreSearch: true }).then(function (other) {
            return other || Response.error();
          });
        },
      );
    });
  });
}

/** My items asks for its items ahead, one after the other: each kept like a visited page. */
function keepAll(urls) {
  var count = 0;
  return urls
    .reduce(function (previous, address) {
      return previous.then(function () {
        var url = new URL(address, self.location.origin);
        if (url.origin !== self.location.origin) return;
        return fetch(url.href, { credentials: 'same-origin', headers: { accept: 'text/html' } }).then(
          function (response) {
            if (userOf(response) && response.status === 200) count++;
            return remember('pages', keyOf(url.href), response);
          },
          function () {},
        );
      });
    }, Promise.resolve())
    .then(function () {
      return count;
    });
}
