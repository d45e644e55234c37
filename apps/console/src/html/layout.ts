import { html, raw, type SafeHtml } from './html.ts';

export type Section = 'tasks' | 'queues' | 'tenants' | 'none';

export interface LayoutOptions {
  title: string;
  section: Section;
  body: SafeHtml;
  /** Empty for bearer callers and the login page: no logout form then. */
  csrf: string;
  /** Shows the logout button (session callers). */
  signedIn: boolean;
}

const ariaCurrent = (section: Section, link: Section) =>
  section === link ? raw(' aria-current="page"') : null;

/** The page shell: skip link, navigation with the go-to-task box, main landmark. */
export function layout({ title, section, body, csrf, signedIn }: LayoutOptions): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Switchyard console</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/tasks">Switchyard <span>console</span></a>
  ${
    section === 'none' && !signedIn
      ? null
      : html`<nav aria-label="Sections">
    <a href="/tasks"${ariaCurrent(section, 'tasks')}>Tasks</a>
    <a href="/queues"${ariaCurrent(section, 'queues')}>Queues</a>
    <a href="/tenants"${ariaCurrent(section, 'tenants')}>Tenants</a>
  </nav>
  <form class="goto" action="/find" method="get" role="search">
    <label for="goto-id" class="visually-hidden">Go to task id</label>
    <input id="goto-id" name="id" placeholder="Go to task id…" autocomplete="off" spellcheck="false">
    <button type="submit">Go</button>
  </form>`
  }
  ${
    signedIn
      ? html`<form class="logout" action="/logout" method="post">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit" class="link">Log out</button>
  </form>`
      : null
  }
</header>
<main id="main">
${body}
</main>
</body>
</html>`;
}
