// Mimics the TiDB Dashboard sign-in: the API returns a token the app keeps in localStorage.
(function () {
  var form = document.getElementById('signin-form');
  var error = document.getElementById('signin-error');
  var next = new URLSearchParams(location.search).get('next') || '/dashboard/statement';
  if (next.indexOf('/dashboard/') !== 0) next = '/dashboard/statement';
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = JSON.stringify({ username: form.elements.username.value, password: form.elements.password.value, type: 0 });
    fetch('/dashboard/api/user/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body })
      .then(function (res) {
        return res.json().then(function (data) {
          if (!res.ok) {
            error.textContent = data.message || 'sign-in failed';
            error.setAttribute('data-shown', 'true');
            return;
          }
          localStorage.setItem('dashboard_auth_token', data.token);
          location.replace(next);
        });
      })
      .catch(function (e) {
        error.textContent = String(e);
        error.setAttribute('data-shown', 'true');
      });
  });
})();
