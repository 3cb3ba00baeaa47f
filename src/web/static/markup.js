// The markup view (docs/design.md §22): a photo's "Mark up" opens it on that photo; the tools draw on a Konva stage
// (served from the app: /assets/vendor/konva/) with the mouse, a pen or a finger; "Save markup" puts the drawn
// picture into the view's form as its file and submits it, so that it goes the way of any photo form: straight to
// the server, or into the outbox when offline (static/offline.js), with the form's key, which the server also keeps
// as the markup's own (one drawing is stored once, however often it is sent).
(function () {
  'use strict';

  var dialog = document.getElementById('markup-view');
  if (!dialog || !window.Konva) return;
  var Konva = window.Konva;
  /** The page's words (app.js's punchlistWords, in the page's language); English without. */
  var word = window.punchlistWords
    ? window.punchlistWords.text
    : function (name, english) {
        return english;
      };
  var surface = dialog.querySelector('[data-testid="markup-canvas"]');
  var form = dialog.querySelector('[data-markup-form]');
  var fileInput = form.querySelector('input[type=file]');
  var caption = form.querySelector('input[name=caption]');
  var colour = dialog.querySelector('#markup-colour');
  var tools = Array.prototype.slice.call(dialog.querySelectorAll('[data-tool]'));
  /** The drawn picture's longest side at most: as photos are scaled before upload (offline.js). */
  var MAX_SIDE = 2560;

  var tool = 'arrow';
  var stage = null;
  var layer = null;
  var photo = null;
  var drawn = [];
  var current = null;
  var origin = null;
  var source = null;

  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return (b + 0x100).toString(16).slice(1);
      })
      .join('');
  }

  function choose(name) {
    tool = name;
    tools.forEach(function (button) {
      button.setAttribute('aria-pressed', button.getAttribute('data-tool') === name ? 'true' : 'false');
    });
  }

  function strokeWidth() {
    return Math.max(3, Math.round(stage.width() / 120));
  }

  function shapeAt(point) {
    var common = { stroke: colour.value, strokeWidth: strokeWidth(), lineCap: 'round', lineJoin: 'round' };
    if (tool === 'arrow')
      return new Konva.Arrow(
        Object.assign(
          {
            points: [point.x, point.y, point.x, point.y],
            fill: colour.value,
            pointerLength: strokeWidth() * 4,
            pointerWidth: strokeWidth() * 4,
          },
          common,
        ),
      );
    if (tool === 'rectangle') return new Konva.Rect(Object.assign({ x: point.x, y: point.y, width: 0, height: 0 }, common));
    if (tool === 'ellipse') return new Konva.Ellipse(Object.assign({ x: point.x, y: point.y, radiusX: 0, radiusY: 0 }, common));
    return new Konva.Line(Object.assign({ points: [point.x, point.y], tension: 0.4 }, common));
  }

  function stretch(shape, point) {
    var dx = point.x - origin.x;
    var dy = point.y - origin.y;
    if (shape instanceof Konva.Arrow) shape.points([origin.x, origin.y, point.x, point.y]);
    else if (shape instanceof Konva.Rect)
      shape.setAttrs({ x: Math.min(origin.x, point.x), y: Math.min(origin.y, point.y), width: Math.abs(dx), height: Math.abs(dy) });
    else if (shape instanceof Konva.Ellipse)
      shape.setAttrs({ x: origin.x + dx / 2, y: origin.y + dy / 2, radiusX: Math.abs(dx) / 2, radiusY: Math.abs(dy) / 2 });
    else shape.points(shape.points().concat([point.x, point.y]));
  }

  function add(shape) {
    layer.add(shape);
    drawn.push(shape);
  }

  function start(event) {
    var point = stage.getPointerPosition();
    if (!point) return;
    if (event && event.evt && event.evt.preventDefault) event.evt.preventDefault();
    if (tool === 'text') {
      var words = window.prompt(word('markupText', 'Text to place on the photo'));
      if (!words) return;
      add(
        new Konva.Text({
          x: point.x,
          y: point.y,
          text: words,
          fill: colour.value,
          fontSize: Math.max(16, strokeWidth() * 6),
          fontStyle: 'bold',
        }),
      );
      return;
    }
    origin = point;
    current = shapeAt(point);
    add(current);
  }

  function move(event) {
    if (!current) return;
    if (event && event.evt && event.evt.preventDefault) event.evt.preventDefault();
    var point = stage.getPointerPosition();
    if (point) stretch(current, point);
  }

  function end() {
    if (!current) return;
    // A tap without a drag draws nothing worth keeping.
    var box = current.getClientRect();
    if (box.width < 4 && box.height < 4) {
      drawn.pop();
      current.destroy();
    }
    current = null;
  }

  function open(button) {
    source = button;
    form.action = button.getAttribute('data-markup-action');
    caption.value = button.getAttribute('data-markup-caption') || '';
    form.querySelector('input[name=_key]').value = newKey();
    drawn = [];
    surface.textContent = '';
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    var image = new Image();
    image.onload = function () {
      var width = Math.min(surface.clientWidth || image.naturalWidth, image.naturalWidth);
      var scale = width / image.naturalWidth;
      var maxHeight = Math.max(200, window.innerHeight * 0.6);
      if (image.naturalHeight * scale > maxHeight) scale = maxHeight / image.naturalHeight;
      stage = new Konva.Stage({
        container: surface,
        width: Math.round(image.naturalWidth * scale),
        height: Math.round(image.naturalHeight * scale),
      });
      layer = new Konva.Layer();
      photo = new Konva.Image({ image: image, width: stage.width(), height: stage.height() });
      layer.add(photo);
      stage.add(layer);
      stage.on('mousedown touchstart pointerdown', function (e) {
        if (e.type === 'pointerdown' && e.evt.pointerType !== 'pen') return;
        start(e);
      });
      stage.on('mousemove touchmove', move);
      stage.on('mouseup touchend mouseleave touchcancel', end);
      surface.setAttribute('data-ready', 'true');
    };
    image.onerror = function () {
      surface.textContent = word(
        'markupFailed',
        'The photo could not be loaded: without a network, only photos seen before can be marked up.',
      );
    };
    image.src = button.getAttribute('data-markup-src');
  }

  function close() {
    if (stage) stage.destroy();
    stage = null;
    surface.removeAttribute('data-ready');
    if (typeof dialog.close === 'function' && dialog.open) dialog.close();
    else dialog.removeAttribute('open');
    if (source) source.focus();
  }

  /** The drawn picture as the form's file, then the form submitted through the page's handlers (offline.js). */
  function save(event) {
    var button = event.currentTarget;
    if (!stage || button.disabled) return;
    button.disabled = true;
    var ratio = Math.min(MAX_SIDE / Math.max(stage.width(), stage.height()), photo.image().naturalWidth / stage.width());
    stage.toBlob({
      pixelRatio: Math.max(1, ratio),
      mimeType: 'image/jpeg',
      quality: 0.92,
      callback: function (blob) {
        var transfer = new DataTransfer();
        transfer.items.add(new File([blob], 'markup.jpg', { type: 'image/jpeg' }));
        fileInput.files = transfer.files;
        button.disabled = false;
        // Without a network: into the outbox, as the page's other forms (sent, once, when it is back).
        var outbox = !navigator.onLine && window.punchlistOutbox ? window.punchlistOutbox.queue(form) : Promise.resolve(false);
        outbox.then(function (queued) {
          if (queued === false) form.requestSubmit();
          else close();
        });
      },
    });
  }

  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('[data-markup]') : null;
    if (button) open(button);
  });
  tools.forEach(function (button) {
    button.addEventListener('click', function () {
      choose(button.getAttribute('data-tool'));
    });
  });
  dialog.querySelector('[data-markup-undo]').addEventListener('click', function () {
    var last = drawn.pop();
    if (last) last.destroy();
  });
  dialog.querySelector('[data-markup-close]').addEventListener('click', close);
  dialog.addEventListener('cancel', function (event) {
    event.preventDefault();
    close();
  });
  dialog.querySelector('[data-markup-save]').addEventListener('click', save);
  // Enter in the caption saves the drawing too, never a form without its picture.
  caption.addEventListener('keydown', function (event) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    dialog.querySelector('[data-markup-save]').click();
  });
  window.punchlistMarkup = {
    drawn: function () {
      return drawn.length;
    },
  };
})();
