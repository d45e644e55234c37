import { html, type SafeHtml } from './html.ts';

export function renderLoginPage({ next, error }: { next: string; error?: string }): SafeHtml {
  return html`<section class="login" aria-labelledby="login-h">
  <h1 id="login-h">Sign in to the console</h1>
  <p class="muted">Use the platform's admin token (<code>SWITCHYARD_ADMIN_TOKEN</code>, the same credential as the gateway's admin API).</p>
  ${error ? html`<p class="notice notice-error" role="alert">${error}</p>` : null}
  <form method="post" action="/login">
    <input type="hidden" name="next" value="${next}">
    <input class="visually-hidden" name="username" value="admin" autocomplete="username" tabindex="-1" aria-hidden="true" readonly>
    <label for="token">Admin token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
    <button type="submit">Sign in</button>
  </form>
</section>`;
}

export function renderErrorPage(status: number, message: string): SafeHtml {
  return html`<div class="page-head"><h1>${status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'Request refused'}</h1></div>
<p class="notice notice-error" role="alert">${message}</p>
<p><a href="/tasks">Back to tasks</a></p>`;
}
