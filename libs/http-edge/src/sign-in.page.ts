/** The sign-in page: a token form, no script (the dashboard's CSP allows none). */
export function renderSignInPage(options: { error?: string; signedOut?: boolean; oidc?: boolean }): string {
  const note = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : options.signedOut ? '<p>You are signed out.</p>' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in · Auto-oncall</title>
<style>body{font:15px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#0f172a}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem;font:inherit}.error{color:#b91c1c}</style>
</head><body><h1>Auto-oncall</h1>${note}
<form method="post" action="/auth/sign-in">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="off" required maxlength="200">
<button type="submit">Sign in</button>
</form>
${options.oidc ? '<p><a id="oidc" href="/auth/oidc/start">Sign in with your identity provider</a></p>' : ''}
<p>Create a token with <code>npm run aoc -- token create --role viewer --tenant &lt;tenant&gt;</code>.</p>
</body></html>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
