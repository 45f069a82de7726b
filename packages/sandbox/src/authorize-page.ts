import type { SandboxAccount } from './options.ts';

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The simulated login and consent page. It signs in as the chosen account and approves by itself
 * after a moment (a GET back to the same path with `approve=1`), so a person clicking through a
 * demo sees who logged in without typing anything; picking another account stops the countdown.
 */
export function authorizePage(input: {
  title: string;
  clientId: string;
  query: Record<string, string>;
  accounts: SandboxAccount[];
  selected: string;
}): string {
  const hidden = Object.entries(input.query)
    .filter(([k]) => !['account', 'approve', 'deny', 'auto'].includes(k))
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
    .join('\n      ');
  const options = input.accounts
    .map(
      (a) =>
        `<option value="${escape(a.id)}"${a.id === input.selected ? ' selected' : ''}>${escape(a.name)} (${escape(a.sso_details.email)}, ${a.locations.length} location${a.locations.length === 1 ? '' : 's'})</option>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(input.title)}: sign in</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1b1b1f; }
    .card { border: 1px solid #d0d0d7; border-radius: 8px; padding: 1.5rem; }
    select, button { font: inherit; padding: .4rem .6rem; max-width: 100%; }
    button[name=approve] { background: #2f5bea; color: #fff; border: 0; border-radius: 4px; }
    .muted { color: #5c5c66; font-size: .9rem; }
  </style>
</head>
<body>
  <div class="card">
    <h1>${escape(input.title)}</h1>
    <p>Signed in to the sandbox. The platform (client <code>${escape(input.clientId)}</code>) asks to access your account's locations.</p>
    <form method="get" id="consent">
      ${hidden}
      <p><label>Account <select name="account" id="account">${options}</select></label></p>
      <p><button type="submit" name="approve" value="1">Approve</button>
         <button type="submit" name="deny" value="1">Decline</button></p>
      <p class="muted" id="countdown">Approving automatically in a moment.</p>
    </form>
  </div>
  <script>
    const form = document.getElementById('consent');
    const timer = setTimeout(() => form.requestSubmit(form.querySelector('button[name=approve]')), 1500);
    document.getElementById('account').addEventListener('change', () => {
      clearTimeout(timer);
      document.getElementById('countdown').textContent = 'Choose Approve or Decline.';
    });
  </script>
</body>
</html>
`;
}
