// The plan's page (docs/design.md §19): the drawing in OpenSeadragon (served from the app: /assets/vendor/),
// the pins as its overlays, "Zoom in", "Zoom out", "Fit", a tapped pin's card and "Add item here".
// Without the script the page still works: the sheet is an image with the pins laid over it in percentages,
// every pin is a link, and "Items on this plan" lists them.
//
// The page gives everything in data attributes of [data-testid="plan-view"], so that a copy kept by the
// service worker opens offline without another request than the tiles:
//   data-tiles   the Deep Zoom tiles' folder (…/<level>/<x>_<y>.<format>)
//   data-width, data-height, data-tile-size, data-overlap, data-format   the Deep Zoom descriptor
// and each pin is an element [data-testid="pin"] with data-x, data-y (fractions of the sheet) inside it.
//
// On the new-item form, [data-place-from-query] fills the place from the address (?plan=&x=&y=): a copy of
// the form kept for offline use was kept for another place.
(function () {
  'use strict';

  function fraction(value) {
    var number = Number(value);
    return value !== null && value !== '' && number >= 0 && number <= 1 ? number : null;
  }

  function placeFromQuery(form) {
    var query = new URLSearchParams(window.location.search);
    var x = fraction(query.get('x'));
    var y = fraction(query.get('y'));
    var plan = query.get('plan');
    if (!plan || x === null || y === null) return;
    form.querySelectorAll('[data-place-field]').forEach(function (field) {
      var name = field.getAttribute('data-place-field');
      field.value = name === 'plan' ? plan : String(name === 'x' ? x : y);
    });
    var crop = form.querySelector('[data-place-crop]');
    if (crop) {
      crop.style.setProperty('--x', String(x));
      crop.style.setProperty('--y', String(y));
      crop.hidden = false;
    }
  }
  document.querySelectorAll('[data-place-from-query]').forEach(placeFromQuery);

  var view = document.querySelector('[data-testid="plan-view"][data-tiles]');
  if (!view || !window.OpenSeadragon) return;
  var OSD = window.OpenSeadragon;
  var width = Number(view.getAttribute('data-width'));
  var height = Number(view.getAttribute('data-height'));
  var pins = Array.prototype.slice.call(view.querySelectorAll('[data-testid="pin"]'));
  var card = document.querySelector('[data-pin-card]');
  var addButton = document.querySelector('[data-plan-add]');
  var hint = document.querySelector('[data-plan-add-hint]');
  var placeForm = document.querySelector('[data-plan-place-form]');
  var adding = false;

  // The static image stands in until the first tiles are drawn; then the viewer takes its place.
  var fallback = view.querySelector('[data-plan-fallback]');
  var surface = document.createElement('div');
  surface.className = 'plan-surface';
  view.appendChild(surface);
  view.classList.add('plan-live');

  var viewer = OSD({
    element: surface,
    tileSources: {
      Image: {
        xmlns: 'http://schemas.microsoft.com/deepzoom/2008',
        Url: view.getAttribute('data-tiles'),
        Format: view.getAttribute('data-format') || 'webp',
        Overlap: view.getAttribute('data-overlap') || '0',
        TileSize: view.getAttribute('data-tile-size') || '256',
        Size: { Width: String(width), Height: String(height) },
      },
    },
    showNavigationControl: false,
    // The whole sheet stays reachable: it may not be panned out of the view, nor shrunk below the view.
    visibilityRatio: 0.5,
    constrainDuringPan: true,
    minZoomImageRatio: 0.9,
    maxZoomPixelRatio: 3,
    gestureSettingsMouse: { clickToZoom: false, dblClickToZoom: true, scrollToZoom: true },
    gestureSettingsTouch: { clickToZoom: false, dblClickToZoom: true, pinchToZoom: true, flickEnabled: true },
    animationTime: 0.4,
  });

  viewer.addHandler('open', function () {
    if (fallback) fallback.hidden = true;
    pins.forEach(function (pin) {
      var x = Number(pin.getAttribute('data-x'));
      var y = Number(pin.getAttribute('data-y'));
      // Viewport coordinates: the sheet's width is 1, its height height/width.
      // Its top left corner at the place; its negative margins (the stylesheet) centre it there, as without the script.
      viewer.addOverlay({ element: pin, location: new OSD.Point(x, (y * height) / width), placement: OSD.Placement.TOP_LEFT });
      // The viewer takes the pointer on its canvas: a tap on a pin is seen through a tracker of its own.
      new OSD.MouseTracker({
        element: pin,
        clickHandler: function (event) {
          if (!event.quick) return;
          if (event.originalEvent) event.originalEvent.preventDefault();
          show(pin);
        },
        keyHandler: function (event) {
          if (event.keyCode === 13) show(pin);
        },
      });
    });
    view.setAttribute('data-ready', 'true');
  });

  function show(pin) {
    if (!card) {
      window.location.href = pin.getAttribute('href');
      return;
    }
    card.querySelector('[data-pin-text]').textContent = pin.getAttribute('data-text') || '';
    card.querySelector('[data-pin-status]').textContent = pin.getAttribute('data-status-label') || '';
    card.querySelector('[data-pin-open]').setAttribute('href', pin.getAttribute('href'));
    card.hidden = false;
    card.querySelector('[data-pin-open]').focus();
  }

  document.querySelectorAll('[data-plan-zoom]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var what = button.getAttribute('data-plan-zoom');
      if (what === 'fit') viewer.viewport.goHome();
      else viewer.viewport.zoomBy(what === 'in' ? 1.5 : 1 / 1.5);
      viewer.viewport.applyConstraints();
    });
  });

  function setAdding(on) {
    adding = on;
    if (!addButton) return;
    addButton.setAttribute('aria-pressed', on ? 'true' : 'false');
    view.classList.toggle('plan-adding', on);
    if (hint) hint.hidden = !on;
  }
  if (addButton) {
    addButton.hidden = false;
    addButton.addEventListener('click', function () {
      setAdding(!adding);
    });
  }

  // "Add item here": the next tap on the sheet opens the new-item form with that place; "Place on plan" (from an
  // item's page): every tap sends the item's place.
  viewer.addHandler('canvas-click', function (event) {
    if ((!adding && !placeForm) || !event.quick) return;
    var target = event.originalEvent && event.originalEvent.target;
    if (target && target.closest && target.closest('[data-testid="pin"]')) return;
    event.preventDefaultAction = true;
    var point = viewer.viewport.viewerElementToImageCoordinates(event.position);
    var x = point.x / width;
    var y = point.y / height;
    if (x < 0 || x > 1 || y < 0 || y > 1) return;
    if (placeForm) {
      placeForm.querySelector('[data-place-x]').value = x.toFixed(5);
      placeForm.querySelector('[data-place-y]').value = y.toFixed(5);
      placeForm.requestSubmit();
      return;
    }
    setAdding(false);
    var address = new URL(addButton.getAttribute('data-plan-add'), window.location.href);
    address.searchParams.set('x', x.toFixed(5));
    address.searchParams.set('y', y.toFixed(5));
    window.location.href = address.href;
  });
})();
