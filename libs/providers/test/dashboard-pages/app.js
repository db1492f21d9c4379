// Mimics a TiDB Dashboard view: reads the token from localStorage, calls the API, renders a table.
(function () {
  var table = document.getElementById('result');
  var error = document.getElementById('result-error');
  var columns = JSON.parse(table.getAttribute('data-columns'));
  var here = location.pathname + location.search;
  var toLogin = function () {
    location.replace('/dashboard/login?next=' + encodeURIComponent(here));
  };
  var token = localStorage.getItem('dashboard_auth_token');
  if (!token) return toLogin();
  var head = table.querySelector('thead tr');
  ['digest'].concat(columns).forEach(function (c) {
    var th = document.createElement('th');
    th.textContent = c;
    head.appendChild(th);
  });
  var fail = function (message) {
    error.textContent = message;
    table.setAttribute('data-state', 'error');
  };
  fetch('/dashboard/api/' + table.getAttribute('data-api') + location.search, { headers: { authorization: 'Bearer ' + token } })
    .then(function (res) {
      if (res.status === 401) {
        localStorage.removeItem('dashboard_auth_token');
        return toLogin();
      }
      return res.json().then(function (body) {
        if (!res.ok) return fail(body.message || 'request failed');
        var tbody = table.querySelector('tbody');
        body.data.forEach(function (row) {
          var tr = document.createElement('tr');
          tr.setAttribute('data-digest', row.digest);
          var first = document.createElement('td');
          first.textContent = row.digest.slice(0, 8);
          tr.appendChild(first);
          columns.forEach(function (c) {
            var td = document.createElement('td');
            td.setAttribute('data-col', c);
            td.setAttribute('data-value', String(row[c]));
            td.textContent = typeof row[c] === 'number' ? row[c].toLocaleString() : String(row[c]);
            tr.appendChild(td);
          });
          tbody.appendChild(tr);
        });
        table.setAttribute('data-total', String(body.total));
        table.setAttribute('data-state', 'ready');
      });
    })
    .catch(function (e) {
      fail(String(e));
    });
})();
