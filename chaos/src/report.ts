import type { ChaosReport } from './run-chaos.ts';

/** The checker's report as text: what ran, what was injected, what was proved or violated. */
export function formatReport(report: ChaosReport): string {
  const out: string[] = [];
  const { stats } = report;
  out.push(
    `Switchyard fault-injection run — seed ${report.seed}, ${Math.round(report.durationMs / 1000)} s of workload`,
  );
  out.push(`postgres: ${report.services.postgres}`);
  out.push(`redis:    ${report.services.redis}`);
  out.push('');
  out.push('workload');
  const byScenario = new Map<string, number>();
  for (const s of report.input.sends) byScenario.set(s.scenario, (byScenario.get(s.scenario) ?? 0) + 1);
  out.push(`  sends            ${stats.sends} (${[...byScenario].map(([k, n]) => `${k} ${n}`).join(', ')})`);
  out.push(`  accepted         ${stats.accepted}; retried with the same messageId: ${stats.retriedSends}`);
  const calls = Object.entries(report.calls).sort(([a], [b]) => a.localeCompare(b));
  out.push(`  reads, streams   ${calls.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  out.push(
    `  tasks            ${stats.tasks} with ${stats.events} events and ${stats.chunks} artifact chunks`,
  );
  out.push(`  executions       ${stats.executions}, of which ${stats.extraExecutions} re-executions`);
  for (const [why, n] of Object.entries(report.reexecutions))
    out.push(`                     ${n} after ${why}`);
  out.push(
    `  SSE streams      ${stats.streams}; ${stats.resumedStreams} resumed (${stats.resumes} resumes with Last-Event-ID)`,
  );
  out.push(
    `  push             ${stats.pushTasks} tasks with a webhook; ${stats.pushesReceived} POSTs accepted by the receiver`,
  );
  out.push(
    `  Postgres         ${report.statementTimeouts} statements given up after PG_STATEMENT_TIMEOUT_MS (logged)`,
  );
  out.push('');
  out.push(`faults injected (${report.faults.length})`);
  for (const f of report.faults) {
    const t = new Date(f.at).toISOString().slice(11, 23);
    out.push(
      `  ${t}  ${f.kind.padEnd(16)} ${f.name ? `${f.name} pid ${f.pid}` : ''} ${f.until - f.at > 0 ? `${f.until - f.at} ms` : ''}${f.note ? `  (${f.note})` : ''}`.trimEnd(),
    );
  }
  if (report.input.crashes.length) {
    out.push('');
    out.push(`processes that exited on their own (${report.input.crashes.length})`);
    for (const c of report.input.crashes) out.push(...c.split('\n').map((l) => `  ${l}`));
  }
  out.push('');
  const checks: Array<[string, string[]]> = [
    [
      'no task lost, every task settled',
      [
        'task-lost',
        'task-not-settled',
        'unexpected-final-state',
        'state-changed-after-client-saw-it',
        'client-gave-up',
      ],
    ],
    ['idempotent sends (same messageId, same answer)', ['idempotency-broken']],
    [
      'at most one terminal state per task, the one its log ends with',
      ['two-terminal-states', 'event-after-terminal', 'state-diverged', 'event-log-gap'],
    ],
    ['no re-execution without a fault', ['unexplained-reexecution']],
    ['no write after a takeover', ['write-after-takeover']],
    ['every artifact chunk exactly once', ['chunk-missing', 'chunk-duplicated']],
    ['every push at least once, in order', ['push-missing', 'push-out-of-order', 'push-not-delivered']],
    [
      'every SSE event once across resumes',
      ['sse-duplicate', 'sse-gap', 'sse-out-of-order', 'sse-unfinished'],
    ],
    ['no process crashed', ['process-crashed']],
  ];
  out.push('checks');
  for (const [name, kinds] of checks) {
    const found = report.violations.filter((v) => kinds.includes(v.kind));
    out.push(
      `  ${found.length === 0 ? 'ok  ' : 'FAIL'}  ${name}${found.length ? ` — ${found.length} violation(s)` : ''}`,
    );
  }
  if (report.violations.length) {
    out.push('');
    out.push(`violations (${report.violations.length})`);
    for (const v of report.violations.slice(0, 50))
      out.push(`  ${v.kind}${v.taskId ? ` task ${v.taskId}` : ''}: ${v.detail}`);
    if (report.violations.length > 50) out.push(`  … and ${report.violations.length - 50} more`);
  }
  out.push('');
  out.push(
    report.violations.length === 0 ? 'RESULT: clean' : `RESULT: ${report.violations.length} violation(s)`,
  );
  return out.join('\n');
}
