// Switchyard console: the little script the pages need. No build step, no framework.
// - Live pages: an element with data-live-src opens an EventSource; the server sends rendered,
//   escaped HTML fragments keyed by data-key, so a repeated entry (after a reconnect) is dropped,
//   and a repeated column replaces the one shown (it holds the entries missed while away).
// - Forms with data-confirm ask first; a select with data-autosubmit submits its form.
'use strict';

(function () {
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });

  document.addEventListener('change', function (event) {
    var select = event.target;
    if (!(select instanceof HTMLSelectElement) || !select.hasAttribute('data-autosubmit') || !select.form)
      return;
    var agent = select.form.elements.namedItem('agent');
    if (agent && 'value' in agent) agent.value = '';
    select.form.requestSubmit();
  });

  var source = document.querySelector('[data-live-src]');
  if (!source || typeof EventSource === 'undefined') return;
  var status = document.querySelector('[data-live-status]');

  function setStatus(state, label) {
    if (!status) return;
    status.dataset.state = state;
    status.textContent = label;
  }

  function byTask(taskId) {
    return taskId ? document.querySelector('[data-task-id="' + CSS.escape(taskId) + '"]') : document;
  }

  function fragment(markup) {
    var template = document.createElement('template');
    template.innerHTML = markup;
    return template.content.firstElementChild;
  }

  function replace(selector, root, markup) {
    var current = root && root.querySelector(selector);
    var next = fragment(markup);
    if (current && next) current.replaceWith(next);
  }

  var events = new EventSource(source.dataset.liveSrc);
  events.onopen = function () {
    setStatus('live', 'Live');
  };
  events.onerror = function () {
    // CLOSED: the server refused the stream (signed out, task gone); the browser will not retry.
    if (events.readyState === EventSource.CLOSED) setStatus('closed', 'Disconnected · reload the page');
    else setStatus('reconnecting', 'Reconnecting…');
  };

  events.addEventListener('entry', function (event) {
    var data = JSON.parse(event.data);
    var root = byTask(data.taskId);
    var list = root && root.querySelector('[data-timeline]');
    if (!list || list.querySelector('[data-key="' + CSS.escape(data.key) + '"]')) return;
    var item = fragment(data.html);
    if (!item) return;
    item.classList.add('arrived'); // highlighted briefly: this line came in live
    list.appendChild(item);
  });

  events.addEventListener('task', function (event) {
    var data = JSON.parse(event.data);
    replace('[data-task-header]', byTask(data.taskId), data.html);
  });

  events.addEventListener('deliveries', function (event) {
    replace('[data-deliveries]', document, JSON.parse(event.data).html);
  });

  events.addEventListener('column', function (event) {
    var data = JSON.parse(event.data);
    var columns = document.querySelector('[data-columns]');
    var column = fragment(data.html);
    if (!columns || !column) return;
    // After a reconnect the server sends again each column that arrived live, with its whole
    // timeline as it stands now: it replaces ours, which missed what happened while we were away.
    var current = columns.querySelector('[data-task-id="' + CSS.escape(data.taskId) + '"]');
    if (current) {
      current.replaceWith(column);
      return;
    }
    var empty = columns.querySelector('[data-empty]');
    if (empty) empty.remove();
    columns.appendChild(column);
  });

  events.addEventListener('end', function () {
    events.close();
    setStatus('ended', 'Up to date · task finished');
  });

  // The session ran out while the page was open: a reconnect would be refused, so sign in again
  // and come back here.
  events.addEventListener('signed-out', function () {
    events.close();
    setStatus('closed', 'Signed out');
    window.location.assign('/login?next=' + encodeURIComponent(location.pathname + location.search));
  });
})();
