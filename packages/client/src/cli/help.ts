import { usageLine, type Command } from './command.ts';

export function helpText(commands: readonly Command[]): string[] {
  return [
    'switchyard: an A2A 1.0 client for Switchyard (and any A2A 1.0 agent).',
    '',
    'Agent commands take <agent-url>: an agent base URL ({server}/agents/{tenant}/{agent}) or a card URL (…/agent-card.json).',
    'Options for agent commands: --api-key KEY (or SWITCHYARD_API_KEY), --transport jsonrpc|rest, -H "Name: value".',
    'Options for admin commands: --server URL (or SWITCHYARD_SERVER, default http://localhost:8080),',
    '  --admin-token TOKEN (or SWITCHYARD_ADMIN_TOKEN).',
    '--json prints machine-readable output everywhere (errors as {"error":…} on stderr).',
    '',
    'Commands:',
    ...commands.flatMap((c) => [`  ${usageLine(c)}`, `      ${c.summary}`]),
    '',
    'Exit codes: 0 ok / task COMPLETED, 1 usage, 2 error response from the server, 3 task FAILED/REJECTED/CANCELED,',
    '  4 task INPUT_REQUIRED/AUTH_REQUIRED, 5 network or server unavailable, 6 --timeout reached, 130 interrupted.',
  ];
}
