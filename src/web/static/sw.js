// The service worker of Punchlist (DESIGN.md §16), hand-written. /sw.js serves this file with VERSION,
// PRECACHE, OFFLINE_PAGE and USER_HEADER written in front of it (web/pages/app-shell.ts).
//
// What it keeps, and where:
// - punchlist-static-<VERSION>: the stylesheet, the scripts, the icons and the offline page, kept at
//   installation; a new release (any static file changed) installs a new worker whose activation deletes
//   the old release's cache.
// - punchlist-user-<id>: the pages a signed-in user opened (network first, this copy when the network
//   fails), the items that My items lists (fetched ahead on the page's request) and the photos shown on
//   them. Only pages that name their user (USER_HEADER) are kept; keeping one user's page deletes every
//   other user's cache, and signing out deletes them all.
// - Never: anything but GET, a request with an Authorization header (bearer tokens), /api/ answers other
//   than the photos the pages show, answers of another origin.
'use strict';

var STATIC = 'punchlist-static-' + VERSION;
var USER_PREFIX = 'punchlist-user-';
var PHOTO = /^\/api\/(?:items|answers)\/file\.php$/;

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
  if (PHOTO.test(url.pathname)) return event.respondWith(photo(request));
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

function deleteCaches(which) {
  return caches.keys().then(function (names) {
    return Promise.all(
      names.filter(which).map(function (name) {
        return caches.delete(name);
      }),
    );
  });
}

/** A page's key: its address without the "saved" notice and the fragment. */
function keyOf(address) {
  var url = new URL(address);
  url.searchParams.delete('saved');
  url.hash = '';
  return url.href;
}

/** The cache of the user whose pages are kept (there is at most one), or null. */
function userCache() {
  return caches.keys().then(function (names) {
    var name = names.filter(isUserCache)[0];
    return name ? caches.open(name) : null;
  });
}

/** Keeps a page in its user's cache, deleting every other user's first. */
function keep(user, address, response) {
  if (!/^[0-9]+$/.test(user)) return Promise.resolve();
  var name = USER_PREFIX + user;
  return deleteCaches(function (other) {
    return isUserCache(other) && other !== name;
  })
    .then(function () {
      return caches.open(name);
    })
    .then(function (cache) {
      return cache.put(keyOf(address), response);
    });
}

function keepable(response) {
  return response.status === 200 && response.type === 'basic' && response.headers.get(USER_HEADER);
}

/** Pages: the network first; its answer kept for its user; offline, the kept copy or the offline page. */
function page(event) {
  var request = event.request;
  return fetch(request).then(
    function (response) {
      var user = keepable(response);
      if (user) event.waitUntil(keep(user, request.url, response.clone()));
      return response;
    },
    function () {
      return userCache()
        .then(function (cache) {
          return cache ? cache.match(keyOf(request.url)) : undefined;
        })
        .then(function (hit) {
          if (hit) return hit;
          if (request.mode !== 'navigate') return Response.error();
          return caches.match(OFFLINE_PAGE).then(function (offline) {
            return offline || Response.error();
          });
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

/** Photos the user saw: a photo's bytes never change, so the kept copy is used first (mobile data). */
function photo(request) {
  return userCache().then(function (cache) {
    if (!cache) return fetch(request);
    return cache.match(request.url).then(function (hit) {
      if (hit) return hit;
      return fetch(request).then(function (response) {
        if (response.status === 200 && response.type === 'basic') cache.put(request.url, response.clone());
        return response;
      });
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
            var user = keepable(response);
            if (!user) return;
            count++;
            return keep(user, url.href, response);
          },
          function () {},
        );
      });
    }, Promise.resolve())
    .then(function () {
      return count;
    });
}
